"""GDAS/SNAS-style differentiable sampling: F.gumbel_softmax with hard straight-through one-hots, a hand-written
Gumbel-max with the same trick, tau annealing, only the sampled op run forward while the gradient reaches every
architecture logit, and SNAS's relaxed categorical with a resource penalty."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions

torch.manual_seed(0)
logits = torch.tensor([[1.0, 0.5, -0.5, 0.0], [0.2, 0.1, 0.0, 2.0]], requires_grad=True)

# hard samples are exact one-hots carrying the soft sample's gradient
torch.manual_seed(1)
y = F.gumbel_softmax(logits, tau=1.0, hard=True)
print("hard", y.tolist(), type(y.grad_fn).__name__)
print("rows sum", y.sum(-1).tolist(), y.dtype)
torch.manual_seed(1)
soft = F.gumbel_softmax(logits, tau=1.0, hard=False)
print("soft rows sum", soft.sum(-1).round(decimals=4).tolist(),
      "argmax agree", torch.equal(soft.argmax(-1), y.argmax(-1)))
(y * torch.arange(4.0)).sum().backward()
print("grad nonzero everywhere", bool((logits.grad != 0).all()),
      "grad rowsum", logits.grad.sum(-1).abs().max().item() < 1e-6)
logits.grad = None
torch.manual_seed(2)
yd = F.gumbel_softmax(logits, tau=0.5, hard=True, dim=0)
print("dim=0 columns sum", yd.sum(0).tolist())


def gumbel_st(logits, tau):
    """GDAS's sampler: Gumbel noise, argmax, and a straight-through one-hot with index and probability."""
    while True:
        gumbels = -torch.empty_like(logits).exponential_().log()
        probs = F.softmax((logits.log_softmax(dim=-1) + gumbels) / tau, dim=-1)
        if not (torch.isinf(gumbels).any() or torch.isnan(probs).any()):
            break
    index = probs.max(-1, keepdim=True)[1]
    one_h = torch.zeros_like(probs).scatter_(-1, index, 1.0)
    return one_h - probs.detach() + probs, index


class Edge(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ops = nn.ModuleList([nn.Linear(d, d), nn.Sequential(nn.Linear(d, d), nn.ReLU()), nn.Identity()])
        self.calls = [0, 0, 0]

    def forward(self, x, hardwts, index):
        i = int(index)
        self.calls[i] += 1
        return sum(hardwts[j] * self.ops[j](x) if j == i else hardwts[j] for j in range(len(self.ops)))


torch.manual_seed(0)
edge = Edge(4)
alpha = nn.Parameter(torch.zeros(3))
opt = torch.optim.Adam([alpha], lr=0.1)
w_opt = torch.optim.SGD(edge.parameters(), lr=0.1)
x, target = torch.randn(6, 4), torch.randn(6, 4)
tau_max, tau_min, epochs = 10.0, 0.1, 8
for ep in range(epochs):
    tau = tau_max - (tau_max - tau_min) * ep / (epochs - 1)
    torch.manual_seed(100 + ep)
    hardwts, index = gumbel_st(alpha, tau)
    out = edge(x, hardwts, index.item())
    loss = F.mse_loss(out, target)
    opt.zero_grad()
    w_opt.zero_grad()
    loss.backward()
    grad_all = bool((alpha.grad != 0).all())
    opt.step()
    w_opt.step()
    print(ep, round(tau, 4), index.tolist(), hardwts.detach().tolist(), round(loss.item(), 4), grad_all)
print("calls", sum(edge.calls), "alpha", alpha.detach().round(decimals=4).tolist())

# SNAS: relaxed one-hot samples, log-probabilities and a cost-weighted resource penalty
cost = torch.tensor([4.0, 5.0, 0.0])
torch.manual_seed(3)
leaf = alpha.detach().clone().requires_grad_()
dist = D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=leaf)
z = dist.rsample((5,))
print("relaxed", tuple(z.shape), z.sum(-1).round(decimals=4).tolist(), dist.batch_shape, dist.event_shape)
print("log_prob finite", bool(torch.isfinite(dist.log_prob(z)).all()), type(dist.temperature).__name__)
penalty = (z * cost).sum(-1).mean()
penalty.backward()
print("penalty grad shape", tuple(leaf.grad.shape), round(leaf.grad.sum().item(), 4), dist.logits.is_leaf)
hard = D.OneHotCategoricalStraightThrough(logits=torch.tensor([0.0, 1.0, 2.0], requires_grad=True))
torch.manual_seed(4)
s = hard.rsample((3,))
print("ST rows", s.sum(-1).tolist(), bool(s.requires_grad), round(hard.entropy().item(), 4))
print("probs", hard.probs.round(decimals=4).tolist(), round(math.log(3), 4))
for bad in [dict(tau=0.0), dict(tau=-1.0)]:
    try:
        out = F.gumbel_softmax(torch.zeros(3), **bad)
        print("tau", bad, "->", bool(torch.isnan(out).any()))
    except Exception as e:
        print(type(e).__name__, e)
try:
    D.RelaxedOneHotCategorical(torch.tensor(0.5))
except Exception as e:
    print(type(e).__name__, e)
