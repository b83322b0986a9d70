"""Normalisation layers of volumetric networks: InstanceNorm3d with and without running statistics, BatchNorm3d with
cumulative (momentum=None) averages and eval switching, GroupNorm for small batches, SyncBatchNorm conversion on a
single process, and a whole 3-D block cast to bfloat16/float16 as low-precision inference does."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(2, 4, 3, 5, 6) * 2 + 0.5

inn = nn.InstanceNorm3d(4, affine=True, track_running_stats=True, momentum=0.2)
print(inn, sorted(inn.state_dict().keys()))
y = inn(x)
print(
    "instance train",
    round(y.mean().item(), 4),
    round(y.std().item(), 4),
    inn.running_mean.round(decimals=4).tolist(),
    inn.running_var.round(decimals=4).tolist(),
    inn.num_batches_tracked.item(),
)
inn.eval()
print("instance eval", round(inn(x).sum().item(), 3), round(inn(x[:1]).std().item(), 4))
plain = nn.InstanceNorm3d(4)
print("plain", plain.running_mean, round(plain(x).abs().sum().item(), 2), plain(x[0]).shape)
print(
    "functional",
    round(F.instance_norm(x, eps=1e-3).abs().sum().item(), 2),
    round(
        F.instance_norm(x, running_mean=torch.zeros(4), running_var=torch.ones(4), use_input_stats=False).sum().item(),
        3,
    ),
)

bn = nn.BatchNorm3d(4, momentum=None)
for k in range(3):
    bn(x * (k + 1))
print(
    "cumulative",
    bn.running_mean.round(decimals=4).tolist(),
    bn.running_var.round(decimals=3).tolist(),
    bn.num_batches_tracked.item(),
)
bn.eval()
print("bn eval", round(bn(x).sum().item(), 3), bn.training, bn(x).grad_fn.name() if x.requires_grad else None)
bn.train()
bn.reset_running_stats()
print("reset", bn.running_mean.tolist(), bn.num_batches_tracked.item())

gn = nn.GroupNorm(2, 4, eps=1e-5)
with torch.no_grad():
    gn.weight.copy_(torch.tensor([1.0, 0.5, 2.0, 1.5]))
    gn.bias.copy_(torch.tensor([0.0, 0.1, -0.1, 0.2]))
out = gn(x)
print(gn, "groupnorm", round(out.sum().item(), 3), out[0, :, 0, 0, 0].round(decimals=4).tolist())
print("gn batch independent", torch.allclose(gn(x[:1]), out[:1], atol=1e-6))

seq = nn.Sequential(nn.Conv3d(4, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU())
sync = nn.SyncBatchNorm.convert_sync_batchnorm(seq)
print(type(sync[1]).__name__, sync[1])
print("modules", [type(m).__name__ for m in sync.modules()])


class Block(nn.Module):
    def __init__(self, norm):
        super().__init__()
        self.conv = nn.Conv3d(4, 4, 3, padding=1, bias=False)
        self.norm = norm

    def forward(self, t):
        return F.leaky_relu(self.norm(self.conv(t)), 0.01)


for norm in (nn.InstanceNorm3d(4, affine=True), nn.BatchNorm3d(4), nn.GroupNorm(2, 4)):
    torch.manual_seed(1)
    blk = Block(norm)
    with torch.no_grad():
        blk.norm.weight.mul_(1.3)
        blk.norm.bias.add_(0.1)
    ref = blk(x)
    for dt in (torch.bfloat16, torch.float16):
        low = Block(
            type(norm)(
                *((4,) if not isinstance(norm, nn.GroupNorm) else (2, 4)),
                **({"affine": True} if isinstance(norm, nn.InstanceNorm3d) else {}),
            )
        )
        low.load_state_dict(blk.state_dict())
        low = low.to(dt)
        y = low(x.to(dt))
        err = (y.float() - ref).abs().max().item()
        print(type(norm).__name__, dt, y.dtype, err < 0.1, round(y.float().sum().item(), 1))
    if isinstance(norm, nn.BatchNorm3d):
        print("bf16 running", low.norm.running_mean.dtype, low.norm.num_batches_tracked.dtype)

for bad in [
    lambda: nn.BatchNorm3d(4)(torch.randn(1, 4, 1, 1, 1)),
    lambda: nn.BatchNorm3d(4)(torch.randn(2, 4, 3, 3)),
    lambda: nn.InstanceNorm3d(4)(torch.randn(2, 4, 1, 1, 1)),
    lambda: nn.GroupNorm(3, 4),
    lambda: nn.GroupNorm(2, 4)(torch.randn(2, 6, 3)),
    lambda: F.instance_norm(x, weight=torch.ones(3)),
    lambda: F.batch_norm(x, torch.zeros(4), torch.ones(4), weight=torch.ones(4).double()),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
