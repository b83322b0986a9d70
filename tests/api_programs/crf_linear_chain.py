"""Linear-chain CRF as structured-prediction code writes it: batched forward algorithm with logsumexp and masks
over padded sequences, the gold score by gather, brute-force enumeration as an oracle, tag marginals as the
gradient of log Z, and the shape mistakes users make."""

import itertools
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

B, T, C = 3, 5, 4
emissions = torch.randn(B, T, C, requires_grad=True)
transitions = nn.Parameter(torch.randn(C, C) * 0.5)
start = nn.Parameter(torch.randn(C) * 0.1)
end = nn.Parameter(torch.randn(C) * 0.1)
lengths = torch.tensor([5, 3, 4])
mask = torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)
tags = torch.randint(0, C, (B, T)).masked_fill(~mask, 0)
print("mask", mask.int().tolist(), mask.dtype)


def log_partition(em, mask):
    alpha = start + em[:, 0]
    for t in range(1, em.size(1)):
        nxt = torch.logsumexp(alpha.unsqueeze(2) + transitions.unsqueeze(0) + em[:, t].unsqueeze(1), dim=1)
        alpha = torch.where(mask[:, t].unsqueeze(1), nxt, alpha)
    return torch.logsumexp(alpha + end, dim=1)


def gold(em, tags, mask):
    m = mask.float()
    s = start[tags[:, 0]] + em.gather(2, tags.unsqueeze(-1)).squeeze(-1).mul(m).sum(1)
    trans = transitions[tags[:, :-1], tags[:, 1:]] * m[:, 1:]
    s = s + trans.sum(1)
    last = tags.gather(1, (mask.sum(1) - 1).unsqueeze(1)).squeeze(1)
    return s + end[last]


logZ = log_partition(emissions, mask)
g = gold(emissions, tags, mask)
print("logZ", logZ.round(decimals=4).tolist(), logZ.grad_fn.name())
print("gold", g.round(decimals=4).tolist())
nll = (logZ - g).mean()
print("nll", round(nll.item(), 4), nll.grad_fn.name())


def brute(b):
    L = int(lengths[b])
    scores = []
    for path in itertools.product(range(C), repeat=L):
        p = torch.tensor(path)
        s = start[p[0]] + emissions[b, torch.arange(L), p].sum() + transitions[p[:-1], p[1:]].sum() + end[p[-1]]
        scores.append(s)
    return torch.logsumexp(torch.stack(scores), 0)


with torch.no_grad():
    ref = torch.stack([brute(b) for b in range(B)])
print("brute", ref.round(decimals=4).tolist(), "close", torch.allclose(ref, logZ, atol=1e-4))

marg, = torch.autograd.grad(logZ.sum(), emissions, retain_graph=True)
print("marginals sum per step", marg.sum(-1).round(decimals=4).tolist())
print("marginals b1", marg[1].round(decimals=4).tolist())

nll.backward()
print("trans grad", transitions.grad.round(decimals=4).tolist())
print("start grad", start.grad.round(decimals=4).tolist(), "end grad", end.grad.round(decimals=4).tolist())
print("emissions grad padded zero", bool((emissions.grad[1, 3:] == 0).all()))

# float64 and the log-space stability
em64 = emissions.detach().double() * 100
z64 = torch.logsumexp(em64, dim=-1)
print("big logsumexp", z64.dtype, z64[0].round(decimals=2).tolist())
print("logsumexp -inf row", torch.logsumexp(torch.full((2, 3), float("-inf")), 1).tolist())
print("logsumexp empty dim", torch.logsumexp(torch.empty(2, 0), 1).tolist())
print("logsumexp keepdim", tuple(torch.logsumexp(emissions, dim=(1, 2), keepdim=True).shape))

for bad in [lambda: transitions.unsqueeze(0) + emissions[:, 0].unsqueeze(2).expand(B, C, 3),
            lambda: emissions.gather(2, tags),
            lambda: torch.where(mask, emissions, 0.0),
            lambda: emissions.gather(2, tags.unsqueeze(-1) + C)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
