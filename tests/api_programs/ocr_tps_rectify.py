"""ASTER's thin-plate-spline rectification as its reference code writes it: fiducial control points on the top
and bottom edges, the TPS kernel U(r) = r^2 log r^2 with a masked zero diagonal, the inverse of the padded
system matrix computed once and stored as a buffer, a sampling grid from predicted control points, grid_sample
with border padding, a tanh-bounded localisation head, and gradients reaching the control points."""

import torch
from torch import nn

F = torch.nn.functional

torch.manual_seed(0)


def build_control_points(k, margins=(0.05, 0.05)):
    mx, my = margins
    xs = torch.linspace(mx, 1.0 - mx, k // 2)
    top = torch.stack([xs, torch.full_like(xs, my)], 1)
    bottom = torch.stack([xs, torch.full_like(xs, 1.0 - my)], 1)
    return torch.cat([top, bottom], 0)


def tps_kernel(a, b):
    d2 = torch.cdist(a, b).pow(2)
    return torch.where(d2 == 0, torch.zeros_like(d2), 0.5 * d2 * torch.log(d2.clamp_min(1e-12)))


class TPS(nn.Module):
    def __init__(self, out_size, k):
        super().__init__()
        self.out_size = out_size
        c = build_control_points(k).double()
        K = tps_kernel(c, c)
        n = k
        L = torch.zeros(n + 3, n + 3, dtype=torch.float64)
        L[:n, :n] = K
        L[:n, n] = 1
        L[:n, n + 1 :] = c
        L[n, :n] = 1
        L[n + 1 :, :n] = c.t()
        self.register_buffer("inv_L", torch.linalg.inv(L).float())
        H, W = out_size
        yy, xx = torch.meshgrid(torch.linspace(0.02, 0.98, H), torch.linspace(0.02, 0.98, W), indexing="ij")
        tgt = torch.stack([xx.flatten(), yy.flatten()], 1)
        U = tps_kernel(tgt.double(), c)
        rep = torch.cat([U, torch.ones(H * W, 1, dtype=torch.float64), tgt.double()], 1)
        self.register_buffer("repr_matrix", rep.float())
        self.register_buffer("padding", torch.zeros(3, 2))
        self.cond = torch.linalg.cond(L).item()

    def forward(self, img, src_ctrl):
        N = img.size(0)
        Y = torch.cat([src_ctrl, self.padding.expand(N, 3, 2)], 1)
        mapping = torch.matmul(self.inv_L, Y)
        src = torch.matmul(self.repr_matrix, mapping)  # (N, H*W, 2) in [0, 1]
        grid = src.view(N, *self.out_size, 2) * 2 - 1
        return F.grid_sample(img, grid, padding_mode="border", align_corners=True), grid


K = 8
tps = TPS((4, 10), K)
print("buffers", [(n, tuple(b.shape)) for n, b in tps.named_buffers()], "cond>1", tps.cond > 1)
ctrl = build_control_points(K)
print("ctrl", ctrl.round(decimals=4).tolist())
img = torch.rand(2, 1, 8, 20)
out, grid = tps(img, ctrl.expand(2, K, 2))
print("identity grid range", round(grid.min().item(), 4), round(grid.max().item(), 4), tuple(out.shape))
# with the target points equal to the source, the mapping interpolates the control points exactly
m = tps.inv_L @ torch.cat([ctrl, torch.zeros(3, 2)])
pts = torch.cat([tps_kernel(ctrl.double(), ctrl.double()).float(), torch.ones(K, 1), ctrl], 1) @ m
print("reproduces controls", torch.allclose(pts, ctrl, atol=1e-4))
print("affine part", (m[K:].round(decimals=4) + 0.0).tolist())

head = nn.Sequential(nn.Conv2d(1, 4, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2 * K))
nn.init.zeros_(head[-1].weight)
with torch.no_grad():
    head[-1].bias.copy_(torch.atanh(ctrl * 2 - 1).flatten())
pred = (torch.tanh(head(img)).view(-1, K, 2) + 1) / 2
print("pred == ctrl", torch.allclose(pred[0], ctrl, atol=1e-5))
bent = pred + torch.tensor([0.0, 0.05]) * torch.linspace(-1, 1, K)[None, :, None]
rect, g = tps(img, bent)
loss = (rect - 0.5).pow(2).mean()
loss.backward()
print("rectified", round(rect.sum().item(), 4), round(loss.item(), 4))
print("bias grad", head[-1].bias.grad.view(K, 2).round(decimals=4).tolist())
print("weight grad norm", round(head[-1].weight.grad.norm().item(), 4))
print("kernel at 0", tps_kernel(torch.zeros(1, 2), torch.zeros(1, 2)).item())
print("kernel sym", torch.allclose(tps_kernel(ctrl, ctrl), tps_kernel(ctrl, ctrl).t()))
print(
    "solve agrees",
    torch.allclose(
        torch.linalg.solve(torch.linalg.inv(tps.inv_L.double()), torch.eye(K + 3, dtype=torch.float64)).float(),
        tps.inv_L,
        atol=1e-3,
    ),
)
