"""Every elementwise op of the op table (each row's OpInfo: reference, domain, samples, errors)
against its float64 reference: all dtypes,
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
from ember.core.opinfo import BOOL, PROMOTE, result_dtype
from ember.core.ops import elementwise as ew
from ember.core.testing import assert_close, make_tensor

pytest.importorskip("scipy.special")  # erf's and erfinv's references

FLOATS = [E.float16, E.float32, E.float64]
INTS = [E.uint8, E.int8, E.int16, E.int32, E.int64]
TOL = {E.float16: {"rtol": 2e-3, "atol": 2e-3}, E.float32: {"rtol": 2e-6, "atol": 1e-5},
       E.float64: {"rtol": 1e-12, "atol": 1e-12}}

# the op table (NOTE [ The op table ]): every row's OpInfo, by name
UNARY = {r.name: r.info for r in ew.UNARY}
BINARY = {r.name: r.info for r in ew.BINARY}
INTEGER_ONLY = {n for n, i in BINARY.items() if not any(d.is_floating_point for d in i.dtypes_for("cpu"))}
DIVISIONS = {n for n, i in BINARY.items() if i.samples is ew._nonzero_divisor}


def test_every_elementwise_row_has_a_reference_samples_and_its_info_on_the_op():
    for name, info in {**UNARY, **BINARY}.items():
        assert info.ref is not None and info.samples is not None, name
        assert E.registered_ops()[name].info is info, name
    assert E.registered_ops()["pow"].argnames == ("input", "exponent")


def check_unary(name, x):
    info = UNARY[name]
    r = getattr(E, name)(x)
    dt = result_dtype(info.rule, x)
    assert r.dtype is dt, (name, x.dtype, r.dtype)
    assert r.shape == x.shape
    with np.errstate(all="ignore"):
        expected = np.asarray(info.ref(x.numpy().astype(np.float64)))
    if dt is E.bool:
        np.testing.assert_array_equal(r.numpy(), expected.astype(bool))
    elif dt.is_floating_point:
        assert_close(r, E.from_numpy(expected.astype(dt.np)), equal_nan=True, **TOL[dt])
    else:
        np.testing.assert_array_equal(r.numpy(), expected.astype(x.dtype.np))


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS + [E.int32, E.int64, E.uint8])
def test_unary_matches_float64_reference(name, dtype):
    info = UNARY[name]
    if dtype not in info.dtypes_for("cpu"):
        pytest.skip(f"{name} does not take {dtype}")
    samples = list(info.sample_inputs(dtype))
    assert len(samples) == 5  # contiguous, strided, transposed, 0-dim, empty
    for s in samples:
        check_unary(name, *s.args)


@pytest.mark.parametrize(("name", "error"), [pytest.param(n, e, id=f"{n}-{k}")
                                            for n, i in {**UNARY, **BINARY}.items()
                                            for k, e in enumerate(i.error_inputs())])


def test_error_inputs_raise_pytorchs_exception(name, error):
    with pytest.raises(error.exc, match=error.match):
        getattr(E, name)(*error.sample.args, **error.sample.kwargs)


def test_unary_op_given_a_non_tensor_raises_pytorchs_type_error():
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be Tensor, not str"):
        E.exp("a")
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        E.ops.elementwise.sqrt(2.0)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(n for n, i in UNARY.items() if E.int8 in i.dtypes_for("cpu"))),
       st.sampled_from([E.float32, E.float64, E.int8, E.int16, E.int64]),
       st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple), st.booleans(), st.integers(0, 2**16))


def test_unary_random_shapes_dtypes_and_layouts(name, dtype, shape, noncontiguous, seed):
    lo, hi = UNARY[name].range_of(0, dtype) or ((-4, 4) if dtype.is_floating_point else (-4, 5))
    check_unary(name, make_tensor(shape, dtype=dtype, low=lo, high=hi, noncontiguous=noncontiguous, seed=seed))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "signbit", "sign", "abs", "relu", "floor"])
def test_unary_special_values(name):
    x = E.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -2.5], dtype=E.float64)
    check_unary(name, x)


def test_unary_on_bool_tensors():
    b = E.tensor([True, False])
    assert b.logical_not().tolist() == [False, True]
    assert b.sign().tolist() == [True, False] and b.square().tolist() == [1, 0] and b.square().dtype is E.int64
    for name, kernel in (("abs", "abs_cpu"), ("floor", "floor_vml_cpu"), ("round", "round_vml_cpu"),
                         ("frac", "frac_cpu")):  # PyTorch's kernels refuse bool rather than return it
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
            getattr(b, name)()
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        E.tensor([1]).frac()
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        b.square_()
    assert b.exp().dtype is E.float32 and b.isfinite().tolist() == [True, True]
    with pytest.raises(TypeError, match=r"Negation, the `-` operator, on a bool tensor is not supported"):
        -b
    with pytest.raises(TypeError, match="Negation"):
        E.neg(b)


@pytest.mark.parametrize("name", [n for n, i in UNARY.items() if i.rule != BOOL])
def test_unary_inplace_and_out(name):
    lo, hi = UNARY[name].range_of(0, E.float64) or (-4, 4)
    base = make_tensor(4, 6, dtype=E.float64, low=lo, high=hi, seed=11)
    expected = getattr(E, name)(base)
    x = base.clone()
    view = x.t()                                  # in place through a non-contiguous view
    v = x._version
    r = getattr(view, name + "_")()
    assert r is view and x._version > v
    assert_close(x, expected, equal_nan=True)
    if name in ew.NO_OUT:  # PyTorch's function takes none (test_activation checks the refusal)
        return
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


def check_binary(name, a, b):
    info = BINARY[name]
    dt = result_dtype(info.rule, a, b)
    r = getattr(E, name)(a, b)
    assert r.dtype is dt, (name, a, b, r.dtype)
    exact = not dt.is_floating_point and info.rule != BOOL  # integer results: exact int64 references
    cast = np.int64 if exact else np.float64
    a64 = a.numpy().astype(cast) if isinstance(a, E.Tensor) else a
    b64 = b.numpy().astype(cast) if isinstance(b, E.Tensor) else b
    with np.errstate(all="ignore"):
        expected = np.asarray((info.int_ref if exact and info.int_ref else info.ref)(a64, b64))
    if dt.is_floating_point:
        assert_close(r, E.from_numpy(expected.astype(dt.np)), equal_nan=True, **TOL[dt])
    else:
        np.testing.assert_array_equal(r.numpy(), expected.astype(dt.np))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", [E.float32, E.float64, E.int64, E.int16, E.float16])
def test_binary_matches_float64_reference(name, dtype):
    info = BINARY[name]
    if dtype not in info.dtypes_for("cpu"):
        dtype = E.int32 if name in INTEGER_ONLY else E.float32
    samples = list(info.sample_inputs(dtype))
    assert len(samples) == 9  # seven broadcasts (0-dim and empty among them), strided, transposed
    for s in samples:
        check_binary(name, *s.args)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(BINARY)), st.sampled_from([E.float32, E.float64, E.int32, E.uint8, E.int8, E.bool]),
       st.sampled_from([E.float32, E.float64, E.int32, E.uint8, E.int8, E.bool]), st.integers(0, 2**16))


def test_binary_mixed_dtypes_promote_like_pytorch(name, da, db, seed):
    rt = E.promote_types(da, db)
    if name in INTEGER_ONLY and rt.is_floating_point:
        return
    if name == "sub" and E.bool in (da, db):  # PyTorch refuses a bool tensor on either side
        return
    if name in ("pow", "hypot") and not rt.is_floating_point:
        return
    if rt is E.bool and BINARY[name].rule == PROMOTE and name not in INTEGER_ONLY | {"maximum", "minimum", "mul",
                                                                                    "add"}:
        return
    a = make_tensor(3, 4, dtype=da, low=0 if da is E.uint8 or db is E.uint8 else -5, high=5, seed=seed)
    b = make_tensor(4, dtype=db, low=1, high=5, seed=seed + 1)
    if name in DIVISIONS and not rt.is_floating_point and E.any(b == 0).item():
        return
    if BINARY[name].rule != BOOL and not rt.is_floating_point and rt is not E.bool:
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


@pytest.mark.parametrize("grow", [
    lambda x, t: x.add_(t), lambda x, t: E.mul(x, t, out=x), lambda x, t: x.clamp_(t), lambda x, t: x.clamp_(max=t),
    lambda x, t: E.clamp(x, None, t, out=x), lambda x, t: x.lerp_(t, 0.5), lambda x, t: x.lerp_(t, t),
    lambda x, t: x.ldexp_(t.long()), lambda x, t: x.heaviside_(t), lambda x, t: x.nextafter_(t)])


def test_inplace_refuses_to_grow(grow):
    """PyTorch's TensorIterator refuses to resize an output that is also an operand (no op-name prefix)."""
    x = E.ones(3)
    with pytest.raises(RuntimeError) as e:
        grow(x, E.zeros(2, 3))
    assert str(e.value) == "output with shape [3] doesn't match the broadcast shape [2, 3]"
    assert x.shape == (3,) and x.tolist() == [1.0] * 3
    grow(x, E.zeros(3))  # a same-shaped operand still works in place
    assert x.shape == (3,)


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
    with pytest.raises(TypeError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
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


def test_broadcast_mismatch_says_pytorchs_words_and_class_name():
    with pytest.raises(ValueError) as info:
        E.ones(2, 3) + E.ones(4)
    assert str(info.value) == ("The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                               "dimension 1")
    assert type(info.value).__name__ == "RuntimeError" and isinstance(info.value, RuntimeError)
    assert repr(info.value).startswith("RuntimeError('The size of tensor a (3)")


def test_integer_division_by_zero_raises_and_float_division_gives_inf():
    for op in (lambda a: a // 0, lambda a: a % 0, lambda a: E.fmod(a, 0), lambda a: E.div(a, 0, rounding_mode="trunc")):
        with pytest.raises(ZeroDivisionError, match="^ZeroDivisionError$"):  # PyTorch's exact message
            op(E.tensor([1, 2]))
        with pytest.raises(RuntimeError):
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
    with pytest.raises(RuntimeError, match="rounding_mode"):
        E.div(a, 2, rounding_mode="round")
    # 16-bit floats divide in float32 and round once, as PyTorch: -373.91 truncates to -373, not -374
    h = E.div(E.tensor([-746.0], dtype=E.float16), E.tensor([1.9951], dtype=E.float16), rounding_mode="trunc")
    assert h.tolist() == [-373.0] and h.dtype is E.float16
    assert E.div(E.tensor([-2**63]), E.tensor([-3]), rounding_mode="trunc").tolist() == [3074457345618258602]


def test_integer_overflow_wraps_like_pytorch():
    assert (E.tensor([100], dtype=E.int8) * 2).tolist() == [-56]
    assert (E.tensor([1, 2], dtype=E.uint8) - 3).tolist() == [254, 255]
    assert (E.tensor([1, 2], dtype=E.int8) + 1000).tolist() == [-23, -22]
    assert (E.tensor([1, 2], dtype=E.uint8) + E.tensor(-1)).tolist() == [0, 1]
    # comparisons too: the number is wrapped into the dtype they compute in (-3 is 253 for uint8)
    assert (E.tensor([0, 5, 253], dtype=E.uint8) > -3).tolist() == [False, False, False]
    assert (E.tensor([1, 2], dtype=E.int8) < 1000).tolist() == [False, False]


def test_non_tensor_operands_raise_pytorchs_type_error():
    x = E.ones(2)
    with pytest.raises(TypeError, match=r"mul\(\): argument 'other' \(position 2\) must be Tensor, not NoneType"):
        E.mul(x, None)
    with pytest.raises(TypeError, match=r"xlogy\(\): argument 'input' \(position 1\) must be Tensor, not NoneType"):
        E.xlogy(None, x)
    with pytest.raises(TypeError, match=r"fmax\(\): argument 'input' \(position 1\) must be Tensor, not float"):
        E.fmax(1.5, x)
    assert E.add(2, x).tolist() == [3.0, 3.0] and (2 - x).tolist() == [1.0, 1.0]  # torch.add(2, t) is valid
    with pytest.raises(NotImplementedError, match="\"remainder_cpu\" not implemented for 'Bool'"):
        E.remainder(E.tensor([True]), E.tensor([True]))
    # PyTorch's exact texts: its kernel and ScalarType names
    with pytest.raises(NotImplementedError, match="^\"bitwise_or_cpu\" not implemented for 'Float'$"):
        E.tensor([1.5]) | 1
    with pytest.raises(NotImplementedError, match="^\"div_floor_cpu\" not implemented for 'Bool'$"):
        E.tensor([True]) // E.tensor([True])
    with pytest.raises(NotImplementedError, match="^\"logcumsumexp_out_cpu\" not implemented for 'Long'$"):
        E.logcumsumexp(E.tensor([1, 2]), 0)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
        E.tensor([True]) - 1
    for f in (lambda: E.ones(2) - True, lambda: True - E.ones(2), lambda: E.rsub(E.ones(2), True)):
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):  # True wraps into a bool tensor
            f()
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        True - E.tensor([True])
    assert E.remainder(E.zeros(3, 0, dtype=E.int8), E.zeros(0, dtype=E.int8)).shape == (3, 0)  # nothing divided


def test_where_clamp_lerp_addcmul():
    c = E.tensor([True, False, True])
    assert E.where(c, E.tensor([1.0, 2.0, 3.0]), 0.0).tolist() == [1.0, 0.0, 3.0]
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor, but got a tensor "
                                           "with dtype Long") as err:
        E.where(E.tensor([1, 0]), E.ones(2), E.zeros(2))
    assert isinstance(err.value, TypeError)
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


def test_inf_and_nan_results_are_silent_as_in_pytorch():
    """numpy's floating-point RuntimeWarnings from ember's kernels are filtered (PyTorch says nothing), while
    numpy called by the user still warns. A plain script: pytest's collection would drop a filter that an
    import inside it installs, so the check runs in a child process with every warning made an error."""
    code = """
import math, numpy as np, ember.core as E
inf = float("inf")
r = [E.tensor([1e20, 1e20, 0.0]).prod(), E.tensor([inf, -inf]).sum(), E.tensor([0.0]).log(), E.tensor([1.0]) / 0,
     E.lerp(E.tensor([1.0, 2.0]), E.tensor([3.0, inf]), 0.0)]
assert math.isnan(r[0].item()) and math.isnan(r[1].item()) and r[2].item() == -inf and r[3].item() == inf
try:
    np.divide(np.ones(1), 0)
except RuntimeWarning as e:
    print(e)
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-W", "error", "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert (out.returncode, out.stdout.strip()) == (0, "divide by zero encountered in divide"), out.stderr


def test_out_of_range_casts_are_silent_even_where_the_user_shows_every_warning():
    """nan to int64, 3e9 to int32, 1e6 to float16: PyTorch casts silently. Under `simplefilter("always")`
    ember's module filter no longer hides numpy's "invalid value encountered in cast", so the casts silence it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert E.tensor([float("nan")]).long().item() == -(2**63)
        assert E.tensor([3e9]).int().item() == -(2**31)
        assert E.tensor([1e6]).to(E.float16).item() == float("inf")
        out = E.zeros(2, dtype=E.int32).copy_(E.tensor([float("inf"), 3e9]))
        assert out.tolist() == [-(2**31), -(2**31)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int8", "uint8"])
@pytest.mark.parametrize("name", ["add", "sub", "mul"])
def test_zero_dim_inplace_arithmetic_with_a_number_matches_numpys_ufunc(name, dtype):
    """The 0-dim in-place fast path (numpy scalar arithmetic) gives the ufunc's values: rounding, wrapping."""
    rng = np.random.default_rng(1)
    ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[name]
    info = np.iinfo(dtype) if dtype[0] in "iu" else None
    starts = [int(info.max), int(info.min), 0, 7] if info else [0.1, -3.75, 1e30, float("nan"), float("inf")]
    numbers = [1, 127, 0, 5] if info else [1, 0.1, -2.5, 3, 1e-8, float("inf")]
    for start in [*starts, *(rng.standard_normal(3) * 50).astype(dtype).tolist()]:
        for number in numbers:
            t = E.tensor(start, dtype=getattr(E, dtype))
            version = t._version
            getattr(t, name + "_")(number)
            with np.errstate(all="ignore"):
                expected = ufunc(np.array(start, dtype), number, dtype=dtype)
            got = t.numpy()
            assert got.dtype == np.dtype(dtype) and t._version == version + 1
            np.testing.assert_array_equal(got, expected)


def test_zero_dim_inplace_arithmetic_keeps_dtype_rules_and_autograd():
    t = E.tensor(3, dtype=E.int64)
    t += 1
    t *= 2
    assert t.item() == 8 and t.dtype == E.int64
    with pytest.raises(RuntimeError, match="can't be cast"):
        t += 1.5  # an int64 tensor cannot hold the float result, as PyTorch
    u = E.tensor(200, dtype=E.uint8)
    u += 1000  # a number out of uint8's range wraps, as PyTorch (the general path)
    assert u.item() == (200 + 1000) % 256


def _bits(a):
    return np.ascontiguousarray(a).view(f"u{a.itemsize}")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_relu_and_clamp_min_keep_negative_zero_and_nan_payloads_bit_for_bit(dt):
    # PyTorch's relu is clamp_min(x, 0), `x < 0 ? 0 : x`: -0.0 stays -0.0 and a NaN keeps its sign and payload,
    # from 1024 elements (a Numba pass, new or in place) and below (numpy), as clamp_min, clamp and nn.ReLU
    u = np.uint32 if dt is np.float32 else np.uint64
    payloads = np.array([0x7FC00123, 0xFFC00456] if dt is np.float32 else [0x7FF8000000000123, 0xFFF8000000000456],
                        u).view(dt)
    special = np.concatenate([np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1.0, -1.0], dt),
                              payloads])
    x = np.concatenate([special, np.random.default_rng(0).standard_normal(3000).astype(dt)])
    want = np.where(x < 0, dt(0), x)
    assert _bits(want)[0] == _bits(np.array(-0.0, dt))  # -0.0 kept
    for n in (len(x), len(special)):
        w = _bits(want[:n])
        for got in (E.relu(E.tensor(x[:n])), E.tensor(x[:n]).relu_(), E.clamp_min(E.tensor(x[:n]), 0),
                    E.clamp(E.tensor(x[:n]), min=0.0)):
            assert got.numpy().dtype == want.dtype
            np.testing.assert_array_equal(_bits(got.numpy()), w)
        # a tensor bound is clamp.Tensor, PyTorch's maximum/minimum element rule: -0.0 kept, a NaN canonical
        got = E.clamp(E.tensor(x[:n]), E.zeros(n, dtype=E.tensor(x).dtype)).numpy()
        canonical = np.where(np.isnan(want[:n]), dt(np.nan), want[:n])
        np.testing.assert_array_equal(_bits(got), _bits(canonical))
    # a bound is taken where x is past it or the bound is NaN; equal zeros keep x's sign
    lo = E.clamp(E.tensor(np.array([0.0, -0.0, 1.0, np.nan], dt)), min=-0.0, max=0.0).numpy()
    np.testing.assert_array_equal(_bits(lo), _bits(np.array([0.0, -0.0, 0.0, np.nan], dt)))
    assert np.isnan(E.clamp(E.tensor(np.array([1.0], dt)), min=float("nan")).numpy()).all()


