"""torch.special and torch.fft as their reference pages show them: every special function on a fixed grid (with
float32/float64 and integer-input dtypes, edge values, and the docstring examples), then fft/ifft/rfft/irfft/
fft2/fftn/hfft/ihfft with n=, s=, dim= and each norm=, fftfreq/rfftfreq/fftshift, and the errors of misuse."""

import numpy as np
import torch
from torch import fft, special as S


def r(x, k=6):
    x = torch.as_tensor(x)
    if x.is_complex():
        x = torch.view_as_real(x.resolve_conj())
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


x = torch.linspace(-2.5, 2.5, 11, dtype=torch.float64)
pos = torch.linspace(0.25, 6.0, 9, dtype=torch.float64)
unit = torch.linspace(0.05, 0.95, 7, dtype=torch.float64)
for name in ["erf", "erfc", "erfcx", "expit", "expm1", "exp2", "log_ndtr", "ndtr", "sinc", "i0", "i0e", "i1", "i1e",
             "bessel_j0", "bessel_j1", "airy_ai", "spherical_bessel_j0", "modified_bessel_i0", "modified_bessel_i1",
             "entr", "round"]:
    print(name, r(getattr(S, name)(x), 11))
for name in ["digamma", "gammaln", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
             "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "log1p"]:
    print(name, r(getattr(S, name)(pos), 9))
for name in ["erfinv", "logit", "ndtri"]:
    print(name, r(getattr(S, name)(unit), 7))
print("logit eps", r(S.logit(torch.tensor([0.0, 0.5, 1.0]), eps=1e-6)), r(S.logit(torch.tensor([0.0, 1.0]))))
print("polygamma", r(S.polygamma(1, pos), 5), r(S.polygamma(3, pos[:3])), r(S.psi(pos[:3])))
print("multigammaln", r(S.multigammaln(pos + 2, 3), 5))
print("zeta", r(S.zeta(torch.tensor([2.0, 3.0, 4.0]), torch.tensor([1.0, 2.0, 0.5]))), r(S.zeta(2.0, pos[:3])))
print("gammainc", r(S.gammainc(pos[:4], pos[4:8])), r(S.gammaincc(pos[:4], pos[4:8])))
print("xlogy", r(S.xlogy(torch.tensor([0.0, 0.0, 2.0, 3.0]), torch.tensor([0.0, float("nan"), 4.0, 0.5]))),
      r(S.xlogy(2, torch.tensor([3.0]))), r(S.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 1.0]))))
t = torch.linspace(-1, 1, 5, dtype=torch.float64)
for name in ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
             "hermite_polynomial_h", "hermite_polynomial_he", "legendre_polynomial_p", "laguerre_polynomial_l",
             "shifted_chebyshev_polynomial_t"]:
    print(name, r(getattr(S, name)(t, 3), 5), r(getattr(S, name)(t, torch.tensor([0, 1, 2, 4, 5])), 5))
z = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
print("softmax", r(S.softmax(z, 1)), r(S.log_softmax(z, 0)), r(S.logsumexp(z, 1)),
      S.softmax(z, 1, dtype=torch.float64).dtype)
print("dtypes", S.erf(torch.arange(3)).dtype, S.expit(torch.tensor([1], dtype=torch.int32)).dtype,
      S.i0(torch.ones(2, dtype=torch.float16)).dtype, S.gammaln(torch.tensor([True])).dtype,
      S.xlogy(torch.tensor([2]), torch.tensor([3])).dtype, S.ndtr(torch.ones(1, dtype=torch.bfloat16)).dtype)
print("edges", r(S.erfinv(torch.tensor([-1.0, 1.0, 1.5]))), r(S.gammaln(torch.tensor([0.0, -1.0, -0.5]))),
      r(S.digamma(torch.tensor([0.0, -1.0, -0.0]))), r(S.entr(torch.tensor([-1.0, 0.0, float("inf")]))),
      r(S.sinc(torch.tensor([0.0]))), r(S.i0(torch.tensor([float("inf")]))), r(S.round(torch.tensor([0.5, 1.5, -2.5]))))
xg = pos[:3].clone().requires_grad_()
(S.gammaln(xg) + S.erf(xg) + S.i0(xg) + S.xlogy(xg, xg)).sum().backward()
print("grad", r(xg.grad))
err(lambda: S.polygamma(-1, pos))
err(lambda: S.multigammaln(pos, 3))
err(lambda: S.zeta(torch.tensor([2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0])))
err(lambda: S.chebyshev_polynomial_t(t, torch.tensor([1, 2])))
err(lambda: S.logsumexp(z))

