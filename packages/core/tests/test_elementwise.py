"""Every elementwise op of the registry against a numpy float64 reference: all dtypes,
broadcasting, non-contiguous views, 0-dim and empty tensors, in-place twins, `out=`, the Python
operators (reflected too) and PyTorch's errors."""

import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import elementwise as ew
from ember.core.testing import assert_close, make_tensor

special = pytest.importorskip("scipy.special")

# float64 references, written independently of the kernels' numpy calls
UNARY_REF = {
    "neg": np.negative, "abs": np.abs, "sign": lambda x: np.where(np.isnan(x), 0, np.sign(x)),  # sign(nan) = 0
    "square": lambda x: x * x, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.round,
    "frac": lambda x: x - np.trunc(x),
    "relu": lambda x: np.maximum(x, 0),
    "exp": np.exp, "exp2": lambda x: 2.0 ** x, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
    "log2": np.log2, "log10": np.log10, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": lambda x: 1 / x, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "silu": lambda x: x / (1 + np.exp(-x)), "erf": special.erf, "erfinv": special.erfinv, "isnan": np.isnan,
    "isinf": np.isinf, "isfinite": np.isfinite, "logical_not": lambda x: x == 0,
    "signbit": lambda x: np.copysign(1.0, x) < 0,
}
# (low, high) of the inputs where the op is defined and well-conditioned
DOMAIN = {"log": (0.1, 9), "log1p": (-0.9, 9), "log2": (0.1, 9), "log10": (0.1, 9), "sqrt": (0, 9),
          "rsqrt": (0.1, 9), "reciprocal": (0.5, 9), "asin": (-0.99, 0.99), "acos": (-0.99, 0.99),
          "atanh": (-0.99, 0.99), "acosh": (1, 9), "erfinv": (-0.99, 0.99), "tan": (-1.4, 1.4)}
INT_DOMAIN = {"log": (1, 9), "log2": (1, 9), "log10": (1, 9), "sqrt": (0, 9), "rsqrt": (1, 9), "reciprocal": (1, 9),
              "log1p": (0, 9), "acosh": (1, 9), "asin": (0, 1), "acos": (0, 1), "atanh": (0, 1), "erfinv": (0, 1)}

FLOATS = [E.float16, E.float32, E.float64]
INTS = [E.uint8, E.int8, E.int16, E.int32, E.int64]
TOL = {E.float16: {"rtol": 2e-3, "atol": 2e-3}, E.float32: {"rtol": 2e-6, "atol": 1e-5},
       E.float64: {"rtol": 1e-12, "atol": 1e-12}}

UNARY = {name: rule for name, _, rule in ew.UNARY}
BINARY = {name: rule for name, _, rule in ew.BINARY}


def test_every_registered_elementwise_op_has_a_reference():
    assert set(UNARY) == set(UNARY_REF)
    assert set(BINARY) == set(BINARY_REF)


def unary_result_dtype(rule, dt):
    if rule == ew.BOOL:
        return E.bool
    if rule == ew.FLOAT and not dt.is_floating_point:
        return E.get_default_dtype()
    return dt


def check_unary(name, x):
    rule = UNARY[name]
    r = getattr(E, name)(x)
    dt = unary_result_dtype(rule, x.dtype)
    assert r.dtype is dt, (name, x.dtype, r.dtype)
    assert r.shape == x.shape
    with np.errstate(all="ignore"):
        expected = np.asarray(UNARY_REF[name](x.numpy().astype(np.float64)))
    if dt is E.bool:
        np.testing.assert_array_equal(r.numpy(), expected.astype(bool))
    elif dt.is_floating_point:
        assert_close(r, E.from_numpy(expected.astype(dt.np)), equal_nan=True, **TOL[dt])
    else:
        np.testing.assert_array_equal(r.numpy(), expected.astype(x.dtype.np))


@pytest.mark.parametrize("name", sorted(UNARY_REF))
@pytest.mark.parametrize("dtype", FLOATS + [E.int32, E.int64, E.uint8])
def test_unary_matches_float64_reference(name, dtype):
    if dtype.is_floating_point:
        lo, hi = DOMAIN.get(name, (-4, 4))
    else:
        lo, hi = INT_DOMAIN.get(name, (0 if dtype is E.uint8 else -4, 5))
        if name in ("neg",) and dtype is E.uint8:
            lo, hi = 0, 5
    for noncontiguous in (False, True):
        check_unary(name, make_tensor(3, 5, dtype=dtype, low=lo, high=hi, noncontiguous=noncontiguous, seed=7))
    check_unary(name, make_tensor(4, 3, dtype=dtype, low=lo, high=hi, seed=8).t())  # transposed view
    check_unary(name, make_tensor((), dtype=dtype, low=lo, high=hi, seed=9))       # 0-dim
    check_unary(name, E.empty(0, 3, dtype=dtype))                                  # empty


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(UNARY_REF)), st.sampled_from([E.float32, E.float64, E.int8, E.int16, E.int64]),
       st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple), st.booleans(), st.integers(0, 2**16))