@pytest.mark.torch
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_relu_family_of_negative_zero_matches_torch_bit_for_bit(dt):
    torch = pytest.importorskip("torch")
    import ember.torch as et

    x = np.array([-0.0, 0.0, np.nan, -1.0, 2.0, np.inf, -np.inf, -1e-45], dt)
    for fn in (lambda m, t: m.relu(t), lambda m, t: m.nn.functional.relu(t.clone(), inplace=True),
               lambda m, t: m.nn.ReLU()(t), lambda m, t: m.clamp_min(t, 0), lambda m, t: m.clamp(t, -0.0, 0.0),
               lambda m, t: m.nn.functional.elu(t), lambda m, t: m.nn.functional.hardtanh(t, 0.0, 6.0),
               lambda m, t: m.nn.functional.threshold(t, 0.0, 0.0), lambda m, t: m.nn.functional.relu6(t)):
        np.testing.assert_array_equal(_bits(fn(et, et.tensor(x)).numpy()), _bits(fn(torch, torch.tensor(x)).numpy()))


@pytest.mark.parametrize("cond_shape", [(3, 4, 5), (3, 4, 1)], ids=["same-shape", "rows"])
@pytest.mark.parametrize("number_first", [True, False])
def test_where_with_a_number_fills_a_copy_bit_for_bit(cond_shape, number_first):
    # the fast path (a copy of the tensor, the number written where picked) gives np.where's bits and dtype
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    x[0, 0, :2] = [np.nan, -0.0]
    c = rng.random(cond_shape) < 0.4
    for value in (0.0, -0.0, 2.5, 7, float("nan"), float("-inf")):
        args = (value, E.tensor(x)) if number_first else (E.tensor(x), value)
        got = E.where(E.tensor(c), *args)
        want = np.where(c, value, x) if number_first else np.where(c, x, value)
        assert got.dtype == E.float32 and tuple(got.shape) == (3, 4, 5)
        np.testing.assert_array_equal(got.numpy().view(np.uint32), want.astype(np.float32).view(np.uint32))
    assert E.where(E.tensor(c), 1.5, E.tensor(x.astype(np.float64))).dtype == E.float64


