"""Call budgets of a recorded view (NOTE [ Recording a view ] in ember/autograd/record.py): counted Python and C
calls, not time, so a slower path fails whatever the load; and the recorded view must be what the general path
records (node, edge, saved values, view chain), which the second half checks against `_record` itself.

Measured when set (Python/C calls; in brackets before stop 43's `_record_view`, its direct kernel call and the
trimmed kernels): w.t() 9/21 (16/27), w.view(100) 12/29 (17/34), w.transpose(0, 1) 10/19 (17/25), w.reshape(5, 20)
12/22 (21/31), w.permute(1, 0) 9/26 (24/30), w.unsqueeze(0) 9/19 (15/24), u.expand(3, 10, 10) 10/28 (19/34),
w.narrow(0, 1, 3) 12/26 (18/30), w[:, 1:] 12/27 (22/33), w[1] 8/19 (14/24), u.squeeze(0) 11/21 (21/26), and without
grad wd.t() 9/15 (14/16), wd[:, 1:] 12/23 (20/24). The budgets leave about 15% (at least 2 calls).
"""

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import record
from call_budget import count_calls as _count, cpu_only_process  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("cpu_only_process")

rng = np.random.default_rng(0)
W = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32)).requires_grad_(True)
U = W.unsqueeze(0)
WD = W.detach()

CALLS = {
    "w.t()": (lambda: W.t(), (11, 25)),
    "w.view(100)": (lambda: W.view(100), (14, 34)),
    "w.transpose(0, 1)": (lambda: W.transpose(0, 1), (12, 22)),
    "w.reshape(5, 20)": (lambda: W.reshape(5, 20), (14, 26)),
    "w.permute(1, 0)": (lambda: W.permute(1, 0), (11, 30)),
    "w.unsqueeze(0)": (lambda: W.unsqueeze(0), (11, 22)),
    "u.expand(3, 10, 10)": (lambda: U.expand(3, 10, 10), (12, 33)),
    "w.narrow(0, 1, 3)": (lambda: W.narrow(0, 1, 3), (14, 30)),
    "w[:, 1:]": (lambda: W[:, 1:], (14, 32)),
    "w[1]": (lambda: W[1], (10, 22)),
    "u.squeeze(0)": (lambda: U.squeeze(0), (13, 25)),
    "wd.t()": (lambda: WD.t(), (11, 18)),
    "wd[:, 1:]": (lambda: WD[:, 1:], (14, 27)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_view_stays_within_its_call_budget(name):
    fn, budget = CALLS[name]
    got = _count(fn)
    assert got[0] <= budget[0] and got[1] <= budget[1], (
        f"{name}: {got[0]} Python calls and {got[1]} C calls; the budget is {budget[0]} and {budget[1]}")


def _state(r):
    """What recording left on a view: its node (class, edges, saved values, slots, input metadata) and view meta."""
    fn, m = r._grad_fn, r._ag
    edges = [(n if type(n).__name__ == "AccumulateGrad" else type(n).__name__, nr) for n, nr in fn.next_functions]
    return (type(fn).__name__, edges, fn._saved, fn._slots, fn._in_meta, r._requires_grad,
            m.base is W, [(op.name, args, kw) for op, args, kw in m.chain], m.view_gen, m.made_in, m.multi_view,
            r._shape, r._strides, r._offset, r._storage is W._storage)


VIEWS = {name: fn for name, (fn, _) in CALLS.items() if not name.startswith("wd")}
VIEWS.update({"w.transpose(-1, -2)": lambda: W.transpose(-1, -2), "w[2:5, ::2]": lambda: W[2:5, ::2],
              "w.t()[1:]": lambda: W.t()[1:], "w.squeeze(1)": lambda: W.squeeze(1)})


@pytest.mark.parametrize("name", list(VIEWS))
def test_recorded_view_is_what_the_general_path_records(name, monkeypatch):
    fast = VIEWS[name]()
    monkeypatch.setattr(record, "_VIEWS", {op: None for op in record._VIEWS})  # every view op: `_record`'s path
    slow = VIEWS[name]()
    assert _state(fast) == _state(slow)
    assert fast._base is W and fast._is_view() and fast._version == W._version


def test_views_of_a_view_chain_and_write_through_copyslices():
    """A view of a recorded view keeps the base and the chain; an in-place op on it rebases the base (CopySlices)
    and the view regenerates its node, with PyTorch's gradient."""
    x = W.clone()
    v = x.t()[1:]
    assert v._base is x and [op.name for op, _, _ in v._ag.chain] == ["transpose", "slice"]
    v.mul_(2)
    assert type(x.grad_fn).__name__ == "CopySlices" and type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert x._version == v._version == 1
    (g,) = E.autograd.grad(x.sum(), W)
    expected = np.ones((10, 10), dtype=np.float32)
    expected[:, 1:] = 2
    np.testing.assert_array_equal(g.numpy(), expected)


def test_in_place_on_a_view_of_a_leaf_is_refused():
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        W.t().add_(1)


def test_view_made_in_no_grad_keeps_its_mode():
    with E.no_grad():
        v = W.t()
    assert v.requires_grad and v.grad_fn is None and v._ag.made_in == "no_grad"
    w = v[1:]  # a view of it, with grad mode on: PyTorch's view keeps the no_grad creation meta
    assert w._ag.made_in == "no_grad"


def test_a_hook_below_autograd_still_sees_a_recorded_view():
    """`_record_view` runs the kernel at once only where autograd's hook is the only one: a watching hook sees the op
    and the view is recorded as before."""
    from ember.core.testing import watching

    seen = []
    with watching(seen):
        v = W.t()
    assert seen == ["transpose"] and type(v.grad_fn).__name__ == "TBackward0" and v._base is W


def test_anomaly_trace_of_a_recorded_view_ends_where_the_general_paths_does(monkeypatch):
    """Under detect_anomaly a view's node keeps the forward stack up to the caller of the op, as `_record`'s."""
    def make():
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), E.autograd.detect_anomaly():
            return W.t()

    fast = make()
    monkeypatch.setattr(record, "_VIEWS", {op: None for op in record._VIEWS})
    slow = make()
    assert [(f.name, f.lineno) for f in fast.grad_fn._trace[-2:]] == \
        [(f.name, f.lineno) for f in slow.grad_fn._trace[-2:]]
    assert fast.grad_fn._trace[-2].name == "make"
