"""Orthogonal polynomial bases as spectral-method and KAN code uses them: torch.special's Chebyshev T/U/V/W,
shifted Chebyshev, Legendre, Hermite (physicists' and probabilists'), Laguerre, the recurrences by hand, Clenshaw,
Chebyshev-Gauss nodes with a DCT via FFT, a Chebyshev KAN layer trained a few steps, and the errors."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)
sp = torch.special
x = torch.linspace(-1, 1, 7, dtype=torch.float64)
for n in (0, 1, 2, 5, 9):
    print("T", n, sp.chebyshev_polynomial_t(x, n).round(decimals=4).tolist())
    print("U", n, sp.chebyshev_polynomial_u(x, n).round(decimals=4).tolist())
print("V", sp.chebyshev_polynomial_v(x, 3).round(decimals=4).tolist())
print("W", sp.chebyshev_polynomial_w(x, 3).round(decimals=4).tolist())
xs = torch.linspace(0, 1, 5)
print("shifted T", sp.shifted_chebyshev_polynomial_t(xs, 4).round(decimals=4).tolist())
print("shifted U", sp.shifted_chebyshev_polynomial_u(xs, 3).round(decimals=4).tolist())
print("shifted V", sp.shifted_chebyshev_polynomial_v(xs, 2).round(decimals=4).tolist())
print("shifted W", sp.shifted_chebyshev_polynomial_w(xs, 2).round(decimals=4).tolist())
print("P", sp.legendre_polynomial_p(x, 4).round(decimals=4).tolist())
print("H", sp.hermite_polynomial_h(x, 3).round(decimals=4).tolist())
print("He", sp.hermite_polynomial_he(x, 4).round(decimals=4).tolist())
print("L", sp.laguerre_polynomial_l(torch.tensor([0.0, 0.5, 2.0, 5.0]), 3).round(decimals=4).tolist())
print("tensor n", sp.chebyshev_polynomial_t(torch.tensor(0.3), torch.tensor([0, 1, 2, 3])).round(decimals=4).tolist())
print("broadcast", tuple(sp.legendre_polynomial_p(x[:, None], torch.arange(4.0)).shape))
print("outside", sp.chebyshev_polynomial_t(torch.tensor([1.5, -2.0]), 3).tolist(),
      sp.chebyshev_polynomial_t(torch.tensor([0.5]), -1).tolist())
print("dtypes", sp.chebyshev_polynomial_t(torch.tensor([0.5]), 2).dtype,
      sp.legendre_polynomial_p(torch.tensor([1, 2]), 2).dtype, sp.hermite_polynomial_h(x.float(), 2).dtype)
print("large n", round(sp.chebyshev_polynomial_t(torch.tensor(0.3, dtype=torch.float64), 50).item(), 4),
      round(math.cos(50 * math.acos(0.3)), 4))


def cheb_recurrence(x, n):
    T = [torch.ones_like(x), x]
    for _ in range(2, n + 1):
        T.append(2 * x * T[-1] - T[-2])
    return torch.stack(T[: n + 1], dim=-1)


V = cheb_recurrence(x, 5)
ref = torch.stack([sp.chebyshev_polynomial_t(x, k) for k in range(6)], dim=-1)
print("recurrence", torch.allclose(V, ref), tuple(V.shape))


def clenshaw(coef, x):
    b1, b2 = torch.zeros_like(x), torch.zeros_like(x)
    for c in coef.flip(0)[:-1]:
        b1, b2 = 2 * x * b1 - b2 + c, b1
    return x * b1 - b2 + coef[0]


coef = torch.tensor([0.5, -1.0, 0.25, 0.125], dtype=torch.float64)
print("clenshaw", clenshaw(coef, x).round(decimals=4).tolist(), torch.allclose(clenshaw(coef, x), ref[:, :4] @ coef))

N = 16
k = torch.arange(N, dtype=torch.float64)
nodes = torch.cos(math.pi * (k + 0.5) / N)
f = torch.exp(nodes) * torch.sin(3 * nodes)
ext = torch.cat([f, f.flip(0)])
F_ = torch.fft.fft(ext)[:N]
shift = torch.exp(-1j * math.pi * k / (2 * N))
a = (F_ * shift).real / N
a[0] = a[0] / 2
print("cheb coeffs", a[:6].round(decimals=4).tolist())
xe = torch.linspace(-0.9, 0.9, 5, dtype=torch.float64)
approx = clenshaw(a, xe)
print("interp err", round((approx - torch.exp(xe) * torch.sin(3 * xe)).abs().max().item(), 8) < 1e-8)
gl = torch.tensor([-0.8611363116, -0.3399810436, 0.3399810436, 0.8611363116], dtype=torch.float64)
wts = torch.tensor([0.3478548451, 0.6521451549, 0.6521451549, 0.3478548451], dtype=torch.float64)
gram = torch.stack([sp.legendre_polynomial_p(gl, i) for i in range(4)])
print("legendre gram", ((gram * wts) @ gram.T).round(decimals=4).diag().tolist())


class ChebyKAN(nn.Module):
    def __init__(self, din, dout, degree):
        super().__init__()
        self.degree = degree
        self.coeffs = nn.Parameter(torch.empty(din, dout, degree + 1))
        nn.init.normal_(self.coeffs, std=1 / (din * (degree + 1)))
        self.register_buffer("arange", torch.arange(0, degree + 1, 1))

    def forward(self, x):
        x = torch.tanh(x)
        x = x.view(-1, x.shape[-1], 1).expand(-1, -1, self.degree + 1)
        x = x.acos().mul(self.arange).cos()
        return torch.einsum("bid,iod->bo", x, self.coeffs)


layer = ChebyKAN(2, 1, 4)
X = torch.rand(32, 2) * 2 - 1
Y = (torch.sin(math.pi * X[:, :1]) * X[:, 1:]).detach()
opt = torch.optim.LBFGS(layer.parameters(), lr=0.5, max_iter=5)


def closure():
    opt.zero_grad()
    loss = (layer(X) - Y).pow(2).mean()
    loss.backward()
    return loss


for i in range(3):
    print("kan", i, round(opt.step(closure).item(), 4))
xg = torch.tensor([0.3, -0.7], requires_grad=True)
try:
    sp.chebyshev_polynomial_t(xg, 3).sum().backward()
    print("grad", xg.grad)
except Exception as e:
    print(type(e).__name__, e)
try:
    sp.chebyshev_polynomial_t(torch.tensor([0.5], dtype=torch.cfloat), 2)
except Exception as e:
    print(type(e).__name__, e)