def test_unary_random_shapes_dtypes_and_layouts(name, dtype, shape, noncontiguous, seed):
    if dtype.is_floating_point:
        lo, hi = DOMAIN.get(name, (-4, 4))
    else:
        lo, hi = INT_DOMAIN.get(name, (-4, 5))
    check_unary(name, make_tensor(shape, dtype=dtype, low=lo, high=hi, noncontiguous=noncontiguous, seed=seed))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "signbit", "sign", "abs", "relu", "floor"])
def test_unary_special_values(name):
    x = E.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -2.5], dtype=E.float64)
    check_unary(name, x)


def test_unary_on_bool_tensors():
    b = E.tensor([True, False])
    assert b.logical_not().tolist() == [False, True]
    assert b.abs().tolist() == [True, False] and b.sign().tolist() == [True, False]
    assert b.exp().dtype is E.float32 and b.isfinite().tolist() == [True, True]
    with pytest.raises(TypeError, match=r"Negation, the `-` operator, on a bool tensor is not supported"):
        -b
    with pytest.raises(TypeError, match="Negation"):
        E.neg(b)


@pytest.mark.parametrize("name", [n for n, r in UNARY.items() if r != ew.BOOL])
def test_unary_inplace_and_out(name):
    lo, hi = DOMAIN.get(name, (-4, 4))
    base = make_tensor(4, 6, dtype=E.float64, low=lo, high=hi, seed=11)
    expected = getattr(E, name)(base)
    x = base.clone()
    view = x.t()                                  # in place through a non-contiguous view
    v = x._version
    r = getattr(view, name + "_")()
    assert r is view and x._version > v
    assert_close(x, expected, equal_nan=True)
    out = E.empty(4, 6, dtype=E.float64)
    assert getattr(E, name)(base, out=out) is out
    assert_close(out, expected, equal_nan=True)
    resized = E.empty(0, dtype=E.float64)         # an empty out= is resized silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(E, name)(base, out=resized)
    assert resized.shape == (4, 6)


def test_inplace_float_op_on_integer_tensor_raises():
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        E.tensor([1, 2]).exp_()
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        E.tensor([1, 2], dtype=E.int32).add_(1.5)


def test_out_with_elements_and_the_wrong_shape_warns_and_resizes():
    out = E.empty(3)
    with pytest.warns(UserWarning, match="was resized"):
        E.exp(E.zeros(2, 2), out=out)
    assert out.shape == (2, 2) and out.tolist() == [[1.0, 1.0], [1.0, 1.0]]


# --- binary -----------------------------------------------------------------------------------
def _floor_div(a, b):
    return np.floor(a / b)


BINARY_REF = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "floor_divide": _floor_div,
    "trunc_divide": lambda a, b: np.trunc(a / b), "remainder": lambda a, b: a - b * np.floor(a / b),
    "fmod": lambda a, b: a - b * np.trunc(a / b), "pow": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "fmax": np.fmax, "fmin": np.fmin, "atan2": np.arctan2, "hypot": lambda a, b: np.sqrt(a * a + b * b),
    "copysign": np.copysign, "xlogy": lambda a, b: np.where(np.isnan(b), np.nan, np.where(a == 0, 0.0, a * np.log(b))),
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
}
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor"}
DIVISIONS = {"div", "floor_divide", "trunc_divide", "remainder", "fmod"}


def binary_result_dtype(name, a, b):
    rule = BINARY[name]
    if rule == "bool":
        return E.bool
    dt = E.result_type(a, b)
    if rule == "float" and not dt.is_floating_point:
        return E.get_default_dtype()
    return dt


