"""The long-tail elementwise functions (logaddexp, nan_to_num, deg2rad, bit shifts, gcd/lcm,
frexp, ldexp, nextafter, heaviside, predicates, in-place function forms) against numpy float64,
with PyTorch's dtypes and errors."""

import math

import numpy as np
import pytest

import ember.core as E
from ember.core.testing import assert_close

INF, NAN = math.inf, math.nan


def test_logaddexp_is_stable_and_matches_numpy():
    a = np.array([0.0, -1000.0, 1000.0, 1.5, INF, -INF, INF, 3.0])
    b = np.array([0.0, -1000.0, 999.0, -2.0, INF, -INF, -INF, -INF])
    assert_close(E.logaddexp(E.tensor(a), E.tensor(b)), E.tensor(np.logaddexp(a, b)))
    assert_close(E.logaddexp2(E.tensor(a), E.tensor(b)), E.tensor(np.logaddexp2(a, b)))
    f32 = E.logaddexp(E.tensor(a, dtype=E.float32), E.tensor(b, dtype=E.float32))
    assert f32.dtype is E.float32
    assert_close(f32, E.tensor(np.logaddexp(a, b), dtype=E.float32))
    assert_close(E.tensor(a).logaddexp(E.tensor(b)), E.tensor(np.logaddexp(a, b)))


