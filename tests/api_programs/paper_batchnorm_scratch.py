"""Batch normalization (Ioffe & Szegedy 2015) written from scratch and checked against nn.BatchNorm1d/2d: running
statistics with momentum and with momentum=None (cumulative average), eval mode, affine=False, track_running_stats
off, num_batches_tracked, batch renormalization (Ioffe 2017) with its r/d clipping, and the errors of bad inputs."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2015)


def arr(*s, scale=1.0, shift=0.0):
    return torch.from_numpy((rng.standard_normal(s) * scale + shift).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


class ScratchBN(nn.Module):
    """Algorithm 1 of the paper with the unbiased running variance PyTorch keeps."""

    def __init__(self, c, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.gamma = nn.Parameter(torch.ones(c))
        self.beta = nn.Parameter(torch.zeros(c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_var", torch.ones(c))
        self.register_buffer("steps", torch.tensor(0, dtype=torch.long))

    def forward(self, x):
        dims = [0] + list(range(2, x.dim()))
        shape = [1, -1] + [1] * (x.dim() - 2)
        if self.training:
            mu = x.mean(dim=dims)
            var = x.var(dim=dims, unbiased=False)
            n = x.numel() / x.size(1)
            with torch.no_grad():
                self.steps += 1
                m = 1.0 / self.steps.item() if self.momentum is None else self.momentum
                self.running_mean.mul_(1 - m).add_(mu, alpha=m)
                self.running_var.mul_(1 - m).add_(var * n / (n - 1), alpha=m)
        else:
            mu, var = self.running_mean, self.running_var
        xhat = (x - mu.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        return self.gamma.view(shape) * xhat + self.beta.view(shape)


for momentum in (0.1, None):
    ref = nn.BatchNorm2d(3, momentum=momentum)
    mine = ScratchBN(3, momentum=momentum)
    with torch.no_grad():
        w = torch.from_numpy(rng.uniform(0.5, 1.5, 3).astype(np.float32))
        b = torch.from_numpy(rng.uniform(-0.2, 0.2, 3).astype(np.float32))
        ref.weight.copy_(w), ref.bias.copy_(b), mine.gamma.copy_(w), mine.beta.copy_(b)
    for step in range(4):
        x = arr(4, 3, 5, 5, scale=1.0 + step, shift=0.5 * step)
        xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
        ya, yb = ref(xa), mine(xb)
        (ya * torch.arange(3.0).view(1, 3, 1, 1)).pow(2).mean().backward()
        (yb * torch.arange(3.0).view(1, 3, 1, 1)).pow(2).mean().backward()
        print(
            "bn",
            momentum,
            step,
            round((ya - yb).abs().max().item(), 4),
            r(ya),
            torch.allclose(xa.grad, xb.grad, atol=1e-5),
        )
    print("running", momentum, r(ref.running_mean, 3), r(ref.running_var, 3), ref.num_batches_tracked.item())
    print(
        "match",
        torch.allclose(ref.running_mean, mine.running_mean, atol=1e-5),
        torch.allclose(ref.running_var, mine.running_var, atol=1e-4),
    )
    print("grads", r(ref.weight.grad, 3), r(ref.bias.grad, 3), r(mine.gamma.grad, 3))
    ref.eval(), mine.eval()
    x = arr(2, 3, 4, 4)
    print("eval", r(ref(x)), round((ref(x) - mine(x)).abs().max().item(), 4), ref.num_batches_tracked.item())

bn = nn.BatchNorm1d(4, affine=False, track_running_stats=False)
print(bn, bn.running_mean, bn.weight, list(bn.state_dict().keys()))
x = arr(6, 4, scale=2.0)
bn.eval()
y = bn(x)
print("no_stats_eval", r(y.mean(0)), r(y.std(0, unbiased=False)))
bn1 = nn.BatchNorm1d(4)
print(bn1, list(bn1.state_dict().keys()), bn1.num_batches_tracked.dtype)
print("3d_input", bn1(arr(2, 4, 7)).shape, r(bn1.running_mean))
print(
    "F.batch_norm",
    r(F.batch_norm(x, torch.zeros(4), torch.ones(4), training=False)),
    r(F.batch_norm(x, None, None, training=True)),
)
rm, rv = torch.zeros(4), torch.ones(4)
F.batch_norm(x, rm, rv, training=True, momentum=0.5)
print("functional_running", r(rm), r(rv))


# batch renormalization: r and d are clipped and treated as constants
class BatchRenorm1d(nn.Module):
    def __init__(self, c, rmax=1.5, dmax=0.5, momentum=0.1, eps=1e-5):
        super().__init__()
        self.rmax, self.dmax, self.momentum, self.eps = rmax, dmax, momentum, eps
        self.weight, self.bias = nn.Parameter(torch.ones(c)), nn.Parameter(torch.zeros(c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_std", torch.ones(c))

    def forward(self, x):
        if not self.training:
            return (x - self.running_mean) / self.running_std * self.weight + self.bias
        mu, sigma = x.mean(0), x.std(0, unbiased=False).add(self.eps)
        rr = (sigma.detach() / self.running_std).clamp(1 / self.rmax, self.rmax)
        d = ((mu.detach() - self.running_mean) / self.running_std).clamp(-self.dmax, self.dmax)
        with torch.no_grad():
            self.running_mean.lerp_(mu, self.momentum)
            self.running_std.lerp_(sigma, self.momentum)
        return ((x - mu) / sigma * rr + d) * self.weight + self.bias


brn = BatchRenorm1d(4)
opt = torch.optim.SGD(brn.parameters(), lr=0.1)
for step in range(3):
    x = arr(8, 4, scale=3.0, shift=1.0)
    y = brn(x)
    loss = (y - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("renorm", step, round(loss.item(), 4), r(brn.running_mean), r(brn.running_std), r(brn.weight.grad))
brn.eval()
print("renorm_eval", r(brn(arr(2, 4))))

# typical mistakes
for bad in (
    lambda: nn.BatchNorm1d(3)(arr(1, 3)),
    lambda: nn.BatchNorm2d(3)(arr(2, 3, 4)),
    lambda: nn.BatchNorm1d(3)(arr(4, 5)),
    lambda: nn.BatchNorm1d(3)(arr(2, 3, 4, 5)),
):
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
single = nn.BatchNorm1d(3).eval()
print("eval_batch_of_one", r(single(arr(1, 3))))
sd = nn.BatchNorm2d(2).state_dict()
sd.pop("num_batches_tracked")
m = nn.BatchNorm2d(2)
print("load_old", m.load_state_dict(sd, strict=False), m.num_batches_tracked)
sync = nn.SyncBatchNorm(3)
print(sync, nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(3)))[0].__class__.__name__)
lazy = nn.LazyBatchNorm1d()
lazy(arr(4, 6))
print("lazy", lazy, lazy.weight.shape, lazy.running_var.shape)
