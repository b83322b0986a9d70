"""A Fourier neural operator layer (spectral convolution: rfft2, a complex weight on the low
modes, irfft2) built from ember.nn and ember.fft: gradients by finite differences, complex
parameters under the optimizers, and the training trajectory of PyTorch from the same weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.torch as et


def spectral_layer(lib):
    """A 2-D FNO block (Li et al.): y = irfft2(W . rfft2(x) on the lowest modes) + a 1x1 conv, then GELU."""
    nn = lib.nn

    class SpectralConv2d(nn.Module):
        def __init__(self, cin: int, cout: int, modes1: int, modes2: int) -> None:
            super().__init__()
            self.cout, self.m1, self.m2 = cout, modes1, modes2
            self.w1 = nn.Parameter(lib.zeros(cin, cout, modes1, modes2, dtype=lib.cfloat))
            self.w2 = nn.Parameter(lib.zeros(cin, cout, modes1, modes2, dtype=lib.cfloat))

        def forward(self, x):
            b, _, h, w = x.shape
            x_ft = lib.fft.rfft2(x, norm="ortho")
            out_ft = lib.zeros(b, self.cout, h, w // 2 + 1, dtype=lib.cfloat)
            out_ft[:, :, :self.m1, :self.m2] = lib.einsum("bixy,ioxy->boxy", x_ft[:, :, :self.m1, :self.m2], self.w1)
            out_ft[:, :, -self.m1:, :self.m2] = lib.einsum("bixy,ioxy->boxy", x_ft[:, :, -self.m1:, :self.m2], self.w2)
            return lib.fft.irfft2(out_ft, s=(h, w), norm="ortho")

    class FNOBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lift = nn.Conv2d(1, 4, 1)
            self.spectral = SpectralConv2d(4, 4, 3, 3)
            self.skip = nn.Conv2d(4, 4, 1)
            self.proj = nn.Conv2d(4, 1, 1)

        def forward(self, x):
            h = self.lift(x)
            h = nn.functional.gelu(self.spectral(h) + self.skip(h))
            return self.proj(h)

    return FNOBlock()


def _init(model, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    weights = {}
    for name, p in model.named_parameters():
        shape = tuple(p.shape)
        a = rng.uniform(-0.5, 0.5, shape)
        if p.is_complex():
            a = (a + 1j * rng.uniform(-0.5, 0.5, shape)) * 0.5
        weights[name] = a.astype(np.complex64 if p.is_complex() else np.float32)
        with et.no_grad():
            p.copy_(et.from_numpy(weights[name]))
    return weights


def _data(seed: int = 1):
    rng = np.random.default_rng(seed)
    xs = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    u = np.stack([np.sin(k * xs)[:, None] * np.cos(xs)[None, :] + 0.1 * rng.standard_normal((16, 16))
                  for k in (1, 2, 3, 1)])[:, None].astype(np.float32)
    target = np.roll(u, 2, axis=-1) * 0.5  # learn a shift: a spectral operator
    return u, target


def test_spectral_layer_gradients_by_finite_differences():
    x = et.randn(2, 2, 8, 6, dtype=et.float64, requires_grad=True)
    w = et.randn(2, 3, 2, 2, dtype=et.complex128, requires_grad=True)

    def layer(x, w):
        x_ft = et.fft.rfft2(x)
        out = et.zeros(2, 3, 8, 4, dtype=et.complex128)
        out[:, :, :2, :2] = et.einsum("bixy,ioxy->boxy", x_ft[:, :, :2, :2], w)
        return et.fft.irfft2(out, s=(8, 6))

    assert et.autograd.gradcheck(layer, (x, w))


def test_spectral_layer_trains_with_adam():
    model = spectral_layer(et)
    _init(model, 0)
    assert model.spectral.w1.dtype is et.complex64
    u, target = _data()
    x, y = et.from_numpy(u), et.from_numpy(target)
    opt = et.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = et.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert model.spectral.w1.grad.dtype is et.complex64
    assert losses[-1] < 0.7 * losses[0]


@pytest.mark.torch
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_spectral_layer_trains_as_pytorch(optimizer):
    torch = pytest.importorskip("torch")
    model, tmodel = spectral_layer(et), spectral_layer(torch)
    weights = _init(model, 0)
    with torch.no_grad():
        for name, p in tmodel.named_parameters():
            p.copy_(torch.from_numpy(weights[name]))
    u, target = _data()
    x, y = et.from_numpy(u), et.from_numpy(target)
    tx, ty = torch.from_numpy(u), torch.from_numpy(target)
    kw = {"lr": 1e-2} if optimizer == "Adam" else {"lr": 0.1, "momentum": 0.9}
    opt = getattr(et.optim, optimizer)(model.parameters(), **kw)
    topt = getattr(torch.optim, optimizer)(tmodel.parameters(), **kw)
    losses, tlosses = [], []
    for _ in range(6):
        for m, o, inp, tgt, rec, lib in ((model, opt, x, y, losses, et), (tmodel, topt, tx, ty, tlosses, torch)):
            o.zero_grad()
            loss = lib.nn.functional.mse_loss(m(inp), tgt)
            loss.backward()
            o.step()
            rec.append(loss.item())
    np.testing.assert_allclose(losses, tlosses, rtol=2e-4)
    for (name, p), tp in zip(model.named_parameters(), tmodel.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-3, atol=1e-5, err_msg=name)


@pytest.mark.cuda
def test_spectral_layer_on_cuda_matches_the_cpu():
    """Forward and backward of the spectral convolution on CUDA (complex gate, FFT through the host)."""
    if not et.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((2, 2, 8, 6))
    wa = rng.standard_normal((2, 3, 2, 2)) + 1j * rng.standard_normal((2, 3, 2, 2))

    def layer(x, w):
        x_ft = et.fft.rfft2(x)
        out = et.zeros(2, 3, 8, 4, dtype=et.complex128, device=x.device)
        out[:, :, :2, :2] = et.einsum("bixy,ioxy->boxy", x_ft[:, :, :2, :2], w)
        return et.fft.irfft2(out, s=(8, 6))

    results = []
    for device in ("cpu", "cuda"):
        x = et.tensor(xa, device=device, requires_grad=True)
        w = et.tensor(wa, device=device, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the FFT's host round trip
            y = layer(x, w)
            (y * y).sum().backward()
        results.append([t.detach().cpu().numpy() for t in (y, x.grad, w.grad)])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, atol=1e-12)
