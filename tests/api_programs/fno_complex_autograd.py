"""Complex autograd as spectral code meets it: gradients of real losses of complex tensors through abs/angle/real/
imag/conj/polar/view_as_real/view_as_complex, fft round trips, complex Parameters under SGD/Adam, grad_fn names."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)


def c(t):
    t = t.detach().resolve_conj()
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.double().flatten()[:6].round(decimals=4).tolist()


z = torch.tensor([1 + 2j, -0.5 + 0.3j, 3 - 1j, 0.2 - 2.5j], requires_grad=True)
for name, fn in [
    ("abs", lambda z: z.abs().sum()),
    ("abs2", lambda z: (z * z.conj()).real.sum()),
    ("angle", lambda z: z.angle().sum()),
    ("real", lambda z: (z.real ** 2).sum()),
    ("imag", lambda z: (z.imag * torch.arange(4.0)).sum()),
    ("conj", lambda z: (z.conj() * (1 + 1j)).real.sum()),
    ("sgn", lambda z: torch.sgn(z).imag.sum()),
    ("exp", lambda z: torch.exp(z).abs().sum()),
    ("log", lambda z: torch.log(z).imag.sum()),
    ("sqrt", lambda z: torch.sqrt(z).real.sum()),
    ("reciprocal", lambda z: z.reciprocal().real.sum()),
    ("square", lambda z: z.square().abs().pow(2).sum()),
    ("view_as_real", lambda z: torch.view_as_real(z).pow(3).sum()),
]:
    z.grad = None
    loss = fn(z)
    loss.backward()
    print(name, round(loss.item(), 4), c(z.grad), z.grad.dtype)

mag = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
ph = torch.tensor([0.0, math.pi / 3, -1.0], requires_grad=True)
p = torch.polar(mag, ph)
print("polar", c(p), p.grad_fn.name(), p.dtype)
(p.real.sum() + 2 * p.imag.sum()).backward()
print("polar grads", c(mag.grad), c(ph.grad))

ri = torch.randn(3, 4, 2, requires_grad=True)
zc = torch.view_as_complex(ri)
print("view_as_complex", zc.shape, zc.grad_fn.name(), zc._base is ri)
(zc.abs() ** 2).sum().backward()
print("vac grad", torch.allclose(ri.grad, 2 * ri), c(ri.grad))

x = torch.randn(2, 16, requires_grad=True)
X = torch.fft.rfft(x, norm="ortho")
energy = X.abs().pow(2)
energy[:, 1:-1].sum().mul(2).add(energy[:, [0, -1]].sum()).backward()
print("parseval grad", torch.allclose(x.grad, 2 * x, atol=1e-5), X.grad_fn.name())
x.grad = None
y = torch.fft.irfft(torch.fft.rfft(x) * torch.exp(-0.1 * torch.arange(9.0)), n=16)
y.pow(2).sum().backward()
print("filter grad", c(x.grad), y.grad_fn.name())
x.grad = None
Y = torch.fft.fft(x)
(Y.real.sum() + Y.imag.abs().sum()).backward()
print("fft grad", c(x.grad), Y.grad_fn.name())
x.grad = None
H = torch.fft.hfft(torch.fft.ihfft(x), n=16)
(H * torch.linspace(0, 1, 16)).sum().backward()
print("hfft grad", c(x.grad), H.grad_fn.name())

w = nn.Parameter(torch.randn(4, dtype=torch.cfloat))
print("param", w.dtype, w.requires_grad, type(w).__name__)
target = torch.tensor([1 + 1j, -1j, 2.0 + 0j, 0.5 - 0.5j])
for opt_cls, kw in [(torch.optim.SGD, dict(lr=0.1, momentum=0.9)), (torch.optim.Adam, dict(lr=0.1)),
                    (torch.optim.AdamW, dict(lr=0.1, weight_decay=0.1)), (torch.optim.RMSprop, dict(lr=0.05))]:
    with torch.no_grad():
        w.copy_(torch.zeros(4, dtype=torch.cfloat))
    opt = opt_cls([w], **kw)
    for _ in range(5):
        opt.zero_grad()
        loss = (w - target).abs().pow(2).sum()
        loss.backward()
        opt.step()
    print(opt_cls.__name__, round(loss.item(), 4), c(w))

a = torch.randn(3, 3, dtype=torch.cfloat, requires_grad=True)
b = torch.randn(3, dtype=torch.cfloat)
out = (a @ b).abs().sum()
out.backward()
print("matmul", round(out.item(), 4), c(a.grad))
a.grad = None
torch.einsum("ij,j->i", a, b).angle().sum().backward()
print("einsum angle", c(a.grad))
print("is_conj", b.conj().is_conj(), b.conj().resolve_conj().is_conj(), torch.is_complex(b.real))
try:
    z.abs().backward(torch.ones(4))
    torch.ones(2, dtype=torch.cfloat, requires_grad=True).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.view_as_complex(torch.randn(3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.polar(torch.ones(2, dtype=torch.float64), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
