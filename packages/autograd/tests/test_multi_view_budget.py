"""Call budgets of the multi-view ops (unbind, split, chunk): counted Python and C calls, not time, so a slower path
fails whatever the load; and what their one-pass views must still be (PyTorch's node, base, version, in-place rule).

Measured when set (Python/C calls), against the path of one dispatched view per piece (in brackets): unbind of 10
rows 16/40 (105/131), of 100 rows 16/310 (1005/1301), split(3) 19/41 (50/76), split([3, 7], 1) 19/28 (31/41),
chunk(2, 1) 21/28 (34/44), tensor_split(4) of a tensor not requiring grad 26/54 (54/97), unbind recorded 27/64
(145/271), a piece's backward 101/213 (212/417). The Python calls no longer grow with the pieces; the budgets leave
about 15%.
"""

import numpy as np
import pytest

import ember.autograd as E
from call_budget import count_calls as _count, cpu_only_process  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("cpu_only_process")


rng = np.random.default_rng(0)
A = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
L = E.from_numpy(rng.standard_normal((100, 10), dtype=np.float32))
AG = A.clone().requires_grad_(True)

CALLS = {
    "a.unbind(0)": lambda: A.unbind(0),
    "l.unbind(0)": lambda: L.unbind(0),
    "a.split(3)": lambda: A.split(3),
    "a.split([3, 7], 1)": lambda: A.split([3, 7], 1),
    "a.chunk(2, 1)": lambda: A.chunk(2, 1),
    "a.tensor_split(4)": lambda: A.tensor_split(4),
    "ag.unbind(0)": lambda: AG.unbind(0),
    "ag.unbind(0)[1].sum().backward()": lambda: AG.unbind(0)[1].sum().backward(),
}
BUDGETS = {
    "a.unbind(0)": (19, 46), "l.unbind(0)": (19, 360), "a.split(3)": (22, 48), "a.split([3, 7], 1)": (22, 33),
    "a.chunk(2, 1)": (24, 33), "a.tensor_split(4)": (30, 62), "ag.unbind(0)": (32, 74),
    "ag.unbind(0)[1].sum().backward()": (116, 245),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_call_stays_within_its_budget(name):
    got, budget = _count(CALLS[name]), BUDGETS[name]
    assert got[0] <= budget[0] and got[1] <= budget[1], (
        f"{name}: {got[0]} Python calls and {got[1]} C calls; the budget is {budget[0]} and {budget[1]}")


def test_pieces_share_one_node_and_are_views_of_the_base():
    """PyTorch's multi-view ops: one node for every piece, each piece its output_nr, a view of the base sharing
    its version counter."""
    x = E.from_numpy(rng.standard_normal((3, 4))).requires_grad_(True).clone()
    for pieces, name in ((x.unbind(0), "UnbindBackward0"), (x.split(2, 1), "SplitBackward0"),
                         (x.split([1, 3], 1), "SplitWithSizesBackward0"), (x.chunk(3), "SplitBackward0")):
        assert [type(p.grad_fn).__name__ for p in pieces] == [name] * len(pieces)
        assert all(p.grad_fn is pieces[0].grad_fn for p in pieces)
        assert [p.output_nr for p in pieces] == list(range(len(pieces)))
        assert all(p._base is x and not p.is_leaf for p in pieces)
    y = E.zeros(3, 4)
    rows = y.unbind(0)
    rows[1].add_(1.0)  # no grad: an in-place write through a piece reaches the base
    assert y.tolist()[1] == [1.0] * 4 and rows[0]._version == y._version == 1
    assert rows[2]._base is y


def test_a_piece_written_in_place_raises_pytorchs_error():
    x = E.from_numpy(rng.standard_normal((3, 4))).requires_grad_(True).clone()
    for make, nr, fn in ((lambda: x.unbind(0), 1, "Unbind"), (lambda: x.split(2), 1, "Split"),
                         (lambda: x.split([1, 3], 1), 1, "SplitWithSizes")):
        with pytest.raises(RuntimeError, match=f"^Output {nr} of {fn} is a view and is being modified inplace"):
            make()[nr].mul_(2)


def test_a_view_of_a_piece_written_in_place_raises_naming_its_own_node():
    # PyTorch propagates the multi-output creation meta to views of a piece, and names the view's node
    x = E.from_numpy(rng.standard_normal((4, 3))).requires_grad_(True).clone()
    for write, fn in ((lambda: x.unbind(1)[0].__setitem__(0, 5.0), "Select"),
                      (lambda: x.unbind(1)[0][1:].mul_(2), "Slice"),
                      (lambda: x.split(2)[0].view(-1).add_(1), "View"),
                      (lambda: x.chunk(2)[0].t().zero_(), "T")):
        with pytest.raises(RuntimeError, match=f"^Output 0 of {fn} is a view and is being modified inplace"):
            write()
    assert x.unbind(0)[1].clone()[0].mul_(2).shape == ()  # a clone of a piece is free to write


def test_pieces_gradients_join_with_zeros_where_none_flowed():
    w = E.from_numpy(np.arange(12.0).reshape(3, 4)).requires_grad_(True)
    a, _, c = (w * 1).unbind(0)
    (a * 1 + c * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[1] * 4, [0] * 4, [2] * 4])
    w.grad = None
    u = (w * 1).split([1, 3], 1)
    (u[1] ** 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.where(np.arange(4) > 0, 2 * np.arange(12.0).reshape(3, 4), 0))
    w.grad = None
    E.stack([p * (i + 1) for i, p in enumerate((w * 1).split(1, 1))], 0).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.tile(np.arange(1.0, 5.0), (3, 1)))


def test_a_piece_made_in_no_grad_refuses_an_in_place_write_with_grad():
    x = E.from_numpy(rng.standard_normal((3, 4))).requires_grad_(True).clone()
    with E.no_grad():
        rows = x.unbind(0)
    assert rows[0].requires_grad
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being modified inplace"):
        rows[0].add_(1)


def test_a_piece_whose_base_was_written_refuses_its_history():
    """PyTorch's rule: after an in-place write into the base, a piece that requires grad has no history to replay
    (its multi-output node cannot be rebuilt for one piece); a piece without grad reads the new values."""
    x = E.from_numpy(np.arange(6.0).reshape(2, 3)).requires_grad_(True) * 1
    _, second = x.unbind(0)
    x.mul_(3)
    with pytest.raises(RuntimeError, match="^Output 1 of Unbind is a view and its base or another view of its base "
                                           "has been modified inplace"):
        second.grad_fn
    y = E.zeros(2, 3)
    _, row = y.unbind(0)
    y.add_(2)
    assert row.tolist() == [2.0] * 3 and row.grad_fn is None


def test_bad_arguments_raise_pytorchs_errors():
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        E.tensor(1.0).unbind()
    with pytest.raises(RuntimeError, match="^split expects at least a 1-dimensional tensor$"):
        E.tensor(1.0).split(1)
    with pytest.raises(RuntimeError, match=r"^split_with_sizes expects split_sizes have only non-negative entries, "
                                           r"but got split_sizes=\[4, -1\]$"):
        E.zeros(3).split([4, -1])
