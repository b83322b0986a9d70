"""MuZero's numeric pieces: the invertible value transform h(x) and its inverse, categorical supports with two-hot
encoding through floor/ceil and scatter_add_, min-max normalised hidden states, the gradient-scaling trick for the
dynamics unroll, n-step bootstrapped targets and the MinMaxStats used to normalise Q in PUCT."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
EPS = 1e-3
SUPPORT = 10  # support is -10..10


def h(x):
    return torch.sign(x) * (torch.sqrt(torch.abs(x) + 1) - 1) + EPS * x


def h_inv(x):
    return torch.sign(x) * (((torch.sqrt(1 + 4 * EPS * (torch.abs(x) + 1 + EPS)) - 1) / (2 * EPS)) ** 2 - 1)


def to_support(x):
    x = x.clamp(-SUPPORT, SUPPORT)
    lo, hi = x.floor(), x.ceil()
    p_hi = x - lo
    p_lo = 1 - p_hi
    out = torch.zeros(*x.shape, 2 * SUPPORT + 1)
    out.scatter_add_(-1, (lo + SUPPORT).long().unsqueeze(-1), p_lo.unsqueeze(-1))
    out.scatter_add_(-1, (hi + SUPPORT).long().unsqueeze(-1), p_hi.unsqueeze(-1))
    return out


def from_support(probs):
    support = torch.arange(-SUPPORT, SUPPORT + 1, dtype=probs.dtype)
    return (probs * support).sum(-1)


x = torch.tensor([-300.0, -12.5, -1.0, -0.3, 0.0, 0.7, 3.0, 42.0, 1000.0])
hx = h(x)
print("h", hx.round(decimals=4).tolist())
print("h_inv(h(x))", h_inv(hx).round(decimals=2).tolist())
print("h dtype/grad", hx.dtype, h(x.double()).dtype)
xr = x.clone().requires_grad_()
h(xr).sum().backward()
print("h'", xr.grad.round(decimals=4).tolist())

two = to_support(hx)
print("two-hot", two.shape, two.sum(-1).round(decimals=4).tolist())
print("nonzeros per row", (two > 0).sum(-1).tolist())
print("row 3", two[3].round(decimals=4).tolist())
print("round trip", h_inv(from_support(two)).round(decimals=2).tolist())
integral = to_support(torch.tensor([2.0, -3.0]))
print("integral hits one bin", (integral > 0).sum(-1).tolist(), integral.argmax(-1).tolist())

# the same encoding via one_hot and lerp, as some ports write it
lo = hx.clamp(-SUPPORT, SUPPORT).floor()
w_hi = hx.clamp(-SUPPORT, SUPPORT) - lo
oh_lo = F.one_hot((lo + SUPPORT).long(), 2 * SUPPORT + 1).float()
oh_hi = F.one_hot((lo + SUPPORT + 1).clamp(max=2 * SUPPORT).long(), 2 * SUPPORT + 1).float()
alt = torch.lerp(oh_lo, oh_hi, w_hi.unsqueeze(-1))
print("lerp variant equal", torch.allclose(alt, two, atol=1e-6))

# cross-entropy against the soft target, value loss through log_softmax
logits = torch.randn(9, 2 * SUPPORT + 1, requires_grad=True)
loss = -(two * F.log_softmax(logits, -1)).sum(-1).mean()
ce = F.cross_entropy(logits, two)
print("soft CE", round(loss.item(), 4), round(ce.item(), 4), ce.grad_fn.name())
ce.backward()
print("grad rows sum", logits.grad.sum(-1).abs().max().item() < 1e-6)


def normalize_hidden(s):
    mn = s.min(dim=1, keepdim=True).values
    mx = s.amax(dim=1, keepdim=True)
    return (s - mn) / (mx - mn).clamp_min(1e-5)


def scale_gradient(t, scale):
    return t * scale + t.detach() * (1 - scale)


repr_net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8))
dyn = nn.Linear(8 + 3, 8)
obs = torch.randn(4, 6)
s = normalize_hidden(repr_net(obs))
print("hidden range", s.min().item(), s.max().item(), s.shape)
actions = torch.tensor([[0, 1, 2], [2, 2, 1], [1, 0, 0], [0, 0, 1]])
total = 0
for k in range(3):
    a = F.one_hot(actions[:, k], 3).float()
    s = normalize_hidden(dyn(torch.cat([s, a], 1)))
    s = scale_gradient(s, 0.5)
    total = total + s.pow(2).mean()
total.backward()
print("unroll loss", round(total.item(), 4), total.grad_fn.name())
print("grad norms", round(repr_net[0].weight.grad.norm().item(), 4), round(dyn.weight.grad.norm().item(), 4))

# n-step targets: discounted reward windows via unfold plus a bootstrap value
rewards = torch.tensor([0.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 1.0])
values = torch.linspace(0.5, -0.5, 8)
n, gamma = 3, 0.9
padded = F.pad(rewards, (0, n))
win = padded.unfold(0, n, 1)[:8]
disc = gamma ** torch.arange(n, dtype=torch.float32)
boot = F.pad(values, (0, n))[n:n + 8] * gamma ** n
target = win @ disc + boot
print("n-step", target.round(decimals=4).tolist())


class MinMaxStats:
    def __init__(self):
        self.lo, self.hi = torch.tensor(float("inf")), torch.tensor(float("-inf"))

    def update(self, v):
        self.lo, self.hi = torch.minimum(self.lo, v.min()), torch.maximum(self.hi, v.max())

    def normalize(self, v):
        return torch.where(self.hi > self.lo, (v - self.lo) / (self.hi - self.lo), v)


mm = MinMaxStats()
print("empty stats", mm.normalize(torch.tensor([0.3])).tolist())
mm.update(target)
print("stats", round(mm.lo.item(), 4), round(mm.hi.item(), 4), mm.normalize(target).round(decimals=4).tolist()[:4])

for bad in [
    lambda: torch.zeros(3, 5).scatter_add_(-1, torch.tensor([[5]]), torch.ones(1, 1)),
    lambda: torch.zeros(3, 5).scatter_add_(-1, torch.tensor([[1.0]]), torch.ones(1, 1)),
    lambda: F.one_hot(torch.tensor([0, 3]), 3),
    lambda: F.one_hot(torch.tensor([0.0, 1.0]), 3),
    lambda: torch.lerp(torch.zeros(2), torch.ones(3), 0.5),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