def test_where_out_takes_exactly_the_result_dtype_as_pytorch():
    # PyTorch 2.13's where.self_out: tensor operands, an out of their result dtype (no cast into another)
    c, x = E.tensor([True, False]), E.tensor([1.0, 2.0])
    for out_dt, name in ((E.int64, "Long"), (E.float64, "Double"), (E.float16, "Half"), (E.bool, "Bool")):
        with pytest.raises(RuntimeError, match=f"^Expected out type to be Float but got {name}$"):
            E.where(c, x, E.tensor([3.0, 4.0]), out=E.empty(2, dtype=out_dt))
    with pytest.raises(RuntimeError, match="^Expected out type to be Long but got Float$"):
        E.where(c, E.tensor([1, 2]), E.tensor([3], dtype=E.uint8), out=E.empty(2))
    assert E.where(c, x, E.tensor(3.0, dtype=E.float64), out=E.empty(2)).tolist() == [1.0, 3.0]  # 0-dim: float32
    with pytest.raises(TypeError, match=r"^where\(\): argument 'other' \(position 3\) must be Tensor, not int$"):
        E.where(c, x, 3, out=E.empty(2))
    with pytest.raises(TypeError, match=r"^where\(\): argument 'input' \(position 2\) must be Tensor, not float$"):
        E.where(c, 2.5, x, out=E.empty(2))
    assert E.where(c, x, 2.5).tolist() == [1.0, 2.5]  # without out a number computes


