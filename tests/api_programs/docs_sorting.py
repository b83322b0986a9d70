"""Comparison and sorting docstring examples: sort, topk, searchsorted, bucketize, isin, isclose, clamp."""

import numpy as np
import torch

rng = np.random.default_rng(2)
x = torch.from_numpy(rng.standard_normal((3, 4)).round(4).astype(np.float32))
sorted_, indices = torch.sort(x)
print("sort", sorted_, indices)
print("sort dim0", torch.sort(x, 0))
s = torch.tensor([0, 1] * 9)
print("sort stable", torch.sort(s, stable=True), torch.sort(s, stable=True, descending=True).indices)
print("sort desc", torch.sort(x[0], descending=True), x.sort(dim=1, descending=True).indices)
print("sort nan", torch.sort(torch.tensor([2.0, float("nan"), -1.0, float("inf")])))
print("sort nan desc", torch.sort(torch.tensor([2.0, float("nan"), -1.0]), descending=True))
print("sort bool", torch.sort(torch.tensor([True, False, True])), torch.tensor([3, 1, 2]).sort().values.dtype)
print("argsort", torch.argsort(x, dim=1), torch.argsort(torch.tensor([3, 1, 2, 1]), stable=True, descending=True))
print("msort", torch.msort(x))
xt = torch.arange(1.0, 6.0)
print("topk", torch.topk(xt, 3), torch.topk(xt, 3, largest=False))
print("topk sorted", torch.topk(torch.tensor([1.0, 5.0, 3.0, 4.0]), 2, sorted=True).indices, x.topk(2, dim=0).values)
print("topk k=0", torch.topk(xt, 0), torch.tensor([[1, 9], [8, 2]]).topk(1, dim=-1, largest=False))
sorted_sequence = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
values = torch.tensor([[3, 6, 9], [3, 6, 9]])
print("searchsorted", torch.searchsorted(sorted_sequence, values))
print("searchsorted right", torch.searchsorted(sorted_sequence, values, right=True))
print("searchsorted side", torch.searchsorted(sorted_sequence, values, side="right"))
sorted_sequence_1d = torch.tensor([1, 3, 5, 7, 9])
print("searchsorted 1d", torch.searchsorted(sorted_sequence_1d, values))
unsorted = torch.tensor([2.0, 9.0, 1.0, 7.0, 5.0])
sorter = torch.argsort(unsorted)
print("searchsorted sorter", torch.searchsorted(unsorted, torch.tensor([3.0, 6.0, 9.0]), sorter=sorter))
print("searchsorted sorter right", torch.searchsorted(unsorted, torch.tensor([5.0, 9.0]), side="right", sorter=sorter))
print("searchsorted scalar", torch.searchsorted(sorted_sequence_1d, 4), torch.searchsorted(sorted_sequence_1d, 4).shape)
print("searchsorted int32", torch.searchsorted(sorted_sequence_1d, values, out_int32=True).dtype)
boundaries = torch.tensor([1, 3, 5, 7, 9])
v = torch.tensor([[3, 6, 9], [3, 6, 9]])
print("bucketize", torch.bucketize(v, boundaries), torch.bucketize(v, boundaries, right=True))
print("bucketize float", torch.bucketize(torch.tensor([0.5, 1.0, 8.9, 10.0]), boundaries.float(), out_int32=True))
print("bucketize scalar", torch.bucketize(4, boundaries), torch.bucketize(torch.tensor(9), boundaries, right=True))
print("isin", torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3])))
print("isin invert", torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3]), invert=True))
print("isin scalar", torch.isin(torch.tensor([1, 2, 3]), 2), torch.isin(2, torch.tensor([1, 2])))
print("isin float", torch.isin(torch.tensor([1.0, 2.5, float("nan")]), torch.tensor([2.5, float("nan")])))
print("isclose", torch.isclose(torch.tensor((1.0, 2, 3)), torch.tensor((1 + 1e-10, 3, 4))))
print("isclose nan", torch.isclose(torch.tensor((float("inf"), 4)), torch.tensor((float("inf"), 6)), rtol=0.5))
nan2 = torch.tensor([1.0, float("nan")])
print("isclose equal_nan", torch.isclose(nan2, nan2), torch.isclose(nan2, nan2, equal_nan=True))
print("isclose int", torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3]), atol=1), torch.isclose(nan2, nan2[0]))
print("allclose", torch.allclose(torch.tensor([10000.0, 1e-07]), torch.tensor([10000.1, 1e-08])))
print("allclose 2", torch.allclose(torch.tensor([10000.0, 1e-08]), torch.tensor([10000.1, 1e-09])))
print("allclose nan", torch.allclose(nan2, nan2), torch.allclose(nan2, nan2, equal_nan=True))
print(
    "equal", torch.equal(torch.tensor([1, 2]), torch.tensor([1, 2])), torch.equal(nan2, nan2), torch.equal(xt, xt[:2])
)
a = torch.tensor((1, 2, -1))
b = torch.tensor((3, 0, 4))
print("maximum", torch.maximum(a, b), torch.minimum(a, b))
fa = torch.tensor([9.7, float("nan"), 3.1, float("nan")])
fb = torch.tensor([-2.2, 0.5, float("nan"), float("nan")])
print("fmax", torch.fmax(fa, fb), torch.fmin(fa, fb))
print("maximum nan", torch.maximum(fa, fb), torch.minimum(fa, fb))
print("max binary", torch.max(a, b), torch.max(fa, fb), torch.maximum(a, torch.tensor(1.5)))
print("max nan", torch.max(fa), torch.min(fa), torch.amax(fa[[0, 2]]), torch.argmax(fa))
c = torch.tensor([-1.7120, 0.1734, -0.0478, -0.0922])
print("clamp", torch.clamp(c, min=-0.5, max=0.5), torch.clamp(c, min=0.5), torch.clip(c, max=0.0))
mn = torch.linspace(-1, 1, steps=4)
print("clamp tensor", torch.clamp(c, min=mn), torch.clamp(c, mn, mn + 0.1), c.clamp(max=torch.tensor(0.1)))
print("clamp min>max", torch.clamp(c, min=1.0, max=0.0), torch.clamp(torch.tensor([1, 5, 9]), 2, 7))
print("clamp int float", torch.clamp(torch.tensor([1, 5, 9]), 2.5).dtype, torch.clamp(torch.tensor([1, 5]), max=3.5))
print("clamp nan", torch.clamp(torch.tensor([float("nan"), 2.0]), 0, 1), torch.clamp(c, min=float("nan")))
print("comparisons", torch.eq(a, b), torch.ne(a, 2), torch.gt(a, b), torch.le(a, 1.5), torch.greater_equal(a, b))
print("compare float int", torch.lt(torch.tensor([1.5]), torch.tensor([2])), (a > 0.5).dtype, a.less(b))
print("sign", torch.sgn(torch.tensor([3 + 4j, 0j])), torch.sign(fa), torch.signbit(torch.tensor([-0.0, 0.0, -1.0])))
print("is_nonzero", torch.is_nonzero(torch.tensor([1.0])), torch.is_nonzero(torch.tensor([0])))
print("isnan isinf", torch.isnan(fa), torch.isinf(torch.tensor([1, float("inf"), -float("inf")])))
print(
    "isposinf isfinite",
    torch.isposinf(torch.tensor([-np.inf, np.inf, 1.2])),
    torch.isfinite(fa),
    torch.isreal(torch.tensor([1, 1 + 1j])),
)
print("kth sort stability", torch.sort(torch.tensor([2, 1, 2, 1, 2]), stable=True, descending=True).indices)
for bad in [
    lambda: torch.topk(xt, 6),
    lambda: torch.sort(x, dim=2),
    lambda: torch.searchsorted(sorted_sequence, torch.tensor([1, 2])),
    lambda: torch.searchsorted(sorted_sequence_1d, values, side="middle"),
    lambda: torch.searchsorted(sorted_sequence_1d, values, side="left", right=True),
    lambda: torch.searchsorted(unsorted, torch.tensor([1.0]), sorter=sorter[:3]),
    lambda: torch.bucketize(v, boundaries.reshape(1, 5)),
    lambda: torch.clamp(c),
    lambda: torch.isclose(torch.tensor([1.0]), torch.tensor([1.0]), rtol=-1.0),
    lambda: torch.isclose(torch.tensor([1.0]), torch.tensor([1])),
    lambda: torch.allclose(torch.ones(2), torch.ones(3)),
    lambda: torch.fmax(torch.tensor([1 + 1j]), torch.tensor([1j])),
    lambda: torch.maximum(torch.tensor([1 + 1j]), torch.tensor([1j])),
    lambda: torch.is_nonzero(torch.tensor([1, 2])),
    lambda: torch.is_nonzero(torch.tensor([])),
    lambda: torch.msort(torch.tensor(1.0)),
    lambda: torch.sort(torch.tensor([1 + 1j])),
    lambda: torch.topk(torch.tensor([1.0, 2.0]), -1),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
