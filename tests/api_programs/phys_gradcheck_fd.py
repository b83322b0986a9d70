"""Finite-difference checks as PINN authors run them before trusting a residual: central differences
against autograd for first and second derivatives, torch.autograd.gradcheck/gradgradcheck on float64
residual functions (fast_mode, raise_exception=False, check_batched_grad), a deliberately wrong
custom Function, and the float32 warning."""

import warnings

import torch
from torch.autograd import gradcheck, gradgradcheck

nn = torch.nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1)).double()


def u(z):
    return net(z).squeeze(-1)


z = torch.tensor([[0.3, 0.7], [-0.2, 0.1], [0.5, -0.4]], dtype=torch.float64, requires_grad=True)
g = torch.autograd.grad(u(z).sum(), z, create_graph=True)[0]
h = 1e-5
fd = torch.stack([(u(z + h * e) - u(z - h * e)) / (2 * h) for e in torch.eye(2, dtype=torch.float64)], 1)
print("first", (g - fd).abs().max().item() < 1e-8, g.round(decimals=4).tolist())
uxx = torch.autograd.grad(g[:, 0].sum(), z, create_graph=True)[0][:, 0]
ex = torch.tensor([1.0, 0.0], dtype=torch.float64)
h2 = 1e-4
fd2 = (u(z + h2 * ex) - 2 * u(z) + u(z - h2 * ex)) / h2**2
print("second", (uxx - fd2).abs().max().item() < 1e-5, uxx.round(decimals=4).tolist())


def residual(zz):
    uu = u(zz)
    gg = torch.autograd.grad(uu.sum(), zz, create_graph=True)[0]
    return gg[:, 1] + uu * gg[:, 0]


zc = z.detach().clone().requires_grad_()
print("gradcheck", gradcheck(residual, (zc,), eps=1e-6, atol=1e-5))
print("fast", gradcheck(residual, (zc,), fast_mode=True))
print("gradgradcheck", gradgradcheck(lambda a: (a.sin() * a.exp()).sum(1), (zc,)))
print("batched", gradcheck(lambda a: a.tanh() ** 2, (zc,), check_batched_grad=True))


class BadSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, go):
        (x,) = ctx.saved_tensors
        return go * x  # missing the factor 2


xa = torch.tensor([1.0, 2.0, -0.5], dtype=torch.float64, requires_grad=True)
print("bad no-raise", gradcheck(BadSquare.apply, (xa,), raise_exception=False))
try:
    gradcheck(BadSquare.apply, (xa,))
except Exception as e:
    print(type(e).__name__, "|", e)
    print("is RuntimeError", isinstance(e, RuntimeError))

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    xf = torch.tensor([1.0, 2.0], requires_grad=True)
    ok = gradcheck(lambda a: a * 3, (xf,), eps=1e-3, atol=1e-2, rtol=1e-2)
    print("float32 ok", ok, [str(m.message)[:70] for m in w][:1])

try:
    gradcheck(lambda a: a * 3, (torch.tensor([1.0, 2.0], dtype=torch.float64),))
except Exception as e:
    print(type(e).__name__, e)

# Richardson extrapolation of the FD error order
f = lambda x: torch.sin(3 * x)
x0 = torch.tensor(0.4, dtype=torch.float64)
errs = []
for hh in (1e-1, 5e-2, 2.5e-2):
    d = (f(x0 + hh) - f(x0 - hh)) / (2 * hh)
    errs.append((d - 3 * torch.cos(3 * x0)).abs().item())
print("orders", [round(torch.log2(torch.tensor(errs[i] / errs[i + 1])).item(), 2) for i in range(2)])
