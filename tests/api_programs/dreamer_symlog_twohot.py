"""DreamerV3's symlog/symexp squashing and two-hot return targets: bins from symexp(linspace), bucketize and
searchsorted (sides, sorter, out_int32), two-hot weights by scatter, the two-hot cross-entropy and its decoding."""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4)


def symlog(x):
    return torch.sign(x) * torch.log1p(torch.abs(x))


def symexp(x):
    return torch.sign(x) * torch.expm1(torch.abs(x))


x = torch.tensor([-1000.0, -1.0, -0.0, 0.0, 0.5, 3.0, 1e6, float("inf"), float("nan")])
print(symlog(x))
print(symexp(symlog(x[:7])))
print(symlog(x.double()).dtype, symlog(x.half()), symlog(x.bfloat16()))
print(symlog(torch.tensor([-3, 0, 7])))
print(torch.sign(torch.tensor([-2, 0, 5], dtype=torch.int8)), torch.sgn(torch.tensor([3 + 4j, 0j])))

bins = symexp(torch.linspace(-5, 5, 11))
print(bins)


def twohot(y, bins):
    below = (bins <= y[..., None]).to(torch.int32).sum(-1) - 1
    above = len(bins) - (bins > y[..., None]).to(torch.int32).sum(-1)
    below = torch.clip(below, 0, len(bins) - 1)
    above = torch.clip(above, 0, len(bins) - 1)
    equal = below == above
    dist_to_below = torch.where(equal, 1, torch.abs(bins[below] - y))
    dist_to_above = torch.where(equal, 1, torch.abs(bins[above] - y))
    total = dist_to_below + dist_to_above
    wb, wa = dist_to_above / total, dist_to_below / total
    return F.one_hot(below.long(), len(bins)) * wb[..., None] + F.one_hot(above.long(), len(bins)) * wa[..., None]


y = torch.tensor([-200.0, -1.0, 0.0, 0.3, 20.0, 147.4132, 1e5])
th = twohot(y, bins)
print(th, th.dtype, th.sum(-1))
print((th * bins).sum(-1))

# the same with bucketize / searchsorted
idx = torch.bucketize(y, bins)
print(idx, idx.dtype, torch.bucketize(y, bins, right=True))
print(
    torch.bucketize(y, bins, out_int32=True).dtype, torch.bucketize(3.0, bins), torch.bucketize(torch.tensor(3.0), bins)
)
print(torch.searchsorted(bins, y), torch.searchsorted(bins, y, side="right"))
print(torch.searchsorted(bins, torch.tensor([[0.0, 2.0], [-1.0, 1e9]])))
perm = torch.randperm(11, generator=torch.Generator().manual_seed(3))
shuffled = bins[perm]
sorter = torch.argsort(shuffled)
print(torch.searchsorted(shuffled, y, sorter=sorter))
print(torch.searchsorted(bins, torch.tensor([float("nan"), -float("inf")])))
print(torch.searchsorted(bins.repeat(2, 1), torch.tensor([[1.0], [100.0]]), right=True))
print(torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2.5, 5.0])))
print(torch.searchsorted(torch.tensor([1.0, 3.0]), 2))
for bad in [
    lambda: torch.searchsorted(bins, y, side="left", right=True),
    lambda: torch.searchsorted(bins, y, side="middle"),
    lambda: torch.searchsorted(bins.repeat(2, 1), y),
    lambda: torch.bucketize(y, bins.repeat(2, 1)),
    lambda: torch.searchsorted(bins, y, sorter=sorter[:5]),
    lambda: torch.searchsorted(bins, y, sorter=sorter.float()),
    lambda: torch.searchsorted(bins, y, out_int32=True, out=torch.empty(7, dtype=torch.long)),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])

# scatter-based two-hot with bucketize indices, and its cross-entropy against logits
k = torch.clamp(torch.bucketize(y, bins), 1, len(bins) - 1)
lo, hi = bins[k - 1], bins[k]
w_hi = ((y.clamp(bins[0], bins[-1]) - lo) / (hi - lo)).clamp(0, 1)
target = torch.zeros(len(y), len(bins)).scatter_(1, (k - 1)[:, None], (1 - w_hi)[:, None])
target.scatter_add_(1, k[:, None], w_hi[:, None])
print(target.sum(-1), torch.allclose(target[2:5], th[2:5]))
torch.manual_seed(0)
logits = torch.randn(len(y), len(bins), requires_grad=True)
loss = -(target * F.log_softmax(logits, -1)).sum(-1)
print(loss.detach())
print(F.cross_entropy(logits, target, reduction="none").detach())
loss.mean().backward()
print(logits.grad[0], logits.grad.sum(-1).abs().max() < 1e-6)
pred = symexp((F.softmax(logits, -1) * symlog(bins)).sum(-1))
print(pred.detach(), pred.grad_fn.name())
