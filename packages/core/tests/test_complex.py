"""Complex tensors: dtypes, promotion, creation, printing, views, values against numpy complex128,
and PyTorch's errors where it refuses complex input."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

import ember.core as E

RNG = np.random.default_rng(0)

# PyTorch's C++ warning as it prints, its source location appended
_DISCARDS = ("Casting complex values to real discards the imaginary part (Triggered internally at "
             "/__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)")


def crand(*shape, dtype=np.complex128) -> np.ndarray:
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def test_complex_dtypes_have_pytorchs_attributes():
    assert E.complex64.is_complex and E.complex128.is_complex and not E.float32.is_complex
    assert not E.complex64.is_floating_point and E.complex64.is_signed
    assert E.complex64.itemsize == 8 and E.complex128.itemsize == 16
    assert E.complex64.to_real() is E.float32 and E.complex128.to_real() is E.float64
    assert E.float32.to_complex() is E.complex64 and E.float64.to_complex() is E.complex128
    assert E.float16.to_complex() is E.complex32 and E.complex32.to_real() is E.float16
    assert E.cfloat is E.complex64 and E.cdouble is E.complex128
    assert repr(E.complex64) == "ember.complex64"
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Long"):
        E.int64.to_complex()


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("complex64", "float64", "complex128"), ("float16", "complex64", "complex64"), ("int64", "complex64", "complex64"),
    ("complex64", "complex128", "complex128"), ("bool", "complex128", "complex128"),
])
def test_promote_types_follows_pytorchs_table(a, b, expected):
    assert E.promote_types(getattr(E, a), getattr(E, b)) is getattr(E, expected)


def test_result_type_with_python_complex_and_zero_dim_tensors():
    f64 = E.ones(2, dtype=E.float64)
    assert (f64 + 1j).dtype is E.complex128
    assert (E.ones(2) + 1j).dtype is E.complex64
    assert (E.ones(2, dtype=E.int64) + 1j).dtype is E.complex64
    assert (E.ones(2) + E.tensor(1j, dtype=E.complex128)).dtype is E.complex64  # the float keeps its precision
    assert (f64 + E.tensor(1j)).dtype is E.complex128
    assert (E.ones(2, dtype=E.int32) + E.tensor(1j, dtype=E.complex128)).dtype is E.complex128
    assert (E.ones(2, dtype=E.complex64) + 2.5).dtype is E.complex64


def test_creation_infers_default_complex_and_keeps_numpy_dtype():
    assert E.tensor([1 + 2j, 3]).dtype is E.complex64
    assert E.tensor(np.array([1j])).dtype is E.complex128
    assert E.zeros(2, 3, dtype=E.complex64).dtype is E.complex64
    E.set_default_dtype(E.float64)
    try:
        assert E.tensor([1j]).dtype is E.complex128
    finally:
        E.set_default_dtype(E.float32)
    z = E.randn(20000, dtype=E.complex64)
    assert z.dtype is E.complex64
    assert abs(float((z.abs() ** 2).mean()) - 1.0) < 0.05  # each part has variance 1/2, as PyTorch's
    u = E.rand(1000, dtype=E.complex128).numpy()
    assert (u.real >= 0).all() and (u.real < 1).all() and (u.imag >= 0).all() and (u.imag < 1).all()


def test_printing_matches_pytorch():
    assert repr(E.tensor([1 + 2j, 3 - 4j])) == "tensor([1.+2.j, 3.-4.j])"
    assert repr(E.tensor([1 + 2j], dtype=E.complex128)) == "tensor([1.+2.j], dtype=ember.complex128)"
    assert repr(E.tensor([[1 + 2j, 3.5 - 4j], [1e-5j, 100]])) == (
        "tensor([[  1.0000+2.0000e+00j,   3.5000-4.0000e+00j],\n"
        "        [  0.0000+1.0000e-05j, 100.0000+0.0000e+00j]])")
    assert repr(E.zeros(2, dtype=E.complex64)) == "tensor([0.+0.j, 0.+0.j])"
    assert repr(E.tensor(1.5 - 0.25j)) == "tensor(1.5000-0.2500j)"


def test_real_and_imag_are_views_that_write_through():
    z = E.tensor([1 + 2j, 3 - 4j])
    assert z.real.dtype is E.float32 and z.real.tolist() == [1.0, 3.0] and z.imag.tolist() == [2.0, -4.0]
    z.real[0] = 7
    z.imag.mul_(2)
    assert z.tolist() == [7 + 4j, 3 - 8j]
    z.imag = E.tensor([0.5, 0.5])
    assert z.tolist() == [7 + 0.5j, 3 + 0.5j]
    x = E.ones(3)
    assert E.real(x) is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes."):
        x.imag


def test_real_of_a_strided_view():
    a = crand(4, 6)
    z = E.from_numpy(a)[1:, ::2].t()
    np.testing.assert_array_equal(z.real.numpy(), a[1:, ::2].T.real)
    np.testing.assert_array_equal(z.imag.numpy(), a[1:, ::2].T.imag)


def test_view_as_real_and_view_as_complex_share_storage():
    a = crand(3, 2, dtype=np.complex64)
    z = E.from_numpy(a.copy())
    r = E.view_as_real(z)
    assert r.shape == (3, 2, 2) and r.dtype is E.float32 and r.stride() == (4, 2, 1)
    np.testing.assert_array_equal(r.numpy(), a.view(np.float32).reshape(3, 2, 2))
    r[0, 0, 1] = 9.0
    assert z[0, 0].item().imag == 9.0
    back = E.view_as_complex(r)
    assert back.dtype is E.complex64 and back.data_ptr() == z.data_ptr()
    assert E.view_as_complex(E.ones(3, 3, 2)[:, 1:]).shape == (3, 2)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: E.ones(3, 3), "Tensor must have a last dimension of size 2"),
    (lambda: E.ones(3, 2).t(), "Tensor must have a last dimension of size 2"),
    (lambda: E.ones(2, 3)[:, :2], "Tensor must have a stride divisible by 2 for all but last dimension"),
    (lambda: E.ones(5)[1:].as_strided((1, 2), (2, 1)), "Tensor must have a storage_offset divisible by 2"),
    (lambda: E.ones(3, 2, dtype=E.int32), "view_as_complex is only supported for half, float and double tensors"),
])
def test_view_as_complex_errors(make, message):
    with pytest.raises(RuntimeError, match=message):
        E.view_as_complex(make())


def test_view_as_real_refuses_real_tensors():
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        E.view_as_real(E.ones(3))


def test_complex64_abs_is_correctly_rounded_as_pytorchs_hypot():
    # PyTorch's |z| is libm's hypotf (rounded once from the exact modulus); numpy's complex64 abs is off by an ulp
    # on about a third of inputs, so a rotary table's torch.polar(ones, angle).abs() printed 0.9999999 for 1.0
    re, im = np.cos(np.linspace(0, 6, 400)).astype(np.float32), np.sin(np.linspace(0, 6, 400)).astype(np.float32)
    got = E.complex(E.from_numpy(re), E.from_numpy(im)).abs().numpy()
    exact = np.sqrt(re.astype(np.float64) ** 2 + im.astype(np.float64) ** 2).astype(np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, exact)


def test_complex_polar_angle_abs():
    re, im = RNG.standard_normal(4), RNG.standard_normal(4)
    z = E.complex(E.from_numpy(re), E.from_numpy(im))
    assert z.dtype is E.complex128
    np.testing.assert_array_equal(z.numpy(), re + 1j * im)
    np.testing.assert_allclose(E.angle(z).numpy(), np.angle(re + 1j * im))
    np.testing.assert_allclose(z.abs().numpy(), np.abs(re + 1j * im))
    assert z.abs().dtype is E.float64 and z.angle().dtype is E.float64
    p = E.polar(E.from_numpy(np.abs(re)), E.from_numpy(im))
    np.testing.assert_allclose(p.numpy(), np.abs(re) * np.exp(1j * im))
    np.testing.assert_allclose(E.angle(E.tensor([-2.0, 0.0, 3.0, np.inf, -np.inf, np.nan])).numpy(),
                               [np.pi, 0, 0, 0, np.pi, np.nan])
    assert E.complex(E.ones(2, 1), E.zeros(3)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float but got scalar type Double"):
        E.complex(E.ones(2), E.ones(2, dtype=E.float64))
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double tensors but got Int"):
        E.complex(E.ones(2, dtype=E.int32), E.ones(2, dtype=E.int32))


def test_conj_is_a_lazy_view_and_conj_physical_computes():
    a = crand(3)
    z = E.from_numpy(a.copy())
    c = z.conj()
    np.testing.assert_array_equal(c.resolve_conj().numpy(), a.conj())
    assert c.is_conj() and E.is_conj(c) and c.data_ptr() == z.data_ptr() and not c.resolve_conj().is_conj()
    np.testing.assert_array_equal(E.conj_physical(z).numpy(), a.conj())
    x = E.ones(2)
    assert x.conj() is x and not x.is_conj()
    z.conj_physical_()
    np.testing.assert_array_equal(z.numpy(), a.conj())
    assert E.is_complex(z) and z.is_complex() and not E.is_complex(x)
    np.testing.assert_allclose(E.sgn(z).numpy(), a.conj() / np.abs(a))
    assert E.sgn(E.zeros(1, dtype=E.complex64)).tolist() == [0j]
    # PyTorch's z / complex(|z|, 0) keeps -0.0 parts: sgn(-2j) is (-0-1j), and sgn(-0+0j) is +0
    s = E.sgn(E.tensor([-2j, complex(-0.0, 3.0), complex(-0.0, -0.0), complex(3.0, -0.0)]))
    assert [(math.copysign(1, v.real), math.copysign(1, v.imag)) for v in s.tolist()] == [
        (-1, -1), (1, 1), (1, 1), (1, -1)]
    assert E.isreal(E.tensor([1 + 0j, 1j])).tolist() == [True, False]


UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh",
         "acosh", "atanh", "reciprocal", "rsqrt", "neg", "square", "expm1", "log1p", "log2", "log10", "sigmoid"]
NP_REF = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
          "atanh": np.arctanh, "rsqrt": lambda a: 1 / np.sqrt(a), "neg": np.negative,
          "sigmoid": lambda a: 1 / (1 + np.exp(-a))}


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unary_complex_matches_numpy(name, dtype):
    a = crand(2, 3, dtype=dtype)
    r = getattr(E, name)(E.from_numpy(a))
    assert r.dtype.np == dtype
    ref = NP_REF.get(name, getattr(np, name, None))
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(r.numpy(), ref(a.astype(np.complex128)), rtol=tol, atol=tol)


def test_complex_reciprocal_divides_as_pytorchs_smith_algorithm():
    """PyTorch's 1 / z (c10::complex division): 1 / 0 is inf+nanj (numpy: nan+nanj), 1 / (inf+0j) is 0+0j, and the
    signs of zero parts follow the algorithm's steps; rsqrt divides the same way."""
    inf, nan = math.inf, math.nan
    z = E.tensor([0j, complex(-0.0, -0.0), complex(inf, 0.0), complex(0.0, inf), complex(-2.0, -0.0),
                  complex(inf, inf), 3 + 4j], dtype=E.complex128)
    got = [(v.real, v.imag) for v in z.reciprocal().tolist()]
    want = [(inf, nan), (inf, nan), (0.0, 0.0), (0.0, -0.0), (-0.5, -0.0), (nan, nan), (0.12, -0.16)]
    for (gr, gi), (wr, wi) in zip(got, want):
        for g, w in ((gr, wr), (gi, wi)):
            assert (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
    assert [str(v) for v in E.tensor([0j], dtype=E.complex64).rsqrt().tolist()] == ["(inf+nanj)"]


def test_binary_arithmetic_reductions_and_matmul_match_numpy():
    a, b = crand(3, 4), crand(4, 2)
    x, y = E.from_numpy(a), E.from_numpy(b)
    np.testing.assert_allclose((x @ y).numpy(), a @ b)
    np.testing.assert_allclose((x * 2 + x / (x + 3) - x ** 2).numpy(), a * 2 + a / (a + 3) - a ** 2)
    np.testing.assert_allclose(E.pow(x, 0.5).numpy(), a ** 0.5)
    np.testing.assert_allclose(x.sum(1).numpy(), a.sum(1))
    np.testing.assert_allclose(x.mean().numpy(), a.mean())
    np.testing.assert_allclose(x.prod(0).numpy(), a.prod(0))
    assert x.sum().dtype is E.complex128 and x.mean().dtype is E.complex128
    r = E.from_numpy(RNG.standard_normal(4))
    np.testing.assert_allclose((x * r).numpy(), a * r.numpy())
    assert (x == x).all() and not (x != x).any()
    assert E.isclose(x, x + 1e-12).all() and E.allclose(x, x)
    assert not E.allclose(x, x + 1e-3j)


@pytest.mark.parametrize(("fn", "exc", "message"), [
    (lambda z: z < z, NotImplementedError, "\"lt_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z >= 1, NotImplementedError, "\"ge_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z.sign(), NotImplementedError, "Please use torch.sgn instead"),
    (lambda z: z.floor(), NotImplementedError, "floor is not supported for complex inputs"),
    (lambda z: z.relu(), NotImplementedError, "clamp is not supported for complex types"),
    (lambda z: z.clamp(0, 1), NotImplementedError, "clamp is not supported for complex types"),
    (lambda z: E.maximum(z, z), RuntimeError, "maximum not implemented for complex tensors."),
    (lambda z: z % 2, NotImplementedError, "\"remainder_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z // 2, NotImplementedError, "\"div_floor_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z.max(0), RuntimeError, "max\\(\\): does not support complex input"),
    (lambda z: z.argmax(), RuntimeError, "argmax\\(\\): does not support complex input"),
    (lambda z: z.sort(), RuntimeError, "Sort does not support complex dtypes on CPU"),
    (lambda z: z.topk(1), RuntimeError, "topk does not support complex dtypes on CPU"),
    (lambda z: z.erf(), NotImplementedError, "\"erf_vml_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z.signbit(), NotImplementedError, "signbit is not implemented for complex tensors."),
])
def test_ops_that_refuse_complex_raise_pytorchs_error(fn, exc, message):
    with pytest.raises(exc, match=message) as info:
        fn(E.tensor([1 + 1j, 2 - 1j]))
    assert type(info.value).__name__ == exc.__name__  # what a program printing type(e).__name__ sees


def test_isnan_isfinite_and_conversions():
    z = E.tensor([complex(np.nan, 0), complex(0, np.inf), 1j])
    assert z.isnan().tolist() == [True, False, False] and z.isfinite().tolist() == [False, False, True]
    assert complex(E.tensor(1 + 2j)) == 1 + 2j and E.tensor([1 + 2j]).item() == 1 + 2j
    assert E.tensor([1.5, 2.0]).to(E.complex64).tolist() == [1.5 + 0j, 2 + 0j]
    assert E.ones(2).cfloat().dtype is E.complex64 and E.ones(2).cdouble().dtype is E.complex128


def test_var_std_and_norms_of_complex_are_real():
    a = np.array([[1 + 2j, 3 - 4j, 0.5j], [2, 1j, -1 - 1j]])
    z = E.from_numpy(a)
    np.testing.assert_allclose(z.var().numpy(), np.var(a, ddof=1))
    np.testing.assert_allclose(z.std(1, correction=0).numpy(), np.std(a, 1))
    assert z.var().dtype is E.float64 and E.var_mean(z, 1)[1].dtype is E.complex128
    np.testing.assert_allclose(z.norm().numpy(), np.linalg.norm(a))
    np.testing.assert_allclose(E.linalg.vector_norm(z, 3, 1).numpy(), np.sum(np.abs(a) ** 3, 1) ** (1 / 3))
    assert E.full((2,), 1j).dtype is E.complex64


def test_logsumexp_trace_and_inverse_of_complex_compute():
    a = np.array([[1 + 1j, 2j], [1, 1]], dtype=np.complex64)
    z = E.from_numpy(a)
    np.testing.assert_allclose(z.logsumexp(0).numpy(), np.log(np.exp(a).sum(0)), rtol=1e-6)
    np.testing.assert_allclose(z.trace().numpy(), np.trace(a))
    assert z.trace().dtype is E.complex64
    np.testing.assert_allclose(E.linalg.inv(z).numpy(), np.linalg.inv(a), rtol=1e-5)


def test_conjugate_transposes_and_vdot_conjugate():
    a = crand(2, 3)
    z = E.from_numpy(a)
    np.testing.assert_array_equal(z.mH.resolve_conj().numpy(), a.conj().T)
    np.testing.assert_array_equal(z.H.resolve_conj().numpy(), a.conj().T)
    np.testing.assert_array_equal(z.adjoint().resolve_conj().numpy(), a.conj().T)
    np.testing.assert_allclose(E.vdot(z[0], z[1]).numpy(), np.vdot(a[0], a[1]))
    r = E.ones(2, 3)
    assert r.mH.shape == (3, 2)


def test_type_names_and_python_number_conversions():
    assert E.tensor([1j]).type() == "torch.ComplexFloatTensor"
    assert E.ones(1).type("torch.ComplexDoubleTensor").dtype is E.complex128
    assert int(E.tensor(3 + 0j)) == 3 and float(E.tensor(2 + 0j)) == 2.0
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        float(E.tensor(1 + 1j))


def test_linspace_between_complex_ends():
    z = E.linspace(0, 1j, 3)
    assert z.dtype is E.complex64 and z.tolist() == [0j, 0.5j, 1j]
    assert E.linspace(0, 1, 3, dtype=E.complex128).tolist() == [0j, 0.5 + 0j, 1 + 0j]


def test_complex_numbers_written_into_real_tensors():
    x = E.ones(2)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        x[0] = 1j
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        E.ones(2, dtype=E.float64).fill_(2j)
    x[1] = 3 + 0j
    assert x.tolist() == [1.0, 3.0]


def test_copies_of_the_complex_views_and_in_place_conjugate():
    z = E.tensor([1 + 2j, 3 - 1j])
    r = E.view_as_real_copy(z)
    r[0, 0] = 9.0  # a copy: z is untouched
    assert z.tolist() == [1 + 2j, 3 - 1j] and r.tolist() == [[9.0, 2.0], [3.0, -1.0]]
    c = E.view_as_complex_copy(r)
    assert c.tolist() == [9 + 2j, 3 - 1j]
    out = E.empty(2, 2, dtype=E.float32)
    assert E.view_as_real_copy(z, out=out) is out and out.tolist() == [[1.0, 2.0], [3.0, -1.0]]
    assert E.conj_physical_(z) is z and z.tolist() == [1 - 2j, 3 + 1j]


_Z = np.array([[1 + 2j, -3 + 0.5j, 0.25 - 1j, 2 + 0j], [2 - 2j, 0.5 + 0.5j, -1 - 1j, 0.5j]], np.complex64)


def test_composites_compute_complex_input_as_numpy():
    """cov, corrcoef, vecdot, gradient, ldexp and float_power kept complex values complex (they cast them
    to real, or forgot vecdot's conjugate); the references are numpy's complex functions."""
    z = E.tensor(_Z)
    z64 = _Z.astype(np.complex128)
    np.testing.assert_allclose(E.cov(z).numpy(), np.cov(z64), rtol=1e-5)
    want = np.corrcoef(z64)
    want = np.clip(want.real, -1, 1) + 1j * np.clip(want.imag, -1, 1)
    np.testing.assert_allclose(E.corrcoef(z).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(E.linalg.vecdot(z, z.flip(1)).numpy(), np.sum(np.conj(z64) * z64[:, ::-1], -1),
                               rtol=1e-5)
    for got, ref in zip(E.gradient(z), np.gradient(z64), strict=True):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5)
    np.testing.assert_allclose(E.ldexp(z, E.tensor([[1, 2, 3, 0]] * 2)).numpy(), z64 * 2.0 ** np.array([1, 2, 3, 0]),
                               rtol=1e-6)
    r = E.float_power(z, 2)
    assert r.dtype == E.complex128
    np.testing.assert_allclose(r.numpy(), z64 ** 2, rtol=1e-12)


def test_log1p_keeps_the_digits_of_a_small_complex_number():
    """numpy's complex log1p is log(1 + z): 1e-9+1e-9j lost half its digits (PyTorch: 1.0000000000000003e-09)."""
    z = E.tensor([1e-9 + 1e-9j, 0.3 - 0.2j, 1e200 + 1e200j, 3 - 4j], dtype=E.complex128)
    got = E.log1p(z).tolist()
    assert got[0] == pytest.approx(1.0000000000000003e-09 + 9.99999999e-10j, rel=1e-15)
    for w, g in zip([cmath.log(1.3 - 0.2j), cmath.log(1e200 + 1e200j), cmath.log(4 - 4j)], got[1:], strict=True):
        assert g == pytest.approx(w, rel=1e-14)


def test_nan_to_num_cleans_the_real_and_imaginary_parts():
    """PyTorch cleans each part with the part dtype's limits; ember used to return complex NaNs unchanged."""
    inf, nan = float("inf"), float("nan")
    x = E.tensor([complex(nan, 1), complex(-inf, nan), complex(2, inf)], dtype=E.complex64)
    big = float(np.finfo(np.float32).max)
    assert E.nan_to_num(x).tolist() == [1j, complex(-big, 0), complex(2, big)]
    assert x.nan_to_num(nan=1.5, posinf=2.0, neginf=-3.0).tolist() == [1.5 + 1j, -3 + 1.5j, 2 + 2j]


@pytest.fixture
def fresh_complex_cast_warning(monkeypatch):
    """PyTorch warns of a complex -> real cast once per process: each test starts before that first one."""
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_complex_to_real_warned", False)


@pytest.mark.parametrize("cast", [
    lambda c: E.zeros(2).copy_(c), lambda c: c.to(E.float32), lambda c: c.float(),
    lambda c: E.zeros(2, dtype=E.int64).copy_(c), lambda c: c.to(E.bfloat16), lambda c: c.to(E.float8_e4m3fn),
    lambda c: c.to(E.uint16), lambda c: E.zeros(2).__setitem__(slice(None), c), lambda c: c.type_as(E.zeros(1)),
    lambda c: E.tensor(c, dtype=E.float64), lambda c: E.tensor(c.numpy(), dtype=E.float16),
    lambda c: c.to(E.complex32).to(E.float16), lambda c: E.bincount(E.tensor([0, 1]), weights=c),
], ids=["copy_", "to", "float", "copy_int", "bfloat16", "float8", "uint16", "setitem", "type_as", "tensor",
        "tensor_numpy", "complex32", "bincount_weights"])
@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_complex_to_real_casts_warn_once_per_process_as_pytorch(cast, fresh_complex_cast_warning):
    import warnings

    c = E.tensor([1.5 + 2j, -3 - 1j])
    for expected in (1, 0):  # the first cast warns, PyTorch's TORCH_WARN_ONCE; the next is silent
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = cast(c)
        assert [(w.category, str(w.message)) for w in caught
                if "ComplexHalf" not in str(w.message) and "copy construct" not in str(w.message)] == [
            (UserWarning, _DISCARDS)] * expected
    t = E.zeros(2)
    t.copy_(c)
    np.testing.assert_array_equal(t.numpy(), [1.5, -3.0])
    assert r is None or r.dtype is not E.complex64


def test_casts_to_bool_or_complex_do_not_warn(fresh_complex_cast_warning):
    import warnings

    c = E.tensor([1.5 + 2j, 0j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert c.to(E.bool).tolist() == [True, False]
        assert E.zeros(2, dtype=E.bool).copy_(c).tolist() == [True, False]
        assert c.to(E.complex128).dtype is E.complex128 and c.real.dtype is E.float32


@pytest.mark.parametrize("dtype, message", [(E.float32, "must be real number, not complex"),
                                            (E.float16, "must be real number, not complex"),
                                            (E.int64, "'complex' object cannot be interpreted as an integer")])
def test_python_complex_numbers_refuse_a_real_dtype(dtype, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        E.tensor([1.0, 2j], dtype=dtype)
    assert E.tensor([1.0, 2j], dtype=E.bool).tolist() == [True, True]


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("cast", [lambda c: c.to(E.float32), lambda c: E.zeros(2, device="cuda").copy_(c),
                                  lambda c: c.to(E.complex32).to(E.float16),
                                  lambda c: E.zeros(2, dtype=E.float16, device="cuda").copy_(c.to(E.complex32))],
                         ids=["to", "copy_", "complex32_to", "complex32_copy_"])
def test_cuda_casts_warn_once_as_on_the_cpu(cast, fresh_complex_cast_warning):
    import warnings

    c = E.tensor([1.5 + 2j, -3 - 1j], device="cuda")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = cast(c)
        cast(c)
    # (the simulator's kernels, numpy code, add numpy's ComplexWarnings: only PyTorch's UserWarning counts)
    assert [str(w.message) for w in caught if w.category is UserWarning and "ComplexHalf" not in str(w.message)] \
        == [_DISCARDS]
    assert r.cpu().tolist() == [1.5, -3.0]


def test_complex_fill_values_into_real_tensors_as_pytorch(fresh_complex_cast_warning):
    """A 0-dim complex tensor given to fill_ is copied (its real part, PyTorch's warning once); masked_fill
    converts the number (an imaginary part is an error, bool takes nonzero-ness); index_fill refuses any."""
    m, i = E.tensor([True, False]), E.tensor([0])
    with pytest.warns(UserWarning, match="^Casting complex values to real discards the imaginary part \\(Triggered "
                                         "internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                                         "Copy\\.cpp:307\\.\\)$"):
        assert E.zeros(2).fill_(E.tensor(1 + 2j)).tolist() == [1.0, 1.0]
    assert E.zeros(2, dtype=E.bool).fill_(E.tensor(2j)).tolist() == [True, True]
    assert E.zeros(2, dtype=E.int64).fill_(1 + 0j).tolist() == [1, 1]
    assert E.zeros(2, dtype=E.bool).fill_(2j).tolist() == [True, True]
    for value in (1 + 2j, E.tensor(1 + 2j)):
        with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
            E.zeros(2, dtype=E.int64).masked_fill_(m, value)
        assert E.zeros(2, dtype=E.bool).masked_fill(m, value).tolist() == [True, False]
    assert E.zeros(2).masked_fill_(m, E.tensor(3 + 0j)).tolist() == [3.0, 0.0]
    for value in (1 + 0j, E.tensor(1 + 0j)):
        with pytest.raises(RuntimeError, match=r"^index_fill_\(\): Converting complex Scalar to non-complex type is "
                                               "not supported$"):
            E.zeros(2).index_fill_(0, i, value)
    assert E.zeros(2, dtype=E.complex64).index_fill(0, i, 1 + 2j).tolist() == [1 + 2j, 0j]


def test_complex_angle_of_a_transposed_input_is_row_major_as_pytorch():
    z = E.tensor(np.arange(12).reshape(3, 4) + 1j * np.arange(12).reshape(3, 4)[::-1], dtype=E.complex64).t()
    r = E.angle(z)
    assert r.stride() == (3, 1) and r.dtype is E.float32
    np.testing.assert_allclose(r.numpy(), np.angle(z.numpy()), rtol=1e-6)
    assert E.angle(E.ones(3, 4).t()).stride() == (1, 4)  # a real input keeps its layout, as PyTorch's


def test_view_as_complex_of_a_0d_tensor_raises_pytorchs_message():
    with pytest.raises(RuntimeError, match="^Input tensor must have one or more dimensions$"):
        E.view_as_complex(E.tensor(1.0))