def binary_operands(name, dtype, shape_a, shape_b, seed, noncontiguous=False):
    lo, hi = (0.5, 3) if name in ("pow", "xlogy") else (-5, 5)
    if name in INTEGER_ONLY and dtype.is_floating_point:
        dtype = E.int32
    a = make_tensor(shape_a, dtype=dtype, low=lo, high=hi, seed=seed, noncontiguous=noncontiguous)
    b = make_tensor(shape_b, dtype=dtype, low=lo if name != "pow" else 0, high=hi, seed=seed + 1,
                    noncontiguous=noncontiguous)
    if name in DIVISIONS:
        b = E.where(b == 0, E.ones_like(b), b)     # no integer division by zero here
    if name == "pow" and not dtype.is_floating_point:
        b = E.clamp(b, 0, 3)
    return a, b


def check_binary(name, a, b):
    dt = binary_result_dtype(name, a, b)
    r = getattr(E, name)(a, b)
    assert r.dtype is dt, (name, a, b, r.dtype)
    a64 = a.numpy().astype(np.float64) if isinstance(a, E.Tensor) else a
    b64 = b.numpy().astype(np.float64) if isinstance(b, E.Tensor) else b
    if not dt.is_floating_point and dt is not E.bool and name not in INTEGER_ONLY:
        a64 = a.numpy().astype(np.int64) if isinstance(a, E.Tensor) else a
        b64 = b.numpy().astype(np.int64) if isinstance(b, E.Tensor) else b
        expected = {"floor_divide": lambda x, y: np.floor_divide(x, y),
                    "trunc_divide": lambda x, y: (np.sign(x) * np.sign(y)) * (np.abs(x) // np.abs(y)),
                    "remainder": np.remainder, "fmod": np.fmod}.get(name, BINARY_REF[name])(a64, b64)
    elif name in INTEGER_ONLY:
        expected = BINARY_REF[name](a.numpy(), b.numpy() if isinstance(b, E.Tensor) else b)
    else:
        with np.errstate(all="ignore"):
            expected = BINARY_REF[name](a64, b64)
    expected = np.asarray(expected)
    if dt.is_floating_point:
        assert_close(r, E.from_numpy(expected.astype(dt.np)), equal_nan=True, **TOL[dt])
    else:
        np.testing.assert_array_equal(r.numpy(), expected.astype(dt.np))


BROADCASTS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 1, 4), (3, 1)), ((), (3,)), ((0, 3), (3,)),
              ((), ())]


@pytest.mark.parametrize("name", sorted(BINARY_REF))
@pytest.mark.parametrize("dtype", [E.float32, E.float64, E.int64, E.int16, E.float16])
def test_binary_matches_float64_reference(name, dtype):
    for i, (sa, sb) in enumerate(BROADCASTS):
        check_binary(name, *binary_operands(name, dtype, sa, sb, seed=i))
    check_binary(name, *binary_operands(name, dtype, (3, 4), (3, 4), seed=20, noncontiguous=True))
    a, b = binary_operands(name, dtype, (4, 3), (4, 3), seed=21)
    check_binary(name, a.t(), b.t())


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(BINARY_REF)), st.sampled_from([E.float32, E.float64, E.int32, E.uint8, E.int8, E.bool]),
       st.sampled_from([E.float32, E.float64, E.int32, E.uint8, E.int8, E.bool]), st.integers(0, 2**16))
def test_binary_mixed_dtypes_promote_like_pytorch(name, da, db, seed):
    rt = E.promote_types(da, db)
    if name in INTEGER_ONLY and rt.is_floating_point:
        return
    if name in ("sub",) and da is E.bool and db is E.bool:
        return
    if name == "pow" and not rt.is_floating_point:
        return
    if rt is E.bool and BINARY[name] == "promote" and name not in INTEGER_ONLY | {"maximum", "minimum", "mul", "add"}:
        return
    a = make_tensor(3, 4, dtype=da, low=0 if da is E.uint8 or db is E.uint8 else -5, high=5, seed=seed)
    b = make_tensor(4, dtype=db, low=1, high=5, seed=seed + 1)
    if name in DIVISIONS and not rt.is_floating_point and E.any(b == 0).item():
        return
    if BINARY[name] != "bool" and not rt.is_floating_point and rt is not E.bool:
        if name in ("sub",) and rt is E.uint8:
            return
    check_binary(name, a, b)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "maximum", "atan2", "eq", "lt", "remainder"])
@pytest.mark.parametrize("scalar", [2, 2.5, True])
def test_binary_with_python_scalars(name, scalar):
    if name == "sub" and scalar is True:
        scalar = 1
    x = make_tensor(3, 4, dtype=E.float32, low=0.5, high=4, seed=3)
    check_binary(name, x, scalar)
    i = make_tensor(3, 4, dtype=E.int32, low=1, high=4, seed=4)
    check_binary(name, i, scalar)


