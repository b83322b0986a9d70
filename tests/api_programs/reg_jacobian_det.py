"""Jacobian determinants of dense deformations: finite-difference Jacobians (torch.gradient, central slicing),
batched 3x3 determinants with linalg.det/slogdet and the explicit cofactor formula, folding statistics, and the
exact Jacobian of an analytic map with torch.func.jacfwd/jacrev/vmap and torch.autograd.functional."""

import torch
from torch.func import jacfwd, jacrev, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
D, H, W = 4, 5, 6
disp = 0.4 * torch.randn(1, 3, D, H, W, dtype=torch.float64)
grid = torch.stack(torch.meshgrid(*[torch.arange(s, dtype=torch.float64) for s in (D, H, W)], indexing="ij"))
phi = grid + disp[0]

J = torch.stack([torch.stack(torch.gradient(phi[i]), dim=0) for i in range(3)], dim=0)
print("J", J.shape, J[:, :, 1, 2, 3].round(decimals=4))
Jm = J.permute(2, 3, 4, 0, 1)
det = torch.linalg.det(Jm)
print("det", det.shape, det.dtype, round(det.mean().item(), 4), round(det.min().item(), 4), (det <= 0).sum().item())
sign, logabs = torch.linalg.slogdet(Jm)
print("slogdet", sign.unique().tolist(), torch.allclose(sign * logabs.exp(), det))
sd = torch.slogdet(Jm[0, 0, 0])
print(type(sd).__name__, sd.sign.item(), round(sd.logabsdet.item(), 4), torch.det(Jm[0, 0, 0]).round(decimals=4))
a = Jm
cof = (
    a[..., 0, 0] * (a[..., 1, 1] * a[..., 2, 2] - a[..., 1, 2] * a[..., 2, 1])
    - a[..., 0, 1] * (a[..., 1, 0] * a[..., 2, 2] - a[..., 1, 2] * a[..., 2, 0])
    + a[..., 0, 2] * (a[..., 1, 0] * a[..., 2, 1] - a[..., 1, 1] * a[..., 2, 0])
)
print("cofactor", torch.allclose(cof, det), (cof - det).abs().max().item() < 1e-12)
print(
    "fold %",
    round(100 * (det <= 0).double().mean().item(), 3),
    "std log",
    round(det.clamp_min(1e-9).log().std().item(), 4),
)

# central differences by slicing (interior only) in float32
d32 = disp.float()
dx = (d32[:, :, 2:, 1:-1, 1:-1] - d32[:, :, :-2, 1:-1, 1:-1]) / 2
dy = (d32[:, :, 1:-1, 2:, 1:-1] - d32[:, :, 1:-1, :-2, 1:-1]) / 2
dz = (d32[:, :, 1:-1, 1:-1, 2:] - d32[:, :, 1:-1, 1:-1, :-2]) / 2
Jd = torch.stack([dx, dy, dz], dim=2) + torch.eye(3).view(1, 3, 3, 1, 1, 1)
det32 = torch.linalg.det(Jd.permute(0, 3, 4, 5, 1, 2))
print("interior", det32.shape, det32.dtype, torch.allclose(det32.double(), det[1:-1, 1:-1, 1:-1][None], atol=1e-5))

# gradients of a folding penalty through det
x = disp.clone().requires_grad_(True)
Jx = torch.stack([torch.stack(torch.gradient((grid + x[0])[i]), 0) for i in range(3)], 0).permute(2, 3, 4, 0, 1)
pen = torch.relu(-torch.linalg.det(Jx) + 0.1).sum()
pen.backward()
print("penalty", round(pen.item(), 4), round(x.grad.abs().sum().item(), 4), x.grad[0, :, 1, 1, 1].round(decimals=4))


# an analytic deformation and its exact Jacobian
def warp(p):
    return p + 0.3 * torch.stack([torch.sin(p[1]), torch.cos(p[2]) * p[0], p[0] * p[1]])


pts = torch.randn(5, 3, dtype=torch.float64)
Jf = vmap(jacfwd(warp))(pts)
Jr = vmap(jacrev(warp))(pts)
print("jacfwd==jacrev", Jf.shape, torch.allclose(Jf, Jr), torch.linalg.det(Jf).round(decimals=4))
Ja = torch.autograd.functional.jacobian(warp, pts[0])
print("functional", torch.allclose(Ja, Jf[0]), Ja.round(decimals=4))
Jv = torch.autograd.functional.jacobian(lambda p: warp(p.T).T, pts, vectorize=True)
print("batched full", Jv.shape, torch.allclose(Jv[2, :, 2, :], Jf[2]), Jv[0, :, 1].abs().sum().item())
hv = torch.autograd.functional.hessian(lambda p: warp(p).sum(), pts[0])
print("hessian", hv.round(decimals=4))
ld = vmap(lambda p: torch.linalg.slogdet(jacfwd(warp)(p))[1])(pts)
print("vmap logdet", ld.round(decimals=4))
print(torch.linalg.det(torch.zeros(0, 3, 3)).shape, torch.linalg.det(torch.eye(2, dtype=torch.complex64) * 1j))
print(
    torch.linalg.det(torch.tensor([[1.0, 2.0], [2.0, 4.0]])),
    torch.linalg.slogdet(torch.tensor([[1.0, 2.0], [2.0, 4.0]])),
)

cases = [
    lambda: torch.linalg.det(torch.randn(3, 4)),
    lambda: torch.linalg.det(torch.tensor(1.0)),
    lambda: torch.linalg.det(torch.eye(3, dtype=torch.int64)),
    lambda: torch.det(torch.eye(3).half()),
    lambda: torch.gradient(torch.zeros(3, 1)),
    lambda: torch.gradient(torch.zeros(3, 4), dim=2),
    lambda: torch.gradient(torch.zeros(3, 4), dim=(0, 0)),
    lambda: torch.linalg.slogdet(torch.randn(2, 3)),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", r)
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:160])
