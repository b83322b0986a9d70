"""Complex tensors as spectral code prints and inspects them: reprs of complex64/complex128 spectra (small, large,
with inf/nan, sci-notation, summarised), complex Parameters and grads, complex dtypes and promotion, torch.complex/
polar constructors, .real/.imag views and writes, conj views, and complex reductions."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.tensor([0.5, 1.0, 2.0, 3.25, 2.0, 1.0, 0.0, -1.5])
X = torch.fft.fft(x)
print(X)
print(torch.fft.rfft(x, norm="ortho"))
print(torch.fft.fft(x.double()))
print(torch.fft.fft2(torch.tensor([[0.0, 1.0, 2.5], [3.0, 4.0, 5.5]])))
print(torch.fft.fft(torch.arange(40.0)) * 1e-6)
print(torch.fft.fft(torch.arange(3.0)) * 1e5)
print(torch.tensor([1 + 1j, float("inf") - 2j, complex(float("nan"), 1.0), -0.0 + 0j]))
print(torch.fft.fft(torch.arange(2000.0, dtype=torch.float64)))
print(torch.complex(torch.tensor([1.5, -2.0]), torch.tensor([0.25, 3.0])))
print(torch.polar(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([0.0, math.pi / 2], dtype=torch.float64)))
print(torch.zeros(2, 2, dtype=torch.cfloat), torch.ones(1, dtype=torch.complex128))
print(torch.tensor(3 + 4j), torch.tensor(3 + 4j).abs(), torch.tensor([1j]).dtype)
w = nn.Parameter(torch.tensor([[0.5 + 0.5j, -1j]]))
print(w)
w.abs().sum().backward()
print(w.grad)
print(torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=True)))
print(torch.fft.fft(x.requires_grad_(True)))

print(
    "dtypes",
    torch.cfloat,
    torch.cdouble,
    torch.complex32,
    torch.chalf,
    torch.cfloat.to_real(),
    torch.float64.to_complex(),
)
print(
    "promote",
    (torch.ones(2, dtype=torch.cfloat) * torch.ones(2, dtype=torch.float64)).dtype,
    (torch.ones(2, dtype=torch.cfloat) + 1.5).dtype,
    (torch.ones(2) * 1j).dtype,
    (torch.ones(2, dtype=torch.float64) * 1j).dtype,
    torch.result_type(torch.ones(1, dtype=torch.int32), 2j),
    torch.promote_types(torch.complex64, torch.float64),
)
print(
    "is_complex",
    X.is_complex(),
    X.is_floating_point(),
    X.element_size(),
    X.real.dtype,
    X.imag.stride(),
    X.real.is_contiguous(),
)

z = torch.zeros(3, dtype=torch.cfloat)
z.real.fill_(2.0)
z.imag[1] = -1.0
print("real/imag writes", z, torch.view_as_real(z).tolist())
zc = z.conj()
print("conj", zc.is_conj(), zc, zc.imag)
zc.imag.mul_(2)
print("conj imag write", z)
print("conj_physical", torch.conj_physical(z), torch.conj_physical(z).is_conj())
print("real of real", torch.real(torch.ones(2)), torch.ones(2).conj() is not None)
print("abs/angle", X.abs().round(decimals=4), X.angle().round(decimals=4))
print("sum/mean", X.sum(), X.mean(), X.prod().abs() > 0, round(torch.vdot(X, X).real.item(), 3))
print("cumsum", torch.cumsum(X[:3], 0))
print("sort by abs", torch.sort(X.abs(), descending=True).indices.tolist())
print("isclose", torch.isclose(X, X + 1e-9).all(), torch.allclose(X, X.conj().conj()))
print("eq", (X == X.conj()).tolist())
print("tolist", torch.tensor([1 + 2j, 3 - 1j]).tolist(), torch.tensor(2 - 1j).item())
print("numpy", torch.fft.fft(torch.ones(2)).numpy().dtype, torch.from_numpy(X.numpy()).dtype)
print("to real warn-free", X.real.clone().dtype, torch.real(X).shape)
for name, fn in [
    ("to float", lambda: X.to(torch.float32)),
    ("max", lambda: X.max()),
    ("lt", lambda: X < X),
    ("clamp", lambda: X.clamp(0, 1)),
    ("relu", lambda: torch.relu(X)),
    ("floor", lambda: X.floor()),
    ("imag of real", lambda: torch.ones(2).imag),
    ("complex int", lambda: torch.complex(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))),
    ("complex mixed", lambda: torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64))),
    ("view_as_complex strides", lambda: torch.view_as_complex(torch.ones(4, 2).t().contiguous().t())),
    ("argmax", lambda: X.argmax()),
]:
    try:
        r = fn()
        print(name, "ok", r.dtype)
    except Exception as e:
        print(name, type(e).__name__, e)
