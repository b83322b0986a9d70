"""Finite-difference and quadrature tools PINN papers compare against: torch.gradient with scalar, per-dim and
coordinate spacings and edge_order=2, torch.diff with n and prepend/append, conv1d/conv2d Laplacian stencils with
replicate and circular padding, trapezoid/cumulative_trapezoid/simpson-by-hand, and their argument errors."""

import math

import torch

F = torch.nn.functional
torch.set_printoptions(precision=4, sci_mode=False)

x = torch.linspace(0, math.pi, 9, dtype=torch.float64)
u = torch.sin(x)
(g1,) = torch.gradient(u, spacing=x[1] - x[0])
(g2,) = torch.gradient(u, spacing=(x,), edge_order=2)
print("gradient", g1.round(decimals=4).tolist())
print(
    "edge2 ends", round(g2[0].item(), 4), round(g2[-1].item(), 4), "interior same", torch.allclose(g1[1:-1], g2[1:-1])
)
xn = torch.tensor([0.0, 0.1, 0.3, 0.6, 1.0], dtype=torch.float64)
(gn,) = torch.gradient(xn**2, spacing=(xn,))
print("nonuniform", gn.tolist())
(gn2,) = torch.gradient(xn**2, spacing=(xn,), edge_order=2)
print("nonuniform edge2", gn2.round(decimals=6).tolist())

X, Y = torch.meshgrid(torch.arange(4.0), torch.arange(5.0), indexing="ij")
Z = X**2 + 3 * X * Y
gx, gy = torch.gradient(Z, spacing=[1.0, 0.5])
print("2-D", gx[1].tolist(), gy[1].tolist())
(only_y,) = torch.gradient(Z, dim=1)
print("dim=1", only_y[2].tolist())
gxy = torch.gradient(Z, spacing=2.0, dim=(0, 1))
print("dims tuple", len(gxy), gxy[0][0].tolist())

print("diff", torch.diff(u, n=2).round(decimals=4).tolist()[:4])
print("prepend", torch.diff(torch.tensor([1, 4, 9]), prepend=torch.tensor([0]), append=torch.tensor([16, 25])).tolist())
print("diff dim0", torch.diff(Z, dim=0)[:, 0].tolist())

# stencil convolutions: 1-D second derivative and the 5-point Laplacian
h = (x[1] - x[0]).item()
k1 = torch.tensor([[[1.0, -2.0, 1.0]]], dtype=torch.float64) / h**2
uxx = F.conv1d(F.pad(u.view(1, 1, -1), (1, 1), mode="replicate"), k1).view(-1)
print(
    "u_xx interior err",
    round((uxx[1:-1] + u[1:-1]).abs().max().item(), 4),
    "ends",
    uxx[[0, -1]].round(decimals=4).tolist(),
)
lap_k = torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]]).view(1, 1, 3, 3)
field = torch.arange(16.0).view(1, 1, 4, 4) ** 2 / 10
print("lap circular", F.conv2d(F.pad(field, (1, 1, 1, 1), mode="circular"), lap_k).view(4, 4)[0].tolist())
print("lap reflect", F.conv2d(F.pad(field, (1, 1, 1, 1), mode="reflect"), lap_k).view(4, 4)[1].tolist())
print("lap zeros", F.conv2d(field, lap_k, padding=1).view(4, 4)[3].tolist())
print("lap same", F.conv2d(field, lap_k, padding="same").shape)

# quadrature
print("trapz", round(torch.trapezoid(u, x).item(), 6), round(torch.trapezoid(u, dx=h).item(), 6))
ct = torch.cumulative_trapezoid(u, x)
print("cumtrapz", tuple(ct.shape), round(ct[-1].item(), 6), round(torch.cumulative_trapezoid(u, dx=h)[3].item(), 6))
w = torch.ones(9, dtype=torch.float64)
w[1:-1:2], w[2:-1:2] = 4, 2
print("simpson", round((h / 3 * (w * u).sum()).item(), 8))
print("trapz 2d", torch.trapezoid(Z, dim=0).tolist(), torch.trapezoid(Z, dx=0.5, dim=-1).tolist())

for label, fn in [
    ("edge_order 3", lambda: torch.gradient(u, edge_order=3)),
    ("too short", lambda: torch.gradient(torch.tensor([1.0]))),
    ("edge2 short", lambda: torch.gradient(torch.tensor([1.0, 2.0]), edge_order=2)),
    ("spacing len", lambda: torch.gradient(Z, spacing=[1.0, 2.0, 3.0])),
    ("coord len", lambda: torch.gradient(u, spacing=(x[:4],))),
    ("diff n", lambda: torch.diff(u, n=-1)),
    ("trapz x shape", lambda: torch.trapezoid(u, x[:5])),
    ("reflect big pad", lambda: F.pad(field, (4, 4, 0, 0), mode="reflect")),
    ("circular pad", lambda: F.pad(field.view(4, 4), (1, 1), mode="circular")),
]:
    try:
        r = fn()
        print(label, "ok", r if not isinstance(r, torch.Tensor) else tuple(r.shape))
    except Exception as e:
        print(label, type(e).__name__, e)
