"""set_printoptions and printing of large/small/mixed tensors, finfo/iinfo fields, assert_close failure messages."""

import torch
import torch.testing

mixed = torch.tensor([1e-5, 1.0, 12345.678])
small = torch.tensor([1e-8, 2e-9, 3.5e-10])
big = torch.tensor([1e10, 2.5e12])
print("default", mixed, small, big)
torch.set_printoptions(precision=2)
print("precision 2", mixed, torch.tensor([0.123456, 9.87654]))
torch.set_printoptions(sci_mode=False)
print("sci off", mixed, small)
torch.set_printoptions(sci_mode=True)
print("sci on", torch.tensor([1.5, 2.25]))
torch.set_printoptions(profile="default")
print("profile default", torch.tensor([0.123456789, 2.0]))
torch.set_printoptions(linewidth=40)
print("linewidth", torch.arange(20.0))
torch.set_printoptions(profile="default")
torch.set_printoptions(threshold=5, edgeitems=2)
print("threshold", torch.arange(10), torch.arange(12.0).view(3, 4))
torch.set_printoptions(profile="short")
print("short", torch.tensor([3.14159265, 2.71828]))
torch.set_printoptions(profile="full")
print("full", torch.arange(1001)[-3:], torch.arange(1200).shape)
torch.set_printoptions(profile="default")
print("large", torch.arange(2000))
print("large 2d", torch.arange(4000.0).view(40, 100))
print("ints mixed sign", torch.tensor([-1, 100, -1000]), torch.tensor([1.0, -2.5, 300.0]))
print("inf nan", torch.tensor([float("inf"), float("-inf"), float("nan"), 1.5]))
print("half", torch.tensor([1.0, 2.5], dtype=torch.float16), torch.tensor([1.0], dtype=torch.bfloat16))
print("f64", torch.tensor([1.0, 1e-3], dtype=torch.float64), torch.tensor(0.1, dtype=torch.float64))
print("complex", torch.tensor([1 + 2j, -0.5j]))
print("empty", torch.tensor([]), torch.zeros(0, 3), torch.zeros(2, 0))
print("scalar", torch.tensor(3.0), torch.tensor(-0.0), torch.tensor(7), torch.tensor(False))
print("requires_grad", torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True) * 2)
print("repr vs str", repr(torch.tensor([1.0])), str(torch.tensor([2])))
for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    fi = torch.finfo(dt)
    print("finfo", dt, fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution)
for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
    ii = torch.iinfo(dt)
    print("iinfo", dt, ii.bits, ii.min, ii.max, ii.dtype)
print("finfo repr", torch.finfo(torch.float32))
print("iinfo repr", torch.iinfo(torch.int8))
try:
    torch.iinfo(torch.float32)
except TypeError as e:
    print("iinfo float:", e)
a = torch.tensor([1.0, float("nan"), 3.0])
bb = torch.tensor([1.0 + 1e-7, float("nan"), 3.0001])
print("isclose", torch.isclose(a, bb), torch.isclose(a, bb, equal_nan=True))
print(
    "allclose",
    torch.allclose(a, bb),
    torch.allclose(a, bb, equal_nan=True),
    torch.allclose(a, bb, rtol=1e-3, equal_nan=True),
)
print(
    "isclose atol",
    torch.isclose(torch.tensor([0.0]), torch.tensor([1e-9])),
    torch.isclose(torch.tensor([0.0]), torch.tensor([1e-9]), atol=0.0),
)
print("isclose inf", torch.isclose(torch.tensor([float("inf")]), torch.tensor([float("inf")])))
print("equal", torch.equal(a, a), torch.equal(torch.tensor([1, 2]), torch.tensor([1, 2])))
torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
print("assert_close passed")
cases = [
    (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0]), {}),
    (torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 2.0], [3.1, 4.2]]), {}),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]), {"rtol": 1e-2, "atol": 1e-2}),
    (torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]), {}),
    (torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), {}),
    (torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64), {}),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0]), {}),
    (torch.tensor(5.0), torch.tensor(5.5), {}),
    (torch.tensor([True, False]), torch.tensor([True, True]), {}),
]
for actual, expected, kw in cases:
    try:
        torch.testing.assert_close(actual, expected, **kw)
        print("no error")
    except AssertionError as e:
        print(type(e).__name__, "|", str(e))
torch.testing.assert_close(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), equal_nan=True)
print("nan equal passed")
torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64), check_dtype=False)
print("check_dtype off passed")
try:
    torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([2.0]), msg="custom message")
except AssertionError as e:
    print("custom:", e)
try:
    torch.testing.assert_close([torch.tensor(1.0), torch.tensor(2.0)], [torch.tensor(1.0), torch.tensor(3.0)])
except AssertionError as e:
    print("sequence:", e)
try:
    torch.testing.assert_close({"w": torch.tensor([1.0])}, {"w": torch.tensor([1.5])})
except AssertionError as e:
    print("mapping:", e)
try:
    torch.testing.assert_close(1.0, 1.5)
except AssertionError as e:
    print("python scalars:", e)
try:
    torch.testing.assert_close(torch.tensor([1.0]), 1.0)
except TypeError as e:
    print("tensor vs number:", e)
try:
    torch.testing.assert_close({"a": torch.ones(1)}, {"b": torch.ones(1)})
except AssertionError as e:
    print("keys:", e)
try:
    torch.testing.assert_close(torch.ones(2, 2), torch.ones(2, 2).t().contiguous().t(), check_stride=True)
except AssertionError as e:
    print("stride:", e)
more = [
    (torch.tensor([1 + 1j, 2j]), torch.tensor([1 + 1j, 3j])),
    (torch.tensor([1.0], dtype=torch.bfloat16), torch.tensor([1.1], dtype=torch.bfloat16)),
    ((torch.ones(1), (torch.ones(1), torch.zeros(1))), (torch.ones(1), (torch.ones(1), torch.ones(1)))),
    (1.0, 1),
    (True, False),
    (torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([2, 1], dtype=torch.uint8)),
    (torch.tensor(1.0), torch.tensor(0.0)),
]
for actual, expected in more:
    try:
        torch.testing.assert_close(actual, expected)
    except AssertionError as e:
        print("more |", e)
try:
    torch.isclose(torch.ones(1), torch.ones(1), rtol=-1)
except RuntimeError as e:
    print("negative rtol:", e)
print("finfo eq", torch.finfo(torch.float16) == torch.finfo(torch.float16), torch.finfo(torch.bfloat16))
