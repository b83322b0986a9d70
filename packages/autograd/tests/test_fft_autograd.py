"""Derivatives of every `torch.fft` function: float64 finite differences (real and imaginary
directions of complex inputs), and PyTorch's values and gradients where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E

F = E.fft


def rin(*shape, seed: int = 0) -> E.Tensor:
    return E.from_numpy(np.random.default_rng(seed).standard_normal(shape)).requires_grad_()


def cin(*shape, seed: int = 0) -> E.Tensor:
    rng = np.random.default_rng(seed)
    return E.from_numpy(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).requires_grad_()


# (function name, input maker, keyword arguments): every function, with sizes that trim and pad
CASES = [
    ("fft", rin, {}), ("fft", cin, {"n": 7, "norm": "ortho"}), ("ifft", cin, {"n": 3, "dim": 0}),
    ("fft2", cin, {"s": (2, 6), "norm": "forward"}), ("ifft2", rin, {}), ("fftn", cin, {"dim": (0,)}),
    ("ifftn", cin, {"s": (5, 3), "norm": "ortho"}),
    ("rfft", rin, {}), ("rfft", rin, {"n": 8, "norm": "forward"}), ("irfft", cin, {}), ("irfft", cin, {"n": 7}),
    ("rfft2", rin, {"norm": "ortho"}), ("irfft2", cin, {"s": (3, 4)}), ("rfftn", rin, {"s": (4, 3)}),
    ("irfftn", cin, {"dim": (1, 0), "norm": "forward"}),
    ("hfft", cin, {}), ("hfft", cin, {"n": 5, "norm": "ortho"}), ("ihfft", rin, {"n": 6}),
    ("hfft2", cin, {"norm": "forward"}), ("ihfft2", rin, {}), ("hfftn", cin, {"s": (2, 5)}),
    ("ihfftn", rin, {"dim": (0, 1), "norm": "ortho"}),
    ("fftshift", cin, {}), ("ifftshift", rin, {"dim": 1}),
]


def _id(case) -> str:
    return f"{case[0]}-{case[1].__name__}-{'-'.join(f'{k}{v}' for k, v in case[2].items())}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_gradients_by_finite_differences(case):
    name, make, kw = case
    assert E.gradcheck(lambda x: getattr(F, name)(x, **kw), (make(3, 4),))


def test_double_backward_of_a_spectral_loss():
    x = rin(6)
    assert E.gradgradcheck(lambda x: F.rfft(x).abs().pow(2).sum(), (x,))


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_values_and_grads_match_pytorch(case):
    torch = pytest.importorskip("torch")
    name, make, kw = case
    x = make(3, 4, seed=3)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    y, ty = getattr(F, name)(x, **kw), getattr(torch.fft, name)(tx, **kw)
    assert y.dtype.name == str(ty.dtype).removeprefix("torch.")
    np.testing.assert_allclose(y.detach().resolve_conj().numpy(), ty.detach().resolve_conj().numpy(), rtol=1e-10,
                               atol=1e-12)
    w = np.random.default_rng(4).standard_normal(tuple(ty.shape))
    if ty.is_complex():
        w = w + 1j * np.random.default_rng(5).standard_normal(tuple(ty.shape))
    (y * E.from_numpy(w)).real.sum().backward()
    (ty * torch.from_numpy(w)).real.sum().backward()
    np.testing.assert_allclose(x.grad.resolve_conj().numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.torch
def test_float32_transforms_match_pytorch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(6).standard_normal((4, 8, 8)).astype(np.float32)
    for name in ("rfft2", "fft2", "ihfft2"):
        y, ty = getattr(F, name)(E.from_numpy(a)), getattr(torch.fft, name)(torch.from_numpy(a))
        assert y.dtype is E.complex64 and ty.dtype == torch.complex64
        np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(F.fftfreq(7, 0.2).numpy(), torch.fft.fftfreq(7, 0.2).numpy())
    np.testing.assert_allclose(F.rfftfreq(8).numpy(), torch.fft.rfftfreq(8).numpy())


def test_fft_of_a_real_signal_records_one_r2c_node_that_saves_its_input():
    """As PyTorch: the 1-D fft (and ifft, through a conjugate) of a real tensor is FftR2CBackward0 straight onto the
    leaf, and the node keeps its input, so a second backward through a freed graph raises."""
    u = rin(6)
    y = F.fft(u)
    assert y.grad_fn.name() == "FftR2CBackward0"
    assert y.grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")
    z = F.ifft(u)
    assert z.is_conj() and z.grad_fn.name() == "ConjBackward0"
    assert z.grad_fn.next_functions[0][0].name() == "FftR2CBackward0"
    (g,) = E.autograd.grad(y.real.sum(), u)
    np.testing.assert_allclose(g.numpy(), np.fft.fft(np.eye(6)).real.sum(0), atol=1e-12)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        E.autograd.grad((y * 2).abs().sum(), u)
    spec = F.rfft(u)
    E.autograd.grad(spec.real.sum(), u)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        E.autograd.grad(F.irfft(spec).sum(), u)


def test_n_and_s_trim_by_slices_and_pad_with_one_constant_pad():
    """PyTorch resizes a transform's input with a slice per trimmed dim and one constant_pad_nd over every padded
    dim, and the gradient flows back through both."""
    u = rin(2, 4)
    y = F.fft2(u, s=(3, 6))
    pad_node = y.grad_fn.next_functions[0][0]
    assert pad_node.name() == "ConstantPadNdBackward0"
    assert pad_node.next_functions[0][0].name() == "ToCopyBackward0"
    assert F.rfftn(u, s=(1, 6)).grad_fn.next_functions[0][0].name() == "ConstantPadNdBackward0"
    assert F.rfftn(u, s=(1, 6)).grad_fn.next_functions[0][0].next_functions[0][0].name() == "SliceBackward0"
    assert F.fft(u, n=2).grad_fn.next_functions[0][0].name() == "SliceBackward0"
    (g,) = E.autograd.grad(F.rfft(u, n=7).abs().sum(), u)
    want = np.zeros((2, 7))
    want[:, :4] = u.detach().numpy()
    eps = 1e-6
    num = np.zeros((2, 4))
    for i in range(2):
        for j in range(4):
            d = want.copy()
            d[i, j] += eps
            num[i, j] = (np.abs(np.fft.rfft(d)).sum() - np.abs(np.fft.rfft(want)).sum()) / eps
    np.testing.assert_allclose(g.numpy(), num, atol=1e-4)


@pytest.mark.parametrize(("call", "kernel"), [
    (lambda x, z: E.fft.fft(x, n=10, out=E.empty(0, dtype=E.complex64)), "_fft_r2c"),
    (lambda x, z: E.fft.rfft2(x, out=E.empty(0, dtype=E.complex64)), "_fft_r2c"),
    (lambda x, z: E.fft.fft(z, out=E.empty(0, dtype=E.complex64)), "_fft_c2c"),
    (lambda x, z: E.fft.fft2(x, out=E.empty(0, dtype=E.complex64)), "_fft_c2c"),
    (lambda x, z: E.fft.ihfftn(x, out=E.empty(0, dtype=E.complex64)), "_fft_c2c"),
    (lambda x, z: E.fft.irfft(z, out=E.empty(0)), "_fft_c2r"),
    (lambda x, z: E.fft.hfft2(z, out=E.empty(0)), "_fft_c2r"),
])
def test_out_refuses_inputs_that_require_grad_naming_the_primitive(call, kernel):
    x = E.randn(2, 8, requires_grad=True)
    z = E.randn(2, 8, dtype=E.complex64, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"^{kernel}\\(\\): functions with out=... arguments don't support "
                                           "automatic differentiation, but one of the arguments requires grad.$"):
        call(x, z)
    with E.no_grad():
        assert call(x, z).shape[0] == 2


def test_out_of_the_wrong_kind_is_refused_before_the_autograd_check():
    x = E.randn(2, 8, requires_grad=True)
    with pytest.raises(RuntimeError, match="^rfft expects a complex output tensor, but got Float$"):
        E.fft.rfft(x, out=E.empty(0))


@pytest.mark.parametrize(("fn", "message"), [
    (E.fft.rfft, "rfft expects a real input tensor, but got ComplexFloat"),
    (E.fft.rfft2, "rfftn expects a real-valued input tensor, but got ComplexFloat"),
    (E.fft.ihfftn, "Only supports floating-point dtypes, but found: ComplexFloat"),
])
def test_a_complex_input_to_a_real_transform_is_refused_before_the_autograd_check(fn, message):
    z = E.randn(2, 8, dtype=E.complex64, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        fn(z, out=E.empty(0, dtype=E.complex64))


@pytest.mark.parametrize(("fn", "n"), [(E.fft.ifft, 8), (E.fft.ihfft, 5)])
def test_ifft_and_ihfft_of_a_real_signal_into_out_leave_pytorchs_refusing_node(fn, n):
    """PyTorch conjugates the r2c result in `out` in place (conj_physical's out form, no derivative): `out`'s node is
    NotImplemented and its backward raises; the values are the transform's."""
    x = E.randn(8, dtype=E.float64, requires_grad=True)
    out = E.empty(n, dtype=E.complex128)
    assert fn(x, out=out) is out
    assert type(out.grad_fn).__name__ == "NotImplemented"
    np.testing.assert_allclose(out.detach().numpy(), fn(x.detach()).resolve_conj().numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="^derivative for aten::conj_physical is not implemented$"):
        out.abs().sum().backward()


@pytest.mark.parametrize(("fn", "want"), [(E.fft.fftfreq, [0.0, 0.25, -0.5, -0.25]),
                                          (E.fft.rfftfreq, [0.0, 0.25, 0.5])])
def test_frequencies_into_out_with_requires_grad_leave_out_a_leaf(fn, want):
    out = E.empty(len(want))
    assert fn(4, requires_grad=True, out=out) is out
    assert out.is_leaf and out.requires_grad and out.grad_fn is None and out.tolist() == want


def test_fftfreq_refuses_complex_as_pytorchs_arange():
    for kw in ({"dtype": E.complex64}, {"out": E.empty(4, dtype=E.complex64)}):
        with pytest.raises(NotImplementedError, match="^\"arange_cpu\" not implemented for 'ComplexFloat'$"):
            E.fft.fftfreq(4, **kw)
