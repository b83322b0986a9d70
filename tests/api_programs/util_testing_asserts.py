"""torch.testing as library test suites call it: assert_close passing within default and explicit tolerances,
failing with its mismatch report (value, shape, dtype, device, stride and type mismatches, nan handling,
sequences and mappings of tensors, Python scalars, check_dtype=False, equal_nan, a custom msg and msg callable),
torch.allclose/isclose/equal as the quick checks, and make_tensor's shapes, dtypes and bounds (never its values)."""

import math

import numpy as np
import torch
from torch.testing import assert_close, make_tensor


def check(label, actual, expected, **kw):
    try:
        assert_close(actual, expected, **kw)
        print(label, "ok")
    except Exception as e:
        lines = str(e).splitlines()
        print(label, type(e).__name__, "|", " / ".join(line.strip() for line in lines[:6]))


a = torch.tensor([1.0, 2.0, 3.0])
check("exact", a, a.clone())
check("tiny_diff", a, a + 1e-7)
check("value_mismatch", a, torch.tensor([1.0, 2.5, 3.0]))
check("two_mismatches", torch.arange(6.0).view(2, 3), torch.tensor([[0.0, 1.0, 9.0], [3.0, 4.0, -5.0]]))
check("atol_rtol", a, a + 0.01, atol=0.02, rtol=0.0)
check("atol_only_fail", a, a + 0.01, atol=0.001, rtol=0.0)
check("one_tol", a, a, atol=1e-3)
check("shape", a, a.view(1, 3))
check("dtype", a, a.double())
check("dtype_off", a, a.double(), check_dtype=False)
check("int_exact", torch.tensor([1, 2]), torch.tensor([1, 3]))
check("bool", torch.tensor([True, False]), torch.tensor([True, True]))
check("nan_default", torch.tensor([math.nan, 1.0]), torch.tensor([math.nan, 1.0]))
check("nan_equal", torch.tensor([math.nan, 1.0]), torch.tensor([math.nan, 1.0]), equal_nan=True)
check("inf", torch.tensor([math.inf]), torch.tensor([math.inf]))
check("stride", torch.ones(2, 3).t(), torch.ones(3, 2), check_stride=True)
check("stride_off", torch.ones(2, 3).t(), torch.ones(3, 2))
check("type_mismatch", a, [1.0, 2.0, 3.0])
check("type_off", a, [1.0, 2.0, 3.0], allow_subclasses=True)
check("scalars", 1.0, 1.0 + 1e-9)
check("scalar_fail", 1.0, 1.1)
check("int_scalars", 3, 4)
check("list_of_tensors", [a, torch.zeros(2)], [a, torch.tensor([0.0, 1e-3])])
check("dict", {"w": a, "b": torch.zeros(1)}, {"w": a, "b": torch.ones(1)})
check("dict_keys", {"w": a}, {"v": a})
check("seq_len", [a], [a, a])
check("msg", a, a + 1, msg="weights drifted")
check("msg_fn", a, a + 1, msg=lambda m: "custom: " + m.splitlines()[0])
check("complex", torch.tensor([1 + 1j]), torch.tensor([1 + 1.1j]))
check("half", torch.tensor([1.0], dtype=torch.float16), torch.tensor([1.0005], dtype=torch.float16))
check("requires_grad", a.clone().requires_grad_(), a)
check("rtol_without_atol", a, a, rtol=1e-3)
check("none", None, None)
check("empty", torch.empty(0), torch.empty(0))
check("np_dtypes", np.array([1, 2]), np.array([1.0, 2.0]))
check("mixed_no_dtype", torch.tensor([1, 2]), torch.tensor([1.0, 2.5]), check_dtype=False)
check("strings", "a", "a")
check("np_scalar", np.float32(1.0), np.float32(1.1))
check("subclass_strict", torch.nn.Parameter(torch.ones(1)), torch.ones(1), allow_subclasses=False)

print("allclose", torch.allclose(a, a + 1e-6), torch.allclose(a, a + 1e-3), torch.allclose(a, a + 1e-3, atol=1e-2))
special = torch.tensor([1.0, math.nan, math.inf])
print("isclose", torch.isclose(special, special.clone()).tolist(),
      torch.isclose(torch.tensor([math.nan]), torch.tensor([math.nan]), equal_nan=True).tolist())
print("equal", torch.equal(a, a.clone()), torch.equal(a, a.view(3, 1)),
      torch.equal(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
try:
    torch.allclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print("allclose_dtypes", e)

for shape, dtype, kw in [((2, 3), torch.float32, {}), ((4,), torch.int64, {"low": -3, "high": 3}),
                         ((), torch.bool, {}), ((3, 3), torch.complex64, {}), ((5,), torch.uint8, {"high": 4}),
                         ((2, 2), torch.float64, {"low": 0.5, "high": 0.75}),
                         ((8,), torch.float32, {"exclude_zero": True})]:
    t = make_tensor(shape, dtype=dtype, device="cpu", **kw)
    lo = kw.get("low")
    hi = kw.get("high")
    inside = True
    if dtype.is_floating_point or (not dtype.is_complex and dtype != torch.bool):
        vals = t.double()
        if lo is not None:
            inside &= bool((vals >= lo).all())
        if hi is not None:
            inside &= bool((vals <= hi).all())
    nz = bool((t != 0).all()) if kw.get("exclude_zero") else None
    print("make_tensor", tuple(t.shape), t.dtype, t.device, inside, nz)
ng = make_tensor((2,), dtype=torch.float32, device="cpu", requires_grad=True)
print("make_grad", ng.requires_grad, ng.is_leaf, make_tensor(3, 2, dtype=torch.float16, device="cpu").shape)
nc = make_tensor((4, 3), dtype=torch.float32, device="cpu", noncontiguous=True)
print("noncontig", nc.is_contiguous(), tuple(nc.shape))
try:
    make_tensor((2,), dtype=torch.float32, device="cpu", low=2.0, high=1.0)
except ValueError as e:
    print("bad_bounds", e)
