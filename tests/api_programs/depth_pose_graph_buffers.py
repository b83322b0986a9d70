"""Pose-graph and bundle-adjustment bookkeeping as SLAM code writes it: camera poses built from eye(4).repeat and
filled in place with rotations that require grad, frame pairs from torch.combinations, relative poses and residuals
through preallocated buffers and their views, sliding windows with roll, affine_grid's node for a learned warp, and
the graph PyTorch records for all of it."""

import torch

F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


def so3_exp(w):
    theta = w.norm(dim=-1, keepdim=True).clamp_min(1e-8)[..., None]
    k = w / theta[..., 0]
    zero = torch.zeros_like(k[..., 0])
    Kx = torch.stack([zero, -k[..., 2], k[..., 1], k[..., 2], zero, -k[..., 0], -k[..., 1], k[..., 0], zero], -1).view(
        *w.shape[:-1], 3, 3
    )
    return torch.eye(3) + theta.sin() * Kx + (1 - theta.cos()) * Kx @ Kx


N = 4
omega = (0.05 * torch.arange(1, 3 * N + 1, dtype=torch.float32).view(N, 3).sin()).requires_grad_(True)
trans = torch.linspace(0, 0.3, 3 * N).view(N, 3).requires_grad_(True)
poses = torch.eye(4).repeat(N, 1, 1)
print("repeat", poses.shape, poses.is_contiguous(), poses._base is None, poses.requires_grad)
poses[:, :3, :3] = so3_exp(omega)
poses[:, :3, 3] = trans
print("filled", poses.grad_fn.name(), poses.is_leaf, s(poses[1, :3], 8))
tiled = torch.eye(4).tile((2, 1, 1))
print("tile", tiled._base is None, tiled.shape)

pairs = torch.combinations(torch.arange(N), r=2)
print("pairs", pairs.tolist(), pairs.dtype, pairs._base is None)
print(
    "with replacement",
    torch.combinations(torch.tensor([1.0, 2.0, 3.0]), 2, with_replacement=True).shape,
    torch.combinations(torch.arange(3), 3).tolist(),
    torch.combinations(torch.arange(3), 0).shape,
)
w = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
cw = torch.combinations(w)
print("combinations grad", cw.grad_fn.name(), cw._base is None)
cw.prod(1).sum().backward()
print("dw", w.grad.tolist())

rel = torch.linalg.inv(poses[pairs[:, 0]]) @ poses[pairs[:, 1]]
meas = rel.detach() + 0.01 * torch.randn(len(pairs), 4, 4)
res = torch.zeros(len(pairs), 6)
rot_part = res[:, :3]
trans_part = res[:, 3:]
R_err = meas[:, :3, :3].transpose(1, 2) @ rel[:, :3, :3]
res[:, :3] = (
    torch.stack([R_err[:, 2, 1] - R_err[:, 1, 2], R_err[:, 0, 2] - R_err[:, 2, 0], R_err[:, 1, 0] - R_err[:, 0, 1]], -1)
    / 2
)
res[:, 3:] = rel[:, :3, 3] - meas[:, :3, 3]
print("residual views", rot_part.requires_grad, rot_part.grad_fn.name(), trans_part.is_leaf)
loss = rot_part.pow(2).sum() + 0.5 * trans_part.pow(2).sum()
loss.backward()
print("loss", round(loss.item(), 6), "domega", s(omega.grad, 6), "dtrans", s(trans.grad, 6))

window = torch.arange(6.0).view(1, 6)
window_roll = window.roll(-1)
print("roll", window_roll.tolist(), window_roll._base is None, window.roll(1, 1).tolist())
hist = torch.zeros(5, 3)
view_last = hist[-1]
hist[:] = torch.roll(hist, -1, 0)
hist[-1] = trans[0] * 2
print("history", view_last.requires_grad, view_last.grad_fn.name(), s(view_last, 3))
view_last.sum().backward()
print("dtrans0", s(trans.grad[0], 3))

theta = torch.tensor([[[1.0, 0.1, 0.0], [-0.1, 1.0, 0.05]]], requires_grad=True)
grid = F.affine_grid(theta, (1, 1, 3, 4), align_corners=False)
print("affine", grid.grad_fn.name(), [type(n).__name__ for n, _ in grid.grad_fn.next_functions], grid._base is None)
img = torch.arange(12.0).view(1, 1, 3, 4)
out = F.grid_sample(img, grid, align_corners=False)
(dtheta,) = torch.autograd.grad(out.sum(), theta, create_graph=True)
print("dtheta", s(dtheta, 6), dtheta.grad_fn is not None)
rot = torch.arange(6.0).view(2, 3).rot90()
print("rot90", rot.tolist(), rot.stride(), rot.is_contiguous())
try:
    torch.combinations(torch.ones(2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.eye(3).repeat(2)
except Exception as e:
    print(type(e).__name__, e)
