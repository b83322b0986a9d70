"""3-D spatial transformers as medical-registration code writes them: affine matrices from rotation, scale and
translation, F.affine_grid/F.grid_sample on 5-D volumes (align_corners both ways, every padding mode, nearest),
gradients to theta and to the grid, a dense displacement field warp with an identity grid, a rigid registration
of two volumes by Adam on the affine parameters, NCC and smoothness losses, and the Jacobian determinant of
the deformation."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(21)
torch.set_printoptions(precision=4, sci_mode=False)

D = H = W = 10
z, y, x = torch.meshgrid(*(torch.linspace(-1, 1, n) for n in (D, H, W)), indexing="ij")
blob = torch.exp(-((x - 0.2) ** 2 / 0.1 + (y + 0.1) ** 2 / 0.2 + z**2 / 0.15))
vol = (blob + 0.5 * (x > 0.5).float() * (y < 0).float())[None, None]
print("volume", vol.shape, vol.dtype, round(vol.sum().item(), 4))


def affine_matrix(angles, scale, trans):
    """(B, 3) Euler angles, (B, 3) scales, (B, 3) translations -> (B, 3, 4)."""
    a, b, c = angles.unbind(-1)
    one, zero = torch.ones_like(a), torch.zeros_like(a)
    Rx = torch.stack([one, zero, zero, zero, a.cos(), -a.sin(), zero, a.sin(), a.cos()], -1).view(-1, 3, 3)
    Ry = torch.stack([b.cos(), zero, b.sin(), zero, one, zero, -b.sin(), zero, b.cos()], -1).view(-1, 3, 3)
    Rz = torch.stack([c.cos(), -c.sin(), zero, c.sin(), c.cos(), zero, zero, zero, one], -1).view(-1, 3, 3)
    A = Rz @ Ry @ Rx @ torch.diag_embed(scale)
    return torch.cat([A, trans.unsqueeze(-1)], -1)


theta = affine_matrix(torch.tensor([[0.0, 0.0, math.pi / 12]]), torch.tensor([[1.0, 1.1, 0.9]]),
                      torch.tensor([[0.1, -0.05, 0.0]]))
print("theta", theta)
for ac in (False, True):
    grid = F.affine_grid(theta, list(vol.shape), align_corners=ac)
    print("grid", grid.shape, "align_corners", ac, grid[0, 0, 0, :2])
    out = F.grid_sample(vol, grid, align_corners=ac)
    print("warped sum", round(out.sum().item(), 3))
for pm in ("zeros", "border", "reflection"):
    out = F.grid_sample(vol, grid * 1.3, padding_mode=pm, align_corners=False)
    print(pm, round(out.sum().item(), 4), out[0, 0, 5, 5, :4])
near = F.grid_sample(vol, grid, mode="nearest", align_corners=True)
print("nearest subset of input", torch.isin(near.unique(), torch.cat([vol.unique(), torch.zeros(1)])).all().item())

# identity transform reproduces the volume
ident = torch.eye(3, 4).unsqueeze(0)
same = F.grid_sample(vol, F.affine_grid(ident, list(vol.shape), align_corners=True), align_corners=True)
print("identity max err", round((same - vol).abs().max().item(), 6))

# gradients to theta and to the grid
th = theta.clone().requires_grad_(True)
g = F.affine_grid(th, list(vol.shape), align_corners=False)
g.retain_grad()
loss = F.grid_sample(vol, g, align_corners=False).mean()
loss.backward()
print("dloss/dtheta", th.grad.round(decimals=4) + 0.0)
print("grid grad", g.grad.shape, g.grad.abs().sum().round(decimals=4))

# dense displacement field: warp = identity grid + flow
flow = 0.05 * torch.randn(1, 3, D, H, W)
flow = F.avg_pool3d(flow, 3, stride=1, padding=1)
ident_grid = F.affine_grid(ident, [1, 1, D, H, W], align_corners=True)
warp = ident_grid + flow.permute(0, 2, 3, 4, 1)
moved = F.grid_sample(vol, warp, align_corners=True, padding_mode="border")
print("flow stats", flow.abs().mean().round(decimals=4), flow.shape)
print("moved", moved[0, 0, 5, 5, :5])

# Jacobian determinant of x -> x + u(x) by finite differences (in normalized units)
spacing = 2.0 / (W - 1)
phi = warp[0]
dz = (phi[2:, 1:-1, 1:-1] - phi[:-2, 1:-1, 1:-1]) / (2 * spacing)
dy = (phi[1:-1, 2:, 1:-1] - phi[1:-1, :-2, 1:-1]) / (2 * spacing)
dx = (phi[1:-1, 1:-1, 2:] - phi[1:-1, 1:-1, :-2]) / (2 * spacing)
J = torch.stack([dx, dy, dz], -1)
detJ = torch.linalg.det(J)
print("det J", detJ.shape, detJ.mean().round(decimals=4), (detJ <= 0).sum().item())


def ncc(a, b, eps=1e-5):
    a = a - a.mean()
    b = b - b.mean()
    return (a * b).sum() / (a.norm() * b.norm() + eps)


# rigid registration: recover the rotation and translation that made `target`
true_params = torch.tensor([0.1, -0.15, 0.2, 0.08, -0.05, 0.1])
target = F.grid_sample(
    vol, F.affine_grid(affine_matrix(true_params[None, :3], torch.ones(1, 3), true_params[None, 3:]),
                       list(vol.shape), align_corners=False), align_corners=False)
params = torch.zeros(6, requires_grad=True)
opt = torch.optim.Adam([params], lr=0.03)
for it in range(50):
    th = affine_matrix(params[None, :3], torch.ones(1, 3), params[None, 3:])
    moving = F.grid_sample(vol, F.affine_grid(th, list(vol.shape), align_corners=False), align_corners=False)
    loss = 1 - ncc(moving, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 10 == 0:
        print(f"reg {it:2d} 1-ncc {loss.item():.5f}")
print("params", params.detach(), "true", true_params)
print("param error", round((params.detach() - true_params).abs().max().item(), 2))

# smoothness regularizer on a learnable flow
u = torch.zeros(1, 3, D, H, W, requires_grad=True)


def smooth(u):
    return sum((torch.diff(u, dim=d) ** 2).mean() for d in (2, 3, 4))


opt = torch.optim.SGD([u], lr=50.0)
for it in range(3):
    w = ident_grid + u.permute(0, 2, 3, 4, 1)
    loss = F.mse_loss(F.grid_sample(vol, w, align_corners=True), target) + 0.1 * smooth(u)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"flow {it} loss {loss.item():.6f} |u| {u.detach().abs().max().item():.4f}")
