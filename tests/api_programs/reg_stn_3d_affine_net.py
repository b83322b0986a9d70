"""A 3-D affine registration network: a localisation CNN (Conv3d, AdaptiveAvgPool3d, Linear initialised to the
identity) predicting Nx3x4 thetas for affine_grid/grid_sample in 5-D, every mode/padding/align_corners of 3-D
sampling, gradcheck of the sampler in float64, and a few SGD steps under a StepLR schedule."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
vol = torch.rand(2, 1, 4, 5, 6)
theta = torch.tensor([[[0.9, 0.1, 0.0, 0.1], [-0.1, 1.0, 0.05, 0.0], [0.0, 0.0, 1.1, -0.2]]]).repeat(2, 1, 1)
theta[1, :, 3] += 0.3

for ac in (False, True):
    grid = F.affine_grid(theta, (2, 1, 3, 4, 5), align_corners=ac)
    print("grid", ac, grid.shape, grid[0, 1, 2, 3].round(decimals=4).tolist())
    for mode in ("bilinear", "nearest"):
        for pm in ("zeros", "border", "reflection"):
            out = F.grid_sample(vol, grid * 1.3, mode=mode, padding_mode=pm, align_corners=ac)
            print(mode, pm, ac, round(out.sum().item(), 4), out[1, 0, 2, 1].round(decimals=4).tolist())

x64 = vol[:1, :, :3, :3, :3].double().requires_grad_(True)
g64 = (torch.rand(1, 2, 2, 2, 3, dtype=torch.float64) * 1.6 - 0.8).requires_grad_(True)
for pm in ("zeros", "border", "reflection"):
    ok = gradcheck(lambda a, b: F.grid_sample(a, b, padding_mode=pm, align_corners=False), (x64, g64))
    print("gradcheck", pm, ok)
th64 = theta[:1].double().requires_grad_(True)
print("gradcheck theta", gradcheck(lambda t: F.affine_grid(t, (1, 1, 2, 3, 2), align_corners=True), (th64,)))

print(
    "half",
    F.grid_sample(
        vol.half(), F.affine_grid(theta.half(), (2, 1, 2, 2, 2), align_corners=False), align_corners=False
    ).dtype,
)
cl = vol.contiguous(memory_format=torch.channels_last_3d)
o = F.grid_sample(cl, F.affine_grid(theta, (2, 1, 3, 4, 5), align_corners=False), align_corners=False)
print("channels_last_3d", o.shape, o.is_contiguous(), round(o.sum().item(), 4))


class AffineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(2, 4, 3, padding=1), nn.ReLU(True), nn.MaxPool3d(2, ceil_mode=True), nn.AdaptiveAvgPool3d(1)
        )
        self.fc = nn.Linear(4, 12)
        self.fc.weight.data.zero_()
        self.fc.bias.data.copy_(torch.eye(3, 4).flatten())

    def forward(self, fixed, moving):
        h = self.features(torch.cat([fixed, moving], 1)).flatten(1)
        th = self.fc(h).view(-1, 3, 4)
        grid = F.affine_grid(th, moving.shape, align_corners=False)
        return F.grid_sample(moving, grid, align_corners=False), th


net = AffineNet()
print(net)
fixed = vol
moving = F.grid_sample(vol, F.affine_grid(theta, vol.shape, align_corners=False), align_corners=False)
warped, th = net(fixed, moving)
print(
    "identity init",
    torch.allclose(warped, moving, atol=1e-6),
    th[0].round(decimals=4).tolist() == torch.eye(3, 4).tolist(),
)
opt = torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for step in range(5):
    opt.zero_grad()
    warped, th = net(fixed, moving)
    loss = F.mse_loss(warped, fixed)
    loss.backward()
    opt.step()
    sched.step()
    print(step, round(loss.item(), 5), round(net.fc.bias.grad.abs().sum().item(), 5), sched.get_last_lr())
print("theta", th[1].detach().round(decimals=3))
print(sched.state_dict())

cases = [
    lambda: F.grid_sample(vol, torch.zeros(2, 3, 4, 5, 2), align_corners=False),
    lambda: F.grid_sample(vol, torch.zeros(2, 3, 4, 3), align_corners=False),
    lambda: F.grid_sample(vol, torch.zeros(2, 1, 1, 1, 3), mode="bicubic", align_corners=False),
    lambda: F.affine_grid(theta, (2, 1, 3, 4, 5, 6), align_corners=False),
    lambda: F.affine_grid(theta[:, :2], (2, 1, 3, 4, 5), align_corners=False),
    lambda: F.affine_grid(theta, (2, 1, 0, 4, 5), align_corners=False),
    lambda: F.affine_grid(theta, (2, 1, 1, 4, 5), align_corners=True),
    lambda: net(fixed, moving[:1]),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", tuple(r.shape) if isinstance(r, torch.Tensor) else type(r).__name__)
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:200])