def test_clamp_out_with_number_bounds_takes_exactly_the_result_dtype_as_pytorch():
    x = E.tensor([1, 5])
    with pytest.raises(RuntimeError, match="^Found dtype Long but expected Float$"):
        E.clamp(x, 1.5, 4, out=E.empty(2, dtype=E.int64))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        E.clamp_max(x, 2.5, out=E.empty(2, dtype=E.float64))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        E.clamp(E.tensor([1.0, 5.0]), 2, 4, out=E.empty(2, dtype=E.float64))
    with pytest.raises(RuntimeError, match="^Found dtype Bool but expected Long$"):
        E.clamp(E.tensor([True, False]), 2, 4, out=E.empty(2, dtype=E.bool))
    assert E.clamp(E.tensor([True, False]), 2, 4, out=E.empty(2, dtype=E.int64)).tolist() == [2, 2]
    # tensor bounds: the usual out= rule (any dtype the result can be cast to)
    assert E.clamp(x, E.tensor([2.0]), None, out=E.empty(2, dtype=E.float64)).tolist() == [2.0, 5.0]
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        E.clamp(x, E.tensor([2.0]), None, out=E.empty(2, dtype=E.int64))
    # the in-place forms cast as the other in-place ops, but PyTorch names the C++ type it refuses
    assert E.tensor([1, 5], dtype=E.uint8).clamp_(2, 4).tolist() == [2, 4]
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type long int$"):
        E.tensor([1, 5]).clamp_(1.5, 4)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type signed char$"):
        E.tensor([1, 5], dtype=E.int8).clamp_min_(1.5)
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output type bool$"):
        E.tensor([True, False]).clamp_(2, 3)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        E.tensor([1, 5]).clamp_(min=E.tensor([1.5]))  # a tensor bound: the usual words
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type long int$"):
        E.tensor([1, 5]).clamp_(1.5, 4)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type unsigned "
                                           "char$"):
        E.tensor([1, 5], dtype=E.uint8).clip_(max=2.5)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type bool$"):
        E.tensor([True]).clamp_min_(0.5)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        E.tensor([1, 5]).clamp_min_(E.tensor(2.5))
    # an int bound outside an integer input's dtype: PyTorch's checked conversion, not numpy's OverflowError
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        E.clamp(E.tensor([1, 5], dtype=E.uint8), -1, 300)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8_t without overflow$"):
        E.clamp(E.tensor([1, 5], dtype=E.int8), None, 300)


def test_clamp_with_a_number_and_a_tensor_bound_is_pytorchs_type_error():
    # PyTorch's signatures take two tensors or two numbers (either may be None)
    for lo, hi, got in ((0, E.tensor([2.0]), "Tensor, int, Tensor"), (E.tensor([0.0]), 2.5, "Tensor, Tensor, float")):
        with pytest.raises(TypeError, match=f"^clamp\\(\\) received an invalid combination of arguments - got "
                                            f"\\({got}\\), but expected one of:\n"):
            E.clamp(E.tensor([1.0]), lo, hi)
    assert E.clamp(E.tensor([1.0, 5.0]), E.tensor([2.0]), None).tolist() == [2.0, 5.0]
    assert E.clamp(E.tensor([1.0, 5.0]), None, E.tensor([2.0])).tolist() == [1.0, 2.0]


def test_clamp_takes_a_zero_dim_tensor_beside_a_number_bound_as_a_number():
    # PyTorch's parser reads a 0-dim tensor that does not require grad as a Number: the Number overload's result
    x = E.tensor([0.0, 1.0])
    assert E.clamp(x, min=E.tensor(0.1), max=0.9).tolist() == pytest.approx([0.1, 0.9])
    assert x.clamp(0.1, E.tensor(0.9)).tolist() == pytest.approx([0.1, 0.9])
    assert E.clip(x, E.tensor([0.1, 0.2])[0], 0.9).tolist() == pytest.approx([0.1, 0.9])
    r = E.clamp(E.tensor([1, 5]), E.tensor(2), 3.5)  # an int input and a float number: a float result
    assert r.dtype == E.float32 and r.tolist() == [2.0, 3.5]
    r = E.clamp(E.tensor([1, 5]), E.tensor(2), 3)
    assert r.dtype == E.int64 and r.tolist() == [2, 3]
    y = x.clone()
    assert y.clamp_(E.tensor(0.5, dtype=E.float64), 0.7) is y and y.tolist() == pytest.approx([0.5, 0.7])
    for bound in (E.tensor([0.1]), E.tensor([[0.1]])):  # a tensor requiring grad: the autograd tests
        with pytest.raises(TypeError, match="^clamp\\(\\) received an invalid combination of arguments - got "
                                            "\\(Tensor, Tensor, float\\), but expected one of:\n"):
            E.clamp(x, bound, 0.9)