# torch.fft
sig = torch.tensor([0.0, 1.0, 2.0, 3.0, 2.0, -1.0, 0.5, 1.5], dtype=torch.float64)
print("fft", r(fft.fft(sig), 8), fft.fft(sig).dtype, fft.fft(sig.float()).dtype)
for norm in ("backward", "ortho", "forward"):
    Xn = fft.fft(sig, norm=norm)
    print("norm", norm, r(Xn, 4), torch.allclose(fft.ifft(Xn, norm=norm).real, sig))
print("ifft of real", fft.ifft(sig).is_conj(), fft.ihfft(sig).is_conj(), fft.ifft(sig.cdouble()).is_conj(),
      fft.ifft(torch.arange(4.0)))
err(lambda: torch.view_as_real(fft.ifft(sig)))
print("n=", r(fft.fft(sig, n=5), 4), tuple(fft.fft(sig, n=12).shape), r(fft.ifft(sig, n=4), 4))
print("rfft", r(fft.rfft(sig), 10), tuple(fft.rfft(sig).shape), tuple(fft.rfft(sig, n=9).shape))
print("irfft", r(fft.irfft(fft.rfft(sig)), 8), tuple(fft.irfft(fft.rfft(sig), n=7).shape),
      tuple(fft.irfft(fft.rfft(sig)).shape), tuple(fft.irfft(fft.rfft(sig[:7])).shape))
print("odd round trip", r(fft.irfft(fft.rfft(sig[:7]), n=7), 7))
img = torch.arange(12, dtype=torch.float64).reshape(3, 4)
print("fft2", r(fft.fft2(img), 8), tuple(fft.fft2(img, s=(4, 6)).shape))
print("fftn", torch.allclose(fft.fftn(img), fft.fft2(img)), r(fft.fftn(img, dim=(0,)), 4),
      r(fft.fftn(img, s=(2,), dim=(1,)), 4))
print("rfft2", tuple(fft.rfft2(img).shape), r(fft.irfft2(fft.rfft2(img), s=img.shape), 12))
print("rfftn", tuple(fft.rfftn(torch.ones(2, 3, 4)).shape), tuple(fft.irfftn(fft.rfftn(torch.ones(2, 3, 4))).shape))
print("ifft2/ifftn", torch.allclose(fft.ifft2(fft.fft2(img)).real, img),
      torch.allclose(fft.ifftn(fft.fftn(img)).real, img))
herm = fft.ihfft(sig)
print("ihfft", r(herm, 6), tuple(herm.shape), r(fft.hfft(herm, n=8), 8))
print("hfft", tuple(fft.hfft(torch.ones(5, dtype=torch.complex128)).shape),
      r(fft.hfft(torch.tensor([1.0, 2j, 3]), n=5), 5))
print("hfft2", tuple(fft.hfft2(torch.ones(3, 3, dtype=torch.complex128)).shape), tuple(fft.ihfft2(img).shape),
      tuple(fft.ihfftn(img).shape), tuple(fft.hfftn(fft.ihfftn(img), s=img.shape).shape))
print("dim=", r(fft.fft(img, dim=0), 4), tuple(fft.rfft(img, dim=0).shape))
print("fftfreq", fft.fftfreq(5).tolist(), fft.fftfreq(4, d=0.5).tolist(), fft.fftfreq(3, dtype=torch.float64).dtype)
print("rfftfreq", fft.rfftfreq(5).tolist(), fft.rfftfreq(6, 2.0).tolist())
f = fft.fftfreq(6)
print("fftshift", fft.fftshift(f).tolist(), fft.ifftshift(fft.fftshift(f)).tolist())
print("shift dims", fft.fftshift(torch.arange(12).reshape(3, 4), dim=1).tolist(),
      fft.fftshift(torch.arange(6).reshape(2, 3)).tolist())
print("int input", fft.fft(torch.arange(4)).dtype, fft.rfft(torch.arange(4)).dtype,
      fft.fft(torch.ones(4, dtype=torch.complex64)).dtype)
err(lambda: fft.fft(sig, norm="none"))
err(lambda: fft.fft(sig, n=0))
err(lambda: fft.rfft(torch.ones(4, dtype=torch.complex64)))
err(lambda: fft.fft2(sig))
err(lambda: fft.fftn(img, s=(2, 3), dim=(0,)))
err(lambda: fft.fft(sig, dim=2))
err(lambda: fft.irfft(torch.ones(1, dtype=torch.complex128)))
err(lambda: fft.ifft(sig, dim=(0,)))
err(lambda: fft.rfft(sig, n=-1))
err(lambda: fft.rfft2(img.cfloat()))
err(lambda: S.polygamma(1.5, pos))
err(lambda: S.log_softmax(z))
print("fftfreq d=0", fft.fftfreq(3, d=0).tolist(), fft.rfftfreq(-2).shape)
