"""Call budgets of the sorting, selection and joining ops (the per-op guard of `test_op_path_budget.py` for
them): counted Python and C calls, not time, on 10x10 float32, so a slower path fails whatever the load.

Measured when set (Python/C calls), against the path before (in brackets): topk 24/44 (51/87), sort 27/48 (54/91),
kthvalue 28/42 (55/85), median(dim) 29/42 (41/49), stack 15/10 (32/32), stack along the last dim 16/12 (60/65),
cat 17/17 (21/32), topk's backward 70/179 (190/289), max(dim)'s 78/185 (197/272), a recorded stack (one StackBackward0)
28/39 (44/64), with its backward 73/165 (134/252). The budgets leave about 15%.
"""

import numpy as np
import pytest

import ember.autograd as E
from call_budget import count_calls as _count, cpu_only_process  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("cpu_only_process")


rng = np.random.default_rng(0)
A = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
B = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
V = E.from_numpy(rng.standard_normal(8, dtype=np.float32))
AG = A.clone().requires_grad_(True)

CALLS = {
    "topk(a, 3)": lambda: E.topk(A, 3),
    "sort(a)": lambda: E.sort(A),
    "kthvalue(a, 3)": lambda: E.kthvalue(A, 3),
    "median(a, 1)": lambda: E.median(A, 1),
    "stack([a, b])": lambda: E.stack([A, B]),
    "stack([v, v, v], 1)": lambda: E.stack([V, V, V], 1),
    "cat([a, b], 1)": lambda: E.cat([A, B], 1),
    "topk(ag, 3).values.sum().backward()": lambda: E.topk(AG, 3).values.sum().backward(),
    "ag.max(1)[0].sum().backward()": lambda: AG.max(1)[0].sum().backward(),
    "stack([ag, b])": lambda: E.stack([AG, B]),
    "stack([ag, b]).sum().backward()": lambda: E.stack([AG, B]).sum().backward(),
}
# kthvalue/median: one C call more since stop 43 (the function forms check a bool given for `dim`, PyTorch's
# TypeError) and six Python calls fewer (the recorded-view and dispatch paths)
BUDGETS = {
    "topk(a, 3)": (28, 51), "sort(a)": (31, 55), "kthvalue(a, 3)": (27, 49), "median(a, 1)": (28, 49),
    "stack([a, b])": (17, 12), "stack([v, v, v], 1)": (18, 14), "cat([a, b], 1)": (20, 20),
    "topk(ag, 3).values.sum().backward()": (80, 206), "ag.max(1)[0].sum().backward()": (90, 213),
    "stack([ag, b])": (32, 45), "stack([ag, b]).sum().backward()": (84, 190),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_call_stays_within_its_budget(name):
    got, budget = _count(CALLS[name]), BUDGETS[name]
    assert got[0] <= budget[0] and got[1] <= budget[1], (
        f"{name}: {got[0]} Python calls and {got[1]} C calls; the budget is {budget[0]} and {budget[1]}")


def test_selection_backward_writes_the_gradient_at_the_indices():
    """The CPU fast path of the selections' backward (one numpy store) gives scatter_add's gradient."""
    x = E.from_numpy(rng.standard_normal((3, 4, 5)))
    for dim in range(3):
        xg = x.clone().requires_grad_(True)
        w = E.from_numpy(rng.standard_normal((3, 4, 5)))
        v, i = xg.topk(2, dim)
        (v * w.narrow(dim, 0, 2)).sum().backward()
        want = E.zeros(3, 4, 5, dtype=E.float64).scatter_add(dim, i, w.narrow(dim, 0, 2).contiguous())
        np.testing.assert_array_equal(xg.grad.numpy(), want.numpy())