def test_clamp_mixed_bounds_error_is_worded_for_the_form_called():
    # the method lists the method's overloads and the arguments after self, keywords in PyTorch's map order
    x = E.tensor([1.0])
    method_options = (" * (Tensor min = None, Tensor max = None)\n{}"
                      " * (Number min = None, Number max = None)\n{}")
    for call, name, got, why in [
            (lambda: x.clamp(min=E.zeros(1), max=1), "clamp", "(max=int, min=Tensor, )",
             "      didn't match because some of the keywords were incorrect: max, min\n"),
            (lambda: x.clamp_(max=1, min=E.zeros(1)), "clamp_", "(min=Tensor, max=int, )",
             "      didn't match because some of the keywords were incorrect: min, max\n"),
            (lambda: x.clip(E.zeros(1), 1), "clip", "(Tensor, int)",
             "      didn't match because some of the arguments have invalid types: (!Tensor!, !int!)\n")]:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == (f"{name}() received an invalid combination of arguments - got {got}, but expected "
                                   f"one of:\n" + method_options.format(why, why))
    with pytest.raises(TypeError) as info:
        E.clip(x, min=E.zeros(1), max=1)
    assert str(info.value) == ("clip() received an invalid combination of arguments - got (Tensor, max=int, "
                               "min=Tensor), but expected one of:\n"
                               " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                               " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    assert x.clamp_(E.zeros(1), E.ones(1) * 0.5) is x and x.tolist() == [0.5]


def test_clamp_of_a_str_or_list_bound_is_pytorchs_parser_error():
    x = E.tensor([1.0])
    with pytest.raises(TypeError) as info:
        x.clamp(min="0")
    assert str(info.value) == ("clamp() received an invalid combination of arguments - got (min=str, ), but expected "
                               "one of:\n * (Tensor min = None, Tensor max = None)\n"
                               " * (Number min = None, Number max = None)\n")
    with pytest.raises(TypeError) as info:
        E.clamp(x, 0, [1])
    assert str(info.value) == ("clamp() received an invalid combination of arguments - got (Tensor, int, list), but "
                               "expected one of:\n"
                               " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                               " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")


def test_clamp_min_and_max_of_a_non_number_bound_are_pytorchs_parser_errors():
    x = E.tensor([1.0])
    with pytest.raises(TypeError) as info:
        E.clamp_min(x, "0")
    assert str(info.value) == ("clamp_min() received an invalid combination of arguments - got (Tensor, str), but "
                               "expected one of:\n * (Tensor input, Tensor min, *, Tensor out = None)\n"
                               " * (Tensor input, Number min, *, Tensor out = None)\n")
    with pytest.raises(TypeError) as info:
        x.clamp_max_([1])
    assert str(info.value) == ("clamp_max_() received an invalid combination of arguments - got (list), but expected "
                               "one of:\n * (Tensor max)\n      didn't match because some of the arguments have "
                               "invalid types: (!list of [int]!)\n * (Number max)\n      didn't match because some "
                               "of the arguments have invalid types: (!list of [int]!)\n")
    assert x.clamp_min_(2.0) is x and x.tolist() == [2.0]


@pytest.mark.torch
def test_where_and_clamp_out_dtypes_match_torch():
    torch = pytest.importorskip("torch")
    import itertools

    names = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]

    def run(lib, f):
        try:
            r = f(lib)
        except (RuntimeError, TypeError) as e:
            return type(e).__name__, str(e)
        return str(r.dtype).split(".")[-1], r.tolist()

    for a, b, o in itertools.product(names, names, names):
        def where(lib, a=a, b=b, o=o):
            return lib.where(lib.tensor([True, False]), lib.tensor([1, 0]).to(getattr(lib, a)),
                             lib.tensor([2, 3]).to(getattr(lib, b)), out=lib.empty(2, dtype=getattr(lib, o)))
        assert run(E, where) == run(torch, where), (a, b, o)
    for a, o, bounds in itertools.product(names, names, ((2, 4), (1.5, 4), (None, 3))):
        def clamp(lib, a=a, o=o, bounds=bounds):
            return lib.clamp(lib.tensor([1, 5]).to(getattr(lib, a)), *bounds, out=lib.empty(2, dtype=getattr(lib, o)))
        assert run(E, clamp) == run(torch, clamp), (a, o, bounds)


_INT_OF = {E.float16: E.int16, E.bfloat16: E.int16, E.float32: E.int32, E.float64: E.int64}


def _ext_from_bits(bits, dt):
    it = _INT_OF[dt]
    width = 8 * it.itemsize
    return E.tensor([b - (1 << width) if b >= 1 << (width - 1) else b for b in bits], dtype=it).view(dt)


def _ext_bits(t):
    width = 8 * t.dtype.itemsize
    return [b & ((1 << width) - 1) for b in t.view(_INT_OF[t.dtype]).flatten().tolist()]


@pytest.mark.parametrize(("op", "dt", "a", "b", "want"), [
    # PyTorch 2.13's CPU element by element: ties give the first operand; maximum/minimum's NaN is canonical
    ("maximum", E.float32, 0x80000000, 0x00000000, 0x80000000), ("maximum", E.float32, 0x0, 0x80000000, 0x0),
    ("minimum", E.float32, 0x80000000, 0x00000000, 0x80000000), ("minimum", E.float32, 0x0, 0x80000000, 0x0),
    ("fmax", E.float32, 0x80000000, 0x00000000, 0x80000000), ("fmin", E.float32, 0x0, 0x80000000, 0x0),
    ("maximum", E.float32, 0x7fc00001, 0x3f800000, 0x7fc00000), ("maximum", E.float32, 0x3f800000, 0xffc00001,
                                                                  0x7fc00000),
    ("minimum", E.float32, 0xffc00001, 0x7fc00001, 0x7fc00000), ("maximum", E.float32, 0x7f800001, 0x0, 0x7fc00000),
    ("maximum", E.float64, 0x7ff8000000000001, 0x0, 0x7ff8000000000000),
    ("minimum", E.float64, 0x0, 0xfff8000000000001, 0x7ff8000000000000),
    ("maximum", E.float16, 0x7e01, 0x3c00, 0x7e00), ("minimum", E.float16, 0xfe01, 0x3c00, 0x7e00),
    ("maximum", E.bfloat16, 0x7fc1, 0x3f80, 0x7fc0), ("minimum", E.bfloat16, 0x3f80, 0xffc1, 0x7fc0),
    # fmax/fmin: the number against a quiet NaN; of two NaNs the second, quieted; a signaling NaN wins, quieted
    ("fmax", E.float32, 0x7fc00001, 0x3f800000, 0x3f800000), ("fmin", E.float32, 0x3f800000, 0xffc00001, 0x3f800000),
    ("fmax", E.float32, 0x7fc00001, 0xffc00001, 0xffc00001), ("fmin", E.float32, 0xffc00001, 0x7fc00001, 0x7fc00001),
    ("fmax", E.float32, 0x7fc00000, 0x7f800001, 0x7fc00001), ("fmax", E.float32, 0x3f800000, 0x7f800001, 0x7fc00001),
    ("fmin", E.float32, 0x7f800001, 0x0, 0x7fc00001),
    ("fmax", E.float64, 0x3ff0000000000000, 0x7ff0000000000001, 0x7ff8000000000001),
    ("fmax", E.float16, 0x3c00, 0x7c01, 0x3c00), ("fmax", E.float16, 0x7e01, 0xfe01, 0xfe01),
    ("fmax", E.float16, 0x7e01, 0x7c01, 0x7e01),
    ("fmax", E.bfloat16, 0x8000, 0x0, 0x0), ("fmin", E.bfloat16, 0x0, 0x8000, 0x8000),
    ("fmax", E.bfloat16, 0x7fc1, 0xffc1, 0x7fc0), ("fmax", E.bfloat16, 0x3f80, 0x7f81, 0x7fc0),
])


def test_extremum_bits_are_pytorchs(op, dt, a, b, want):
    f = getattr(E, op)
    assert _ext_bits(f(_ext_from_bits([a], dt), _ext_from_bits([b], dt))) == [want]
    assert _ext_bits(f(_ext_from_bits([a], dt).reshape(()), _ext_from_bits([b], dt).reshape(()))) == [want]  # 0-dim
    # any length, broadcast, into out= (PyTorch's own SIMD body differs: see docs/robustness.md)
    assert set(_ext_bits(f(_ext_from_bits([a] * 1000, dt), _ext_from_bits([b], dt)))) == {want}
    out = E.empty(300, dtype=dt)
    assert set(_ext_bits(f(_ext_from_bits([a], dt), _ext_from_bits([b] * 300, dt), out=out))) == {want}


@pytest.mark.torch
def test_extremum_bits_match_torch_element_by_element():
    torch = pytest.importorskip("torch")
    vals = {E.float32: [0x7fc00001, 0xffc00001, 0x7fc00000, 0x3f800000, 0x80000000, 0x0, 0x7f800001],
            E.float64: [0x7ff8000000000001, 0xfff8000000000001, 0x7ff8000000000000, 0x3ff0000000000000,
                        0x8000000000000000, 0x0, 0x7ff0000000000001],
            E.float16: [0x7e01, 0xfe01, 0x7e00, 0x3c00, 0x8000, 0x0, 0x7c01],
            E.bfloat16: [0x7fc1, 0xffc1, 0x7fc0, 0x3f80, 0x8000, 0x0, 0x7f81]}
    for dt, vs in vals.items():
        tdt, tit = getattr(torch, str(dt).split(".")[-1]), getattr(torch, str(_INT_OF[dt]).split(".")[-1])
        width = 8 * _INT_OF[dt].itemsize

        def tbits(v, tdt=tdt, tit=tit, width=width):
            return torch.tensor([v - (1 << width) if v >= 1 << (width - 1) else v], dtype=tit).view(tdt)

        for op in ("maximum", "minimum", "fmax", "fmin"):
            for a in vs:
                for b in vs:
                    want = getattr(torch, op)(tbits(a), tbits(b)).view(tit).item() & ((1 << width) - 1)
                    assert _ext_bits(getattr(E, op)(_ext_from_bits([a], dt), _ext_from_bits([b], dt))) == [want], \
                        (op, dt, hex(a), hex(b))


def test_clamp_with_tensor_bounds_gives_pytorchs_canonical_nan():
    # PyTorch 2.13's clamp.Tensor computes as maximum/minimum (a NaN in the input or a bound: the canonical one);
    # number bounds keep the input's NaN (`x < lo ? lo : x`)
    one, nanp, nann = E.tensor([1.0]), _ext_from_bits([0x7fc00001], E.float32), _ext_from_bits([0xffc00001], E.float32)
    assert _ext_bits(E.clamp(one, nanp, None)) == [0x7fc00000]
    assert _ext_bits(E.clamp(one, None, nann)) == [0x7fc00000]
    assert _ext_bits(E.clamp(nanp, one, None)) == [0x7fc00000]
    assert _ext_bits(E.clamp(one, nann, E.tensor([2.0]))) == [0x7fc00000]
    assert _ext_bits(E.clamp(nanp, 0.0, 2.0)) == [0x7fc00001]
    for dt, want in ((E.float16, 0x7e00), (E.bfloat16, 0x7fc0), (E.float64, 0x7ff8000000000000)):
        x = -E.tensor([float("nan")], dtype=dt)
        assert _ext_bits(E.clamp(x, E.zeros(1, dtype=dt), None)) == [want]
        assert _ext_bits(E.clamp(E.ones(1, dtype=dt), x, None)) == [want]


def test_float_remainder_of_a_multiple_keeps_the_dividends_zero_sign():
    # PyTorch: fmod, plus the divisor where the signs differ; -3.0 % 1 is -0.0 (numpy's remainder gives 0.0)
    for dt in (E.float32, E.float64, E.float16, E.bfloat16):
        r = E.remainder(E.tensor([-4.0, -0.0, 4.0, -5.5, 5.5], dtype=dt), 2.0).double().numpy()
        np.testing.assert_array_equal(np.signbit(r), [True, True, False, False, False])
        np.testing.assert_array_equal(r, [0.0, 0.0, 0.0, 0.5, 1.5])
    assert (E.tensor([-1.0, 1.0]) % math.inf).tolist() == [math.inf, 1.0]
    assert (E.tensor(-4.0) % 3).item() == 2.0 and (E.tensor(2.0) % 1).item() == 0.0  # 0-dim operands
    x = E.tensor([-4.0, 7.0])
    x %= -2.0
    assert np.signbit(x.numpy()).tolist() == [True, True] and x.tolist() == [0.0, -1.0]


def test_div_unknown_rounding_mode_raises_runtime_error():
    with pytest.raises(RuntimeError, match="^div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                                           "found 'bad'$"):
        E.div(E.tensor([7]), E.tensor([2]), rounding_mode="bad")


def test_reflected_division_is_a_reciprocal_times_the_number():
    """PyTorch's `c / x` is `x.reciprocal() * c`: its rounding (and integers promote through reciprocal)."""
    x = E.tensor([3.0, 7.0, 0.0, -0.0, float("inf"), 49.0])
    want = np.reciprocal(x.numpy()) * np.float32(3.0)
    assert np.array_equal((3.0 / x).numpy(), want, equal_nan=True)
    r = 2 / E.tensor([1, 2, 4])
    assert r.dtype is E.float32 and r.tolist() == [2.0, 1.0, 0.5]
    assert (E.tensor([4.0]) / E.tensor([2.0])).tolist() == [2.0]  # a tensor numerator still divides


def test_float_power_destination_must_be_double():
    """PyTorch computes float_power in double: a float32 `float_power_` or `out=` is refused (ember resized and
    cast), a double one still may not grow."""
    x = E.ones(3)
    with pytest.raises(RuntimeError, match="^the base given to float_power_ has dtype Float but the operation's result "
                                           "requires dtype Double$"):
        x.float_power_(2)
    with pytest.raises(RuntimeError, match="^the output given to float_power has dtype Float but the operation's "
                                           "result requires dtype Double$"):
        E.float_power(E.ones(3), 2, out=E.ones(3))
    with pytest.raises(RuntimeError, match="requires dtype ComplexDouble$"):
        E.ones(3, dtype=E.complex64).float_power_(2)
    d = E.full((3,), 2.0, dtype=E.float64)
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast shape \[2, 3\]$"):
        d.float_power_(E.ones(2, 3))
    assert d.float_power_(3).tolist() == [8.0] * 3


@pytest.mark.parametrize("op", ["gcd_", "lcm_", "bitwise_left_shift_", "bitwise_right_shift_", "bitwise_and_"])
def test_integer_inplace_refuses_to_grow(op):
    x = E.ones(3, dtype=E.int64)
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast shape \[2, 3\]$"):
        getattr(x, op)(E.ones(2, 3, dtype=E.int64))
    assert x.shape == (3,)


def test_inplace_shape_error_comes_before_the_dtype_refusal():
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast shape \[2, 3\]$"):
        E.ones(3).bitwise_and_(E.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\)"):
        E.ones(3).bitwise_and_(E.ones(2))


def test_hypot_refuses_integer_and_bool_operands_as_pytorch():
    with pytest.raises(NotImplementedError, match="^\"hypot_cpu\" not implemented for 'Long'$"):
        E.hypot(E.tensor([3]), E.tensor([4]))
    with pytest.raises(NotImplementedError, match="'Bool'"):
        E.hypot(E.tensor([True]), E.tensor([False]))
    assert E.hypot(E.tensor([3]), E.tensor([4.0])).tolist() == [5.0]  # promoted to float first: computed


def test_float_power_out_and_inplace_must_hold_double():
    x = E.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^the base given to float_power_ has dtype Float but the operation's result "
                                           "requires dtype Double$"):
        x.float_power_(2)
    with pytest.raises(RuntimeError, match="output given to float_power has dtype Double .* dtype ComplexDouble$"):
        E.float_power(x, 2j, out=E.empty(2, dtype=E.float64))
    y = x.double()
    assert y.float_power_(3) is y and y.tolist() == [1.0, 8.0]


def test_two_python_numbers_make_a_tensor_where_pytorchs_parser_allows_them():
    """add, sub, mul, div and floor_divide take Python numbers for both operands (as the MIT labs'
    `torch.subtract(b, 1)` with an int b); (Tensor, Tensor) signatures such as ldexp, nextafter and dist refuse any
    number."""
    cases = ((E.add, 2, 1, 3, E.int64), (E.sub, 2.5, 1, 1.5, E.float32), (E.mul, 2, 1.5, 3.0, E.float32),
             (E.div, 2, 1, 2.0, E.float32), (E.floor_divide, 7, 2, 3, E.int64), (E.add, True, 1, 2, E.int64))
    for fn, a, b, want, dt in cases:
        r = fn(a, b)
        assert isinstance(r, E.Tensor) and r.dim() == 0 and r.dtype == dt and r.item() == want
    assert E.sub(2, 1, alpha=2).item() == 0
    for fn in (E.ldexp, E.nextafter, E.dist):
        msg = rf"^{fn.__name__}\(\): argument '{{}}' \(position {{}}\) must be Tensor, not int$"
        with pytest.raises(TypeError, match=msg.format("input", 1)):
            fn(2, E.ones(1))
        with pytest.raises(TypeError, match=msg.format("other", 2)):
            fn(E.ones(1), 2)


def test_inplace_cast_is_checked_before_the_kernels_dtype_refusal():
    """PyTorch's TensorIterator refuses an `out` the result cannot be cast to before the kernel refuses the dtype."""
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        E.tensor([1, 2]).bitwise_and_(E.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the desired output type Int"):
        E.tensor([1, 2], dtype=E.int32).div_(E.tensor([1j, 2j]), rounding_mode="floor")
    with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        E.tensor([1.0]).bitwise_and_(E.tensor([1.0]))


def test_add_alpha_scales_other_in_the_result_dtype():
    r = E.add(E.tensor([5, 7], dtype=E.int8), E.tensor([True, False]), alpha=2)
    assert r.dtype is E.int8 and r.tolist() == [7, 7]
    r = E.add(E.tensor([0]), E.tensor([100], dtype=E.int8), alpha=1000)  # no int8 wraparound of alpha * other
    assert r.dtype is E.int64 and r.tolist() == [100000]


def test_pow_of_two_bool_tensors_and_invert_of_floats_refused_as_pytorch():
    b = E.tensor([True, False])
    with pytest.raises(NotImplementedError, match="\"pow\" not implemented for 'Bool'"):
        E.pow(b, b)
    assert E.pow(b, True).dtype is E.bool and E.pow(b, E.tensor([2], dtype=E.int8)).dtype is E.int8
    with pytest.raises(TypeError, match=r"~ \(operator.invert\) is only implemented on integer and Boolean-type"):
        ~E.tensor([1.0])
    assert (~E.tensor([5])).tolist() == [-6] and (~b).tolist() == [False, True]


def test_clamp_refusals_as_pytorch():
    i, b = E.tensor([1, 2]), E.tensor([True, False])
    with pytest.raises(NotImplementedError, match="\"maximum_cpu\" not implemented for 'ComplexFloat'"):
        E.clamp_min(i, E.tensor([1j, 2]))
    with pytest.raises(NotImplementedError, match="\"minimum_cpu\" not implemented for 'ComplexFloat'"):
        E.clamp_max(E.tensor([1j]), E.tensor([1.0]))
    with pytest.raises(NotImplementedError, match="clamp is not supported for complex types"):
        E.clamp(E.tensor([1j]), min=E.tensor([1.0]))
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the desired output type Long"):
        i.clamp_min_(E.tensor([1j, 2]))
    with pytest.raises(NotImplementedError, match="clamp is not supported for complex types"):
        E.clamp(i, max=1 + 0j)
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        E.clamp(E.tensor([1.0]), 1 + 1j)
    r = E.clamp(E.tensor([0.5, 2.0]), 1 + 0j)
    assert r.dtype is E.float32 and r.tolist() == [1.0, 2.0]
    for kw, kernel in (({"min": True}, "clamp_min_scalar_cpu"), ({"max": False}, "clamp_max_scalar_cpu"),
                       ({"min": False, "max": True}, "clamp_scalar_cpu")):
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
            E.clamp(b, **kw)
    assert E.clamp(b, min=2).tolist() == [2, 2]


def test_half_tensor_with_a_complex_number_only_where_pytorch_has_complexhalf_kernels():
    h = E.tensor([6.0, 3.0], dtype=E.float16)
    assert (h + 1j).dtype is E.complex32
    with pytest.raises(NotImplementedError, match="\"div_cpu\" not implemented for 'ComplexHalf'"):
        h / 1j
    with pytest.raises(NotImplementedError, match="\"div_floor_cpu\" not implemented for 'ComplexHalf'"):
        h // (1 + 1j)
    with pytest.raises(RuntimeError, match="result type ComplexHalf can't be cast to the desired output type Half"):
        h.add_(1j)
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without overflow"):
        h.fill_(1j)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        E.tensor([1], dtype=E.uint8).fill_(1j)


@pytest.mark.parametrize("scalar", [np.int64(300), np.int64(-3), np.int32(7), np.int16(-200), np.uint8(200)])
def test_numpy_int_scalars_are_python_ints_to_narrow_int_tensors(scalar):
    """gym hands back numpy ints: with a uint8/int8 frame they wrap as a Python int does (numpy refused the cast,
    the operator returned NotImplemented and numpy's own reflected op made an ndarray)."""
    u = E.tensor([1, 2, 250], dtype=E.uint8)
    i8 = E.tensor([1, -2, 100], dtype=E.int8)
    for got, want, dt in [(u + scalar, u + int(scalar), E.uint8), (scalar * u, int(scalar) * u, E.uint8),
                          (u.clone().add_(scalar), u.clone().add_(int(scalar)), E.uint8),
                          (i8 * scalar, i8 * int(scalar), E.int8), (u > scalar, u > int(scalar), E.bool)]:
        assert type(got) is E.Tensor and got.dtype is dt and got.tolist() == want.tolist()
    assert (u + E.tensor(0) + scalar).tolist() == [(v + int(scalar)) % 256 for v in (1, 2, 250)]


def test_an_integer_tensor_to_a_negative_numpy_int_power_raises():
    with pytest.raises(RuntimeError, match="^Integers to negative integer powers are not allowed.$"):
        E.tensor([2]) ** np.int64(-1)
    assert (E.tensor([2.0]) ** np.int64(-2)).tolist() == [0.25]


def test_clamp_takes_numpy_scalar_bounds_as_python_numbers():
    u = E.tensor([1, 2, 250], dtype=E.uint8)
    assert u.clamp(max=np.int32(7)).tolist() == [1, 2, 7]
    assert E.clip(u, np.int64(2), np.int64(9)).tolist() == [2, 2, 9]
    assert u.clamp(min=np.int64(-3)).tolist() == [253, 253, 253]  # wrapped, as a Python -3
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        u.clamp(max=np.int64(300))
    assert E.tensor([1.0, 5.0]).clamp(max=np.float64(2.5)).tolist() == [1.0, 2.5]


@pytest.mark.parametrize("write", [lambda u, v: u.clone().fill_(v), lambda u, v: u.masked_fill(u > 1, v),
                                   lambda u, v: E.full((2,), v, dtype=E.uint8), lambda u, v: E.where(u > 1, u, v)],
                         ids=["fill_", "masked_fill", "full", "where"])


def test_numpy_int_scalars_written_into_int_tensors_are_checked_as_python_ints(write):
    u = E.tensor([1, 2, 250], dtype=E.uint8)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        write(u, np.int64(300))
    assert write(u, np.int64(-1)).tolist() == write(u, -1).tolist()  # wrapped to 255, as a Python -1


def test_where_checks_a_float_number_against_a_float32_or_complex64_result_as_pytorch():
    """PyTorch converts where's number operand to the result dtype with its overflow check (float32, complex64),
    but not for float16/bfloat16 results, where 1e300 becomes inf; a float64 result holds it."""
    c, x = E.tensor([True, False]), E.ones(2)
    for call in (lambda: E.where(c, 1e300, x), lambda: E.where(c, x, -1e300), lambda: E.where(c, 1e300, 2.0),
                 lambda: E.where(c, 3.5e38, x)):
        with pytest.raises(RuntimeError, match="^value cannot be converted to type float without overflow$"):
            call()
    with pytest.raises(RuntimeError, match=r"^value cannot be converted to type c10::complex<float> without overflow$"):
        E.where(c, 1e300, x.to(E.complex64))
    assert E.where(c, 1e300, x.to(E.float16)).tolist() == [math.inf, 1.0]
    assert E.where(c, 1e300, x.to(E.float64)).tolist() == [1e300, 1.0]
    assert E.where(c, math.inf, x).tolist() == [math.inf, 1.0]  # inf and nan convert
    assert math.isnan(E.where(c, math.nan, x).tolist()[0])


@pytest.mark.parametrize("value, message", [(1 << 64, "int too big to convert"), (1 << 200, "int too big to convert"),
                                            (-(1 << 63) - 1, "can't convert negative int to unsigned")])


def test_python_ints_no_pytorch_scalar_holds_raise_overflow_error(value, message):
    """A PyTorch Scalar holds an int64 or a uint64: a Python int outside [-2**63, 2**64) is refused by its argument
    parser (OverflowError) in arithmetic, comparisons, where, fills and clamps, instead of computing in float."""
    x, c = E.ones(2), E.tensor([True, False])
    for call in (lambda: x + value, lambda: value * x, lambda: x < value, lambda: E.where(c, value, x),
                 lambda: x.masked_fill(c, value), lambda: E.full((2,), value), lambda: x.clamp(max=value),
                 lambda: x.fill_(value), lambda: x.add(value)):
        with pytest.raises(OverflowError, match=f"^{message}$"):
            call()
    assert (x + (1 << 63)).tolist() == [float(1 << 63) + 1] * 2  # the uint64 range still converts
    assert (x * -(1 << 63)).tolist() == [float(-(1 << 63))] * 2


def test_lerp_takes_pytorchs_two_sided_form_at_infinities():
    """PyTorch computes `end - (end - input) * (1 - weight)` for |weight| >= 0.5: lerp(-inf, 1, 0.75) is -inf."""
    inf, nan = float("inf"), float("nan")
    a = E.tensor([-inf, -inf, 1.0, 1.0, inf])
    b = E.tensor([1.0, -inf, 2.0, inf, inf])
    want = {0.25: [nan, nan, 1.25, inf, nan], 0.75: [-inf, nan, 1.75, nan, nan], 1.0: [nan, nan, 2.0, nan, nan]}
    for w, expect in want.items():
        for weight in (w, E.full((5,), w)):
            np.testing.assert_array_equal(E.lerp(a, b, weight).numpy(), np.array(expect, dtype=np.float32))
    assert E.lerp(E.tensor([1.0]), E.tensor([3.0]), 0.7).item() == np.float32(1.0) + np.float32(0.7) * np.float32(2.0)


def test_clamp_of_small_integers_by_zero_dim_tensor_bounds_casts_them_to_the_result_type():
    # PyTorch: a 0-dim int64 bound does not promote a uint8 input; it is cast as C casts (-1 -> 255, 300 -> 44)
    a = E.tensor([3, 200], dtype=E.uint8)
    got = E.clamp(a, E.tensor(10), E.tensor(100))
    assert got.dtype is E.uint8 and got.tolist() == [10, 100]
    assert E.clamp(a, E.tensor(-1)).tolist() == [255, 255]
    assert E.clamp(a, None, E.tensor(300)).tolist() == [3, 44]
    assert E.clamp(E.tensor([-5, 7], dtype=E.int8), E.tensor(-200), E.tensor(3)).tolist() == [3, 3]
    wide = E.clamp(a, E.tensor([10, 10]))
    assert wide.dtype is E.int64 and wide.tolist() == [10, 200]


def test_clamp_of_bool_by_two_bool_tensor_bounds_is_refused_as_pytorch():
    t = E.tensor([True, False])
    with pytest.raises(NotImplementedError, match="^\"clamp_cpu\" not implemented for 'Bool'$"):
        E.clamp(t, E.tensor(False), E.tensor(True))
    assert E.clamp(t, E.tensor(False)).tolist() == [True, False]  # one bound: PyTorch's maximum, which has Bool
    assert E.clamp(t, None, E.tensor(False)).tolist() == [False, False]
    wide = E.clamp(t, E.tensor(0), E.tensor(1))
    assert wide.dtype is E.int64 and wide.tolist() == [1, 0]


@pytest.mark.parametrize("call", [
    lambda v: E.clamp(v, min=E.zeros(2)), lambda v: E.clamp(v, max=E.zeros(3)), lambda v: E.clamp(v, E.zeros(3), v),
    lambda v: E.clamp_min(v, E.zeros(2)), lambda v: E.clamp_max(v, E.zeros(4)),
])
def test_clamp_with_tensor_bounds_that_do_not_broadcast_raises_pytorchs_runtime_error(call):
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(5\) must match the size of tensor b \([234]\) at "
                                           r"non-singleton dimension 0$"):
        call(E.zeros(5, dtype=E.float64))
    assert E.clamp(E.zeros(5, 1), E.zeros(3), E.zeros(2, 1, 1)).shape == (2, 5, 3)  # bounds broadcast the result


@pytest.mark.parametrize("call", [
    lambda x, b: E.clamp(x, min=b), lambda x, b: x.clone().clamp_(min=b), lambda x, b: x.clamp(max=b),
    lambda x, b: x.clone().clamp_min_(b), lambda x, b: x.clamp_max(b), lambda x, b: x.clamp(E.zeros(2), b),
    lambda x, b: E.clamp(x, min=b, out=E.empty(2)),
])
def test_clamp_with_unbroadcastable_tensor_bounds_is_pytorchs_runtime_error(call):
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 0$"):
        call(E.tensor([1.0, 2.0]), E.zeros(3))
    with pytest.raises(RuntimeError, match=r"dimension 1$"):
        E.tensor([1.0, 2.0]).clamp(min=E.zeros(2, 1), max=E.ones(3))