# --- in-place and out= -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "atan2", "remainder", "fmod", "hypot",
                                  "copysign", "xlogy", "lerp"])
def test_binary_inplace_writes_through_views(name):
    a = make_tensor(4, 3, dtype=E.float64, low=0.5, high=3, seed=5)
    b = make_tensor(3, 4, dtype=E.float64, low=0.5, high=3, seed=6)
    args = (b, 0.25) if name == "lerp" else (b,)
    expected = getattr(E, name)(a.t(), *args)
    x = a.clone()
    v = x._version
    assert getattr(x.t(), name + "_")(*args) is not None
    assert x._version > v
    assert_close(x.t(), expected)


def test_inplace_broadcast_rules():
    x = E.zeros(2, 3)
    x.add_(E.tensor([1.0, 2.0, 3.0]))
    assert x.tolist() == [[1.0, 2.0, 3.0]] * 2
    x += 1
    x *= E.tensor(2.0, dtype=E.float64)       # 0-dim double into float: allowed, stays float32
    assert x.dtype is E.float32 and x.tolist() == [[4.0, 6.0, 8.0]] * 2
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        E.zeros(3).add_(E.zeros(2, 3))         # would need to grow the destination


def test_binary_out_argument():
    a, b = E.ones(2, 3), E.full((3,), 2.0)
    out = E.empty(2, 3)
    v = out._version
    assert E.add(a, b, out=out) is out and out.tolist() == [[3.0] * 3] * 2 and out._version > v
    out64 = E.empty(2, 3, dtype=E.float64)      # a wider out dtype is allowed
    E.mul(a, b, out=out64)
    assert out64.tolist() == [[2.0] * 3] * 2
    with pytest.raises(RuntimeError, match="can't be cast"):
        E.div(E.tensor([1, 2]), 2, out=E.empty(2, dtype=E.int64))
    bool_out = E.empty(2, 3, dtype=E.bool)
    E.lt(a, b, out=bool_out)
    assert bool_out.all().item()


# --- operators --------------------------------------------------------------------------------
def test_python_operators_and_reflected_operators():
    x = E.tensor([[1.0, -2.0], [3.0, 4.0]])
    a = x.numpy()
    cases = [
        (x + 2, a + 2), (2 + x, 2 + a), (x - 2, a - 2), (2 - x, 2 - a), (x * 3, a * 3), (3 * x, 3 * a),
        (x / 2, a / 2), (2 / x, 2 / a), (x // 2, np.floor_divide(a, 2)), (7 // x, np.floor_divide(7, a)),
        (x % 3, np.remainder(a, 3)), (7 % x, np.remainder(7, a)), (x ** 2, a ** 2), (2 ** x, 2.0 ** a),
        (-x, -a), (+x, a), (abs(x), np.abs(a)), (x @ x, a @ a),
    ]
    for got, expected in cases:
        assert_close(got, E.from_numpy(np.asarray(expected, dtype=np.float32)))
    assert (x < 2).tolist() == [[True, True], [False, False]]
    assert (2 < x).tolist() == [[False, False], [True, True]]
    assert (x == 4).tolist() == [[False, False], [False, True]] and (x != 4).sum().item() == 3
    assert (x >= 3).sum().item() == 2 and (x <= 1).sum().item() == 2 and (x > 3).sum().item() == 1


def test_bitwise_and_logical_operators():
    p, q = E.tensor([True, True, False]), E.tensor([True, False, False])
    assert (p & q).tolist() == [True, False, False] and (p | q).tolist() == [True, True, False]
    assert (p ^ q).tolist() == [False, True, False] and (~p).tolist() == [False, False, True]
    i = E.tensor([12, 10], dtype=E.int32)
    assert (i & 6).tolist() == [4, 2] and (i | 1).tolist() == [13, 11] and (i ^ 15).tolist() == [3, 5]
    assert (6 & i).tolist() == [4, 2]
    assert (~i).tolist() == [-13, -11] and (~E.tensor([1, 2], dtype=E.uint8)).tolist() == [254, 253]
    with pytest.raises(TypeError, match="only integer and bool"):
        E.tensor([1.5]) & E.tensor([1.5])


def test_inplace_operators_keep_identity():
    x = E.ones(3)
    ident = id(x)
    x += 1
    x -= 0.5
    x *= 4
    x /= 2
    x **= 2
    assert id(x) == ident and x.tolist() == [9.0, 9.0, 9.0]
    i = E.tensor([7, 8])
    i //= 2
    i %= 3
    assert i.tolist() == [0, 1] and i.dtype is E.int64


# --- errors -----------------------------------------------------------------------------------
def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"add: shapes are not broadcastable; got Tensor\(shape=\(2, 3\), "
                                         r"dtype=float32, device=cpu\) and Tensor\(shape=\(4,\), dtype=float32"):
        E.ones(2, 3) + E.ones(4)