def test_logaddexp_refuses_integers_as_pytorch():
    with pytest.raises(NotImplementedError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        E.logaddexp(E.tensor([1]), E.tensor([2]))
    with pytest.raises(NotImplementedError, match="\"logaddexp2_cpu\" not implemented for 'Bool'"):
        E.logaddexp2(E.tensor([True]), E.tensor([False]))


def test_logaddexp_takes_tensors_only_as_pytorchs_parser():
    # PyTorch's logaddexp has no Number overload: a Python number is its parser's TypeError, worded per form
    x = E.tensor([1.0])
    cases = [(lambda: E.logaddexp(x, 2.0), "logaddexp(): argument 'other' (position 2) must be Tensor, not float"),
             (lambda: E.logaddexp2(2, x), "logaddexp2(): argument 'input' (position 1) must be Tensor, not int"),
             (lambda: x.logaddexp(2.0), "logaddexp(): argument 'other' (position 1) must be Tensor, not float"),
             (lambda: E.logaddexp(x, other=2.0), "logaddexp(): argument 'other' must be Tensor, not float"),
             (lambda: E.logaddexp(x, x, out=3), "logaddexp(): argument 'out' must be Tensor, not int")]
    for call, msg in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == msg
    assert E.logaddexp(x, E.tensor(2.0)).tolist() == pytest.approx([math.log(math.exp(1) + math.exp(2))])


@pytest.mark.parametrize("op, ref", [(E.logaddexp, np.logaddexp), (E.logaddexp2, np.logaddexp2)])
def test_logaddexp_of_an_integer_beside_a_float_computes_in_the_float_dtype(op, ref):
    ints, floats = np.array([1, 2, 3]), np.array([0.5, -1.0, 2.0], dtype=np.float32)
    for a, b in ((E.tensor(ints), E.tensor(floats)), (E.tensor(floats), E.tensor(ints.astype(bool)))):
        r = op(a, b)
        assert r.dtype is E.float32
        assert_close(r, E.tensor(ref(a.numpy().astype(np.float64), b.numpy().astype(np.float64)), dtype=E.float32))


def test_ldexp_refuses_a_bool_exponent_as_pytorch():
    with pytest.raises(NotImplementedError, match="\"ldexp_cpu_exp\" not implemented for 'Bool'"):
        E.ldexp(E.tensor([1.0]), E.tensor([True]))


def test_nan_to_num_defaults_to_the_dtype_limits():
    x = np.array([NAN, INF, -INF, 1.5])
    r = E.nan_to_num(E.tensor(x, dtype=E.float32))
    f = np.finfo(np.float32)
    assert r.tolist() == [0.0, float(f.max), float(f.min), 1.5]
    assert E.nan_to_num(E.tensor(x), nan=1.0, posinf=2.0, neginf=-2.0).tolist() == [1.0, 2.0, -2.0, 1.5]
    h = E.tensor(x, dtype=E.float16).nan_to_num(posinf=7.0)
    assert h.dtype is E.float16 and h.tolist() == [0.0, 7.0, float(np.finfo(np.float16).min), 1.5]
    i = E.tensor([1, 2])
    assert E.nan_to_num(i).tolist() == [1, 2] and E.nan_to_num(i).dtype is E.int64
    y = E.tensor(x)
    assert y.nan_to_num_() is y and y.tolist()[0] == 0.0


def test_deg2rad_rad2deg_and_ldexp_promote_integers_to_float():
    assert_close(E.deg2rad(E.tensor([180.0, -90.0])), E.tensor([math.pi, -math.pi / 2]))
    r = E.deg2rad(E.tensor([180]))
    assert r.dtype is E.float32
    assert_close(E.rad2deg(E.tensor([math.pi], dtype=E.float64)), E.tensor([180.0], dtype=E.float64))
    assert E.ldexp(E.tensor([1, 3]), E.tensor([3, -1])).tolist() == [8.0, 1.5]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        E.tensor([180]).deg2rad_()


def test_ldexp_with_an_integer_exponent_scales_exactly_as_c_ldexp():
    x = np.array([0.75, 0.75, 3.0, 0.0, INF, -1.5, 1e-40], dtype=np.float32)
    e = np.array([128, 129, -150, 1000, -1000, -3000, 130], dtype=np.int64)
    r = E.ldexp(E.tensor(x), E.tensor(e))
    assert r.dtype is E.float32
    assert r.tolist() == np.ldexp(x, e).tolist()  # 0.75 * 2**128 finite, 0 * 2**1000 == 0, inf * 2**-1000 == inf
    h = np.array([0.75, 0.75, 0.75], dtype=np.float16)
    r = E.ldexp(E.tensor(h), E.tensor([16, 20, -25]))
    assert r.dtype is E.float16 and r.tolist() == np.ldexp(h, np.array([16, 20, -25])).tolist()
    assert E.ldexp(E.tensor([0.75], dtype=E.bfloat16), E.tensor([2], dtype=E.uint8)).dtype is E.bfloat16
    assert E.ldexp(E.tensor([3]), E.tensor([2.0], dtype=E.float16)).dtype is E.float16
    assert E.ldexp(E.tensor([3], dtype=E.int8), E.tensor([2], dtype=E.int8)).tolist() == [12.0]
    assert E.ldexp(E.tensor([0.75]), E.tensor([128.0])).tolist() == [INF]  # a float exponent: pow(2, e) overflows


def test_frexp_splits_mantissa_and_exponent_as_numpy():
    x = np.array([0.0, -3.0, 1e-40, 8.0, 0.75, 1e30, -1e-5], dtype=np.float32)
    m, e = E.frexp(E.tensor(x))
    nm, ne = np.frexp(x)
    assert m.dtype is E.float32 and e.dtype is E.int32
    assert m.tolist() == nm.tolist() and e.tolist() == ne.tolist()
    m, e = E.tensor([INF, NAN]).frexp()
    assert m.tolist()[0] == INF and math.isnan(m.tolist()[1]) and e.tolist() == [0, 0]
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        E.frexp(E.tensor([1]))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nextafter_matches_numpy(dt):
    x = np.array([1.0, 0.0, 0.0, 2.0, NAN, -1.0, -0.0, 1e-30, INF, -INF, 0.0], dtype=dt)
    y = np.array([2.0, 1.0, -1.0, 2.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0, -INF], dtype=dt)
    r = E.nextafter(E.tensor(x), E.tensor(y))
    np.testing.assert_array_equal(r._np(), np.nextafter(x, y))
    with pytest.raises(TypeError, match=r"^nextafter\(\): argument 'other' \(position 2\) must be Tensor, not float$"):
        E.nextafter(E.tensor(x), 5.0)  # PyTorch's signature is (Tensor, Tensor)
    with pytest.raises(NotImplementedError, match="nextafter"):
        E.nextafter(E.tensor([1]), E.tensor([2]))


def test_heaviside_and_its_dtype_rule():
    assert E.heaviside(E.tensor([-1.0, 0.0, 2.0]), E.tensor(0.5)).tolist() == [0.0, 0.5, 1.0]
    assert E.heaviside(E.tensor([-1, 0, 2]), E.tensor([7, 7, 7])).tolist() == [0, 7, 1]
    with pytest.raises(RuntimeError, match="different dtypes"):
        E.heaviside(E.tensor([1.0]), E.tensor(1))


def test_infinity_predicates_sgn_and_positive():
    x = E.tensor([INF, -INF, 1.0, NAN])
    assert E.isposinf(x).tolist() == [True, False, False, False]
    assert E.isneginf(x).tolist() == [False, True, False, False]
    assert E.isreal(x).tolist() == [True] * 4
    assert E.isposinf(E.tensor([1])).tolist() == [False]
    assert E.sgn(E.tensor([-2.0, 0.0, 3.0])).tolist() == [-1.0, 0.0, 1.0]
    t = E.tensor([1])
    assert E.positive(t) is t
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        E.positive(E.tensor([True]))


@pytest.mark.parametrize("npdt", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_shifts_match_numpy_within_the_width_and_clamp_beyond(npdt):
    bits = np.dtype(npdt).itemsize * 8
    rng = np.random.default_rng(0)
    info = np.iinfo(npdt)
    a = rng.integers(info.min, info.max, size=40, dtype=npdt, endpoint=True)
    s = rng.integers(0, bits, size=40).astype(npdt)
    x, k = E.tensor(a), E.tensor(s)
    np.testing.assert_array_equal(E.bitwise_left_shift(x, k)._np(), np.left_shift(a, s))
    np.testing.assert_array_equal((x >> k)._np(), np.right_shift(a, s))
    np.testing.assert_array_equal((x << 1)._np(), np.left_shift(a, npdt(1)))
    big = E.tensor(np.full(40, bits, dtype=npdt))
    assert (x << big).tolist() == [0] * 40
    assert (x >> big).tolist() == [-1 if v < 0 else 0 for v in a.tolist()]


def test_shift_by_a_negative_amount_gives_zero_and_floats_are_refused():
    a = E.tensor([1, -8, 5], dtype=E.int8)
    assert E.bitwise_left_shift(a, E.tensor([8, 1, -1], dtype=E.int8)).tolist() == [0, -16, 0]
    assert (a >> E.tensor([7, 9, -1], dtype=E.int8)).tolist() == [0, -1, 0]
    assert (2 << a.abs()).tolist() == [4, 0, 64]
    y = E.tensor([1, 2])
    y <<= 3
    assert y.tolist() == [8, 16]
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Float'"):
        E.tensor([1.0]) << 1
    with pytest.raises(TypeError):
        E.tensor([1.0]) >> 1


def test_bitwise_not_gcd_and_lcm():
    assert E.bitwise_not(E.tensor([1, -3, 0])).tolist() == [-2, 2, -1]
    assert E.bitwise_not(E.tensor([True, False])).tolist() == [False, True]
    with pytest.raises(NotImplementedError, match="bitwise_not"):
        E.bitwise_not(E.tensor([1.0]))
    a, b = np.array([0, -4, 6, 17, 0, 48]), np.array([0, 6, -9, 5, 7, 18])
    assert E.gcd(E.tensor(a), E.tensor(b)).tolist() == np.gcd(a, b).tolist()
    assert E.lcm(E.tensor(a), E.tensor(b)).tolist() == np.lcm(a, b).tolist()
    assert E.gcd(E.tensor([[12], [8]]), E.tensor([18, 6])).tolist() == [[6, 6], [2, 2]]
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        E.gcd(E.tensor([1.0]), E.tensor([2.0]))


def test_in_place_function_forms_and_method_aliases():
    x = E.tensor([-1.0, 4.0])
    assert E.abs_(x) is x and x.tolist() == [1.0, 4.0]
    assert E.sqrt_(x).tolist() == [1.0, 2.0]
    assert E.clamp_(x, 0.0, 1.5).tolist() == [1.0, 1.5]
    assert E.tensor([1.0, 3.0]).greater_(2).tolist() == [0.0, 1.0]
    assert E.tensor([1.0, 0.0]).logical_not_().tolist() == [0.0, 1.0]
    assert E.tensor([-2.0]).negative_().tolist() == [2.0]
    assert_close(E.arccosh(E.tensor([2.0])), E.tensor([math.acosh(2.0)]))
    assert_close(E.tensor([0.5]).arctanh_(), E.tensor([math.atanh(0.5)]))


def test_nan_to_num_of_float64_keeps_float64_limits():
    r = E.nan_to_num(E.tensor([INF, -INF], dtype=E.float64))
    assert r.dtype is E.float64 and r.tolist() == [float(np.finfo(np.float64).max), float(np.finfo(np.float64).min)]


def test_movedim_out_of_range_and_repeated_dims_raise_as_pytorch():
    x = E.zeros(2, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)"):
        x.movedim(0, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.movedim(-3, 0)
    with pytest.raises(RuntimeError, match="repeated dim in `destination`"):
        x.movedim((0, 1), (1, 1))
    assert x.movedim(0, -1).shape == (3, 2)


def test_mode_over_an_empty_dim_and_kthvalue_errors_are_pytorchs():
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have non-zero size"):
        E.zeros(3, 0).mode(1)
    r = E.zeros(0, 3).mode(1)
    assert r.values.shape == (0,) and r.indices.dtype is E.int64
    with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range for dimension 0"):
        E.tensor([1.0, 2.0]).kthvalue(3)


def test_embedding_bag_with_include_last_offset():
    w = E.arange(12.0).reshape(4, 3)
    idx = E.tensor([0, 1, 2, 3])
    # PyTorch 2.13's values: the last offset closes the last bag
    assert E.embedding_bag(idx, w, E.tensor([0, 2, 4]), include_last_offset=True).tolist() == \
        [[1.5, 2.5, 3.5], [7.5, 8.5, 9.5]]
    assert E.embedding_bag(idx, w, E.tensor([0, 1, 4]), mode="max", include_last_offset=True).tolist() == \
        [[0.0, 1.0, 2.0], [9.0, 10.0, 11.0]]
    assert E.embedding_bag(idx, w, E.tensor([0, 1, 4]), mode="sum", per_sample_weights=E.tensor([1.0, 2.0, 3.0, 4.0]),
                           include_last_offset=True).tolist() == [[0.0, 1.0, 2.0], [60.0, 69.0, 78.0]]


def test_shifts_refuse_bool_and_an_out_they_cannot_cast_to_first():
    t = E.tensor([True, False])
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Bool'"):
        E.bitwise_left_shift(t, t)
    with pytest.raises(NotImplementedError, match="\"rshift_cpu\" not implemented for 'Bool'"):
        t >> True
    a = E.tensor([1, 2], dtype=E.int32)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Int"):
        a <<= E.tensor([1.0, 2.0])
    assert (a << 1).tolist() == [2, 4]


@pytest.mark.parametrize("fn", [E.abs, E.absolute, E.neg, E.negative, E.sign, E.floor, E.ceil, E.trunc, E.fix,
                                E.round, lambda x, out: E.round(x, decimals=2, out=out), E.frac])
def test_dtype_keeping_unary_ops_take_an_out_of_exactly_the_input_dtype(fn):
    x = E.tensor([1.25, -2.5])
    for dt, name in ((E.float64, "Double"), (E.int64, "Long"), (E.bool, "Bool")):  # float64 too: no widening cast
        with pytest.raises(RuntimeError, match=rf"^Found dtype {name} but expected Float$"):
            fn(x, out=E.empty(2, dtype=dt))
    out = E.empty(2)
    assert fn(x, out=out) is out


def test_bitwise_not_checks_the_out_dtype_before_its_kernel():
    with pytest.raises(RuntimeError, match=r"^Found dtype Double but expected Float$"):
        E.bitwise_not(E.tensor([1.0]), out=E.empty(1, dtype=E.float64))
    with pytest.raises(RuntimeError, match=r"^Found dtype Int but expected Long$"):
        E.bitwise_not(E.tensor([1]), out=E.empty(1, dtype=E.int32))
    assert E.bitwise_not(E.tensor([5]), out=E.empty(1, dtype=E.int64)).tolist() == [-6]


def test_out_dtype_refusals_of_nan_to_num_signbit_and_conj_physical():
    with pytest.raises(RuntimeError, match=r"^nan_to_num: dtype of out: Double should be same as input: Float$"):
        E.nan_to_num(E.tensor([0.5]), out=E.empty(1, dtype=E.float64))
    with pytest.raises(RuntimeError, match=r"^nan_to_num: dtype of out: Float should be same as input: Long$"):
        E.nan_to_num(E.tensor([1]), out=E.empty(1))
    for dt in (E.float32, E.uint8):
        with pytest.raises(RuntimeError, match=r"^signbit does not support non-boolean outputs\.$"):
            E.signbit(E.tensor([-0.5]), out=E.empty(1, dtype=dt))
    with pytest.raises(NotImplementedError, match=r"^signbit is not implemented for complex tensors\.$"):
        E.signbit(E.tensor([1 + 1j]), out=E.empty(1))
    assert E.signbit(E.tensor([-0.5]), out=E.empty(1, dtype=E.bool)).tolist() == [True]
    with pytest.raises(RuntimeError, match=r"^Found dtype Float but expected ComplexFloat$"):
        E.conj_physical(E.tensor([1 + 1j]), out=E.empty(1))
    with pytest.raises(RuntimeError, match=r"^Found dtype Double but expected Float$"):
        E.conj_physical(E.tensor([1.0]), out=E.empty(1, dtype=E.float64))


def test_right_shift_by_a_negative_amount_fills_with_the_sign():
    assert (E.tensor([-8, 8]) >> E.tensor([-1, -2])).tolist() == [-1, 0]  # PyTorch: a >> (bits - 1)
    assert (E.tensor([200], dtype=E.uint8) >> E.tensor([-1], dtype=E.int8)).tolist() == [0]


def test_python_int_shift_operands_wrap_into_the_tensor_dtype():
    u = E.tensor([1, 2], dtype=E.uint8)
    assert (300 >> u).tolist() == [22, 11] and (300 >> u).dtype is E.uint8  # 300 reads as 44
    assert (300 << u).tolist() == [88, 176]
    assert (u >> 300).tolist() == [0, 0]  # a shift of 44 is past the width
    assert (200 << E.tensor([1, 2], dtype=E.int8)).tolist() == [-112, 32]  # 200 reads as -56
    assert E.bitwise_right_shift(300, u).tolist() == [22, 11]
    assert (E.tensor([-100, 100], dtype=E.int8) >> 200).tolist() == [-1, 0]  # a shift of -56


def test_round_takes_decimals_by_keyword_only_and_refuses_none():
    # PyTorch 2.13's parser errors for torch.round(x, 1.5), (x, None), (x, decimals=None), (x, decimals=1.0)
    x = E.tensor([1.26, 2.5])
    tail = ("but expected one of:\n * (Tensor input, *, Tensor out = None)\n"
            " * (Tensor input, *, int decimals, Tensor out = None)\n")
    for call, got in ((lambda: E.round(x, 1.5), "float"), (lambda: E.round(x, 1), "int"),
                      (lambda: E.round(x, None), "NoneType"), (lambda: E.round(x, decimals=None), "decimals=NoneType"),
                      (lambda: E.round(x, decimals=1.0), "decimals=float")):
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == f"round() received an invalid combination of arguments - got (Tensor, {got}), " + tail
    assert_close(E.round(x, decimals=1), E.tensor([1.3, 2.5]))
    assert E.round(x).tolist() == [1.0, 2.0] and x.round().tolist() == [1.0, 2.0]


def test_round_takes_an_integer_0_dim_tensor_for_decimals():
    """PyTorch's parser reads an integer 0-dim tensor as the int `decimals`; a one-element 1-D one it refuses."""
    x = E.tensor([1.26, 2.5])
    assert_close(E.round(x, decimals=E.tensor(1)), E.tensor([1.3, 2.5]))
    assert_close(x.round(decimals=E.tensor(1)), E.tensor([1.3, 2.5]))
    with pytest.raises(TypeError, match=r"^round\(\) received an invalid combination of arguments - got \(Tensor, "
                                        r"decimals=Tensor\)"):
        E.round(x, decimals=E.tensor([1]))


@pytest.mark.parametrize("call, message", [
    (lambda x: x.round(1), "round() takes from 1 to 0 positional arguments but 1 were given"),
    (lambda x: x.round_(1), "round_() takes from 1 to 0 positional arguments but 1 were given"),
    (lambda x: x.round(decimals=None), "round(): argument 'decimals' must be int, not NoneType"),
    (lambda x: x.round_(decimals=None), "round_(): argument 'decimals' must be int, not NoneType"),
    (lambda x: x.round(decimals=True), "round(): argument 'decimals' must be int, not bool"),
    (lambda x: E.round(x, 1, out=E.empty(2)), "round() takes from 2 to 1 positional arguments but 2 were given"),
    (lambda x: E.round(x, 1, 2), "round() takes from 2 to 1 positional arguments but 3 were given"),
    (lambda x: E.round(x, decimals=None, out=E.empty(2)), "round(): argument 'decimals' must be int, not NoneType"),
    (lambda x: x.round(1, 2), "round() received an invalid combination of arguments - got (int, int), but expected "
                              "one of:\n * ()\n * (*, int decimals)\n      didn't match because some of the "
                              "arguments have invalid types: (!int!, int)\n"),
])
def test_round_refusals_are_worded_per_form_as_pytorchs_parser(call, message):
    """PyTorch 2.13's messages: the method forms take no positional argument, `out=` changes the function's."""
    x = E.tensor([1.26, 2.5])
    with pytest.raises(TypeError) as info:
        call(x)
    assert str(info.value) == message and x.tolist() == E.tensor([1.26, 2.5]).tolist()


def test_round_with_an_unknown_keyword_is_worded_as_pytorchs_parser_for_each_form():
    """PyTorch 2.13's words: the one plausible overload (the one with `decimals`) names what is missing or
    unexpected; more keywords than any overload takes list the overloads."""
    x = E.ones(2)
    for call, msg in [
            (lambda: x.round(foo=1), 'round() missing 1 required positional arguments: "decimals"'),
            (lambda: x.round_(foo=1), 'round_() missing 1 required positional arguments: "decimals"'),
            (lambda: E.round(x, foo=1, bar=2.0), 'round() missing 1 required positional arguments: "decimals"'),
            (lambda: E.round(x, decimals=1, foo=1), "round() got an unexpected keyword argument 'foo'"),
            (lambda: E.round(x, foo=1), "round() received an invalid combination of arguments - got (Tensor, foo=int), "
                                        "but expected one of:\n * (Tensor input, *, Tensor out = None)\n"
                                        " * (Tensor input, *, int decimals, Tensor out = None)\n"),
            (lambda: x.round(decimals=1, foo=1),
             "round() received an invalid combination of arguments - got (foo=int, decimals=int, ), but expected one "
             "of:\n * ()\n * (*, int decimals)\n"
             "      didn't match because some of the keywords were incorrect: foo\n")]:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == msg


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_16bit_logaddexp_computes_in_float32_and_rounds_once(name):
    # PyTorch's kernel: max + log1p(exp(-|a - b|)) in float32, one rounding (each step rounded in the 16-bit dtype
    # left 12% of bfloat16 results an ulp off); logaddexp2 likewise
    a = E.randn(300, generator=E.Generator().manual_seed(7)) * 3
    x, y = a.to(getattr(E, name)), a.flip(0).to(getattr(E, name))
    xf, yf = x.float().numpy(), y.float().numpy()
    for fn, ref in ((E.logaddexp, np.logaddexp), (E.logaddexp2, np.logaddexp2)):
        got = fn(x, y)
        assert got.dtype is x.dtype
        want = E.from_numpy(ref(xf, yf)).to(x.dtype).float().numpy()
        np.testing.assert_array_equal(got.float().numpy(), want)
