"""Nonlinear Schrodinger PINN (Raissi's i h_t + 0.5 h_xx + |h|^2 h = 0) with the network's two outputs viewed as a
complex field: view_as_complex/view_as_real, complex residuals from autograd of the real and imaginary parts,
|h|^2 through abs/conj, a real loss whose gradient flows back through complex ops, and complex-grad conventions."""

import math

import torch

nn = torch.nn
torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2)).double()
x = torch.linspace(-5, 5, 8, dtype=torch.float64).unsqueeze(1).requires_grad_()
t = torch.full((8, 1), 0.3, dtype=torch.float64).requires_grad_()


def D(f, v):
    return torch.autograd.grad(f, v, torch.ones_like(f), create_graph=True)[0]


out = net(torch.cat([x, t], 1))
h = torch.view_as_complex(out.contiguous())
print("h", h.dtype, tuple(h.shape), h.grad_fn.name())
u, v = out[:, :1], out[:, 1:]
u_t, v_t, u_x, v_x = D(u, t), D(v, t), D(u, x), D(v, x)
u_xx, v_xx = D(u_x, x), D(v_x, x)
h_t = torch.complex(u_t, v_t).squeeze(1)
h_xx = torch.complex(u_xx, v_xx).squeeze(1)
mod2 = (h * h.conj()).real
print("|h|^2 == abs^2", torch.allclose(mod2, h.abs() ** 2), torch.allclose(mod2, (u**2 + v**2).squeeze(1)))
f = 1j * h_t + 0.5 * h_xx + mod2 * h
print("f", f.dtype, f.grad_fn.name(), f[:3])
loss = (f.abs() ** 2).mean()
print("loss", round(loss.item(), 4))
loss.backward()
print("grad dtype", net[0].weight.grad.dtype, round(net[0].weight.grad.norm().item(), 4))
ar = torch.view_as_real(f)
print("view_as_real", tuple(ar.shape), ar.grad_fn.name(), torch.allclose((ar**2).sum(-1).mean(), loss))

# initial condition h(0, x) = 2 sech(x)
x0 = torch.linspace(-5, 5, 6, dtype=torch.float64)
h0 = 2 / torch.cosh(x0)
pred0 = torch.view_as_complex(net(torch.stack([x0, torch.zeros_like(x0)], 1)).contiguous())
ic = (pred0 - h0).abs().pow(2).mean()
print("ic", round(ic.item(), 4), "polar", torch.polar(h0, torch.zeros_like(h0)).dtype)

# complex autograd conventions: grad of a real function of z is conj Wirtinger * 2
z = torch.tensor([1.0 + 2.0j, -0.5 + 0.5j], dtype=torch.complex128, requires_grad=True)
(z.abs() ** 2).sum().backward()
print("d|z|^2", z.grad)
z.grad = None
(z * z.conj()).real.sum().backward()
print("d zz*", z.grad)
z.grad = None
torch.angle(z).sum().backward()
print("d angle", z.grad)
w = torch.tensor([0.3 + 0.1j], dtype=torch.complex128, requires_grad=True)
y = torch.exp(1j * w) * w
g = torch.autograd.grad(y, w, grad_outputs=torch.ones_like(y), create_graph=True)[0]
print("holomorphic grad", g, g.grad_fn.name() if g.grad_fn is not None else None)

# Fourier split-step reference on a periodic grid
N, L = 32, 10.0
xs = torch.linspace(-L / 2, L / 2, N + 1, dtype=torch.float64)[:-1]
k = 2 * math.pi * torch.fft.fftfreq(N, d=L / N, dtype=torch.float64)
psi = (2 / torch.cosh(xs)).to(torch.complex128)
dt = 0.01
for _ in range(20):
    psi = psi * torch.exp(1j * psi.abs() ** 2 * dt)
    psi = torch.fft.ifft(torch.exp(-0.5j * k**2 * dt) * torch.fft.fft(psi))
print(
    "norm kept",
    round((psi.abs() ** 2).sum().item() * L / N, 4),
    round((4 / torch.cosh(xs) ** 2).sum().item() * L / N, 4),
)
print("peak", round(psi.abs().max().item(), 4), psi.dtype)
for label, fn in [
    ("view_as_complex shape", lambda: torch.view_as_complex(torch.ones(3, 3))),
    ("view_as_complex stride", lambda: torch.view_as_complex(torch.ones(2, 4)[:, ::2])),
    ("complex real grad", lambda: torch.autograd.grad(f, x, torch.ones_like(f))),
    ("backward complex", lambda: f.sum().backward()),
    ("complex mixed", lambda: torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64))),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, e)