def test_integer_division_by_zero_raises_and_float_division_gives_inf():
    for op in (lambda a: a // 0, lambda a: a % 0, lambda a: E.fmod(a, 0), lambda a: E.div(a, 0, rounding_mode="trunc")):
        with pytest.raises(ZeroDivisionError, match="division by zero"):
            op(E.tensor([1, 2]))
    assert E.tensor([1.0, -1.0, 0.0]).div(0).tolist()[:2] == [math.inf, -math.inf]
    assert math.isnan((E.tensor([0.0]) / 0).item())
    assert (E.tensor([1, 2]) / 0).tolist() == [math.inf, math.inf]


def test_float_edge_cases_compute_silently_like_pytorch():
    # a fresh interpreter: pytest's per-test warning capture would hide what a script sees
    code = ("import ember.core as E; E.tensor([1.0, 0.0]) / 0; E.tensor([-1.0]).log(); "
            "E.tensor([0.0, 2.0]).xlogy(E.tensor([0.0, -1.0])); E.tensor([-8.0]) ** 0.5")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "RuntimeWarning" not in r.stderr


def test_subtracting_bools_and_negative_integer_powers_raise():
    with pytest.raises(TypeError, match="Subtraction, the `-` operator, with two bool tensors is not supported"):
        E.tensor([True]) - E.tensor([False])
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        E.tensor([2]) ** -1


def test_div_rounding_modes():
    a = E.tensor([-7, 7, -8])
    assert E.div(a, 2, rounding_mode="floor").tolist() == [-4, 3, -4]
    assert E.div(a, 2, rounding_mode="trunc").tolist() == [-3, 3, -4]
    assert a.div(2).tolist() == [-3.5, 3.5, -4.0]
    f = E.tensor([-7.0, 7.0])
    assert E.div(f, 2, rounding_mode="trunc").tolist() == [-3.0, 3.0]
    with pytest.raises(ValueError, match="rounding_mode"):
        E.div(a, 2, rounding_mode="round")


def test_integer_overflow_wraps_like_pytorch():
    assert (E.tensor([100], dtype=E.int8) * 2).tolist() == [-56]
    assert (E.tensor([1, 2], dtype=E.uint8) - 3).tolist() == [254, 255]
    assert (E.tensor([1, 2], dtype=E.int8) + 1000).tolist() == [-23, -22]
    assert (E.tensor([1, 2], dtype=E.uint8) + E.tensor(-1)).tolist() == [0, 1]


def test_where_clamp_lerp_addcmul():
    c = E.tensor([True, False, True])
    assert E.where(c, E.tensor([1.0, 2.0, 3.0]), 0.0).tolist() == [1.0, 0.0, 3.0]
    with pytest.raises(TypeError, match="condition to be a bool tensor"):
        E.where(E.tensor([1, 0]), E.ones(2), E.zeros(2))
    x = E.tensor([-2.0, 0.5, 4.0])
    assert x.clamp(-1, 1).tolist() == [-1.0, 0.5, 1.0] and x.clamp(min=0).tolist() == [0.0, 0.5, 4.0]
    assert x.clamp(max=E.tensor([0.0, 0.0, 5.0])).tolist() == [-2.0, 0.0, 4.0]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        x.clamp()
    assert E.lerp(E.zeros(2), E.full((2,), 10.0), 0.25).tolist() == [2.5, 2.5]
    assert E.addcmul(E.ones(2), E.full((2,), 2.0), E.full((2,), 3.0), value=0.5).tolist() == [4.0, 4.0]
    assert E.addcdiv(E.ones(2), E.full((2,), 2.0), E.full((2,), 4.0), value=2).tolist() == [2.0, 2.0]


def test_elementwise_ops_are_declared_with_differentiability_flags():
    ops = E.registered_ops()
    for name in ("exp", "add", "mul", "pow", "sigmoid", "where", "clamp"):
        assert ops[name].differentiable
    for name in ("sign", "floor", "round"):  # a zero gradient, as PyTorch's
        assert ops[name].differentiable
    for name in ("eq", "lt", "isnan", "signbit", "logical_and", "bitwise_xor"):
        assert not ops[name].differentiable
