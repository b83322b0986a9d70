"""Constrained decoding with sampling: Categorical over logits masked to -inf (log_prob, entropy and mode stay
finite), top-k and nucleus filtering with sort/cumsum/scatter, temperature, seeded sampling with a Generator,
gumbel_softmax soft and hard with the straight-through gradient, one_hot targets, and their errors."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
torch.manual_seed(13)

logits = torch.randn(2, 6)
allowed = torch.tensor([[1, 1, 0, 1, 0, 0], [0, 1, 1, 1, 1, 1]], dtype=torch.bool)
masked = logits.masked_fill(~allowed, float("-inf"))
dist = D.Categorical(logits=masked)
print("probs", dist.probs.round(decimals=4).tolist())
print("entropy", dist.entropy().round(decimals=4).tolist(), "mode", dist.mode.tolist())
print("log_prob allowed", dist.log_prob(torch.tensor([0, 1])).round(decimals=4).tolist(),
      "masked", dist.log_prob(torch.tensor([2, 0])).tolist())
print("normalized logits", dist.logits.round(decimals=4).tolist())
torch.manual_seed(1)
draws = dist.sample((300,))
print("never masked", bool(allowed.gather(1, draws.t()).all()), draws.shape)


def top_k_top_p(logits, k=0, p=1.0, temperature=1.0):
    logits = logits / temperature
    if k > 0:
        kth = logits.topk(k, dim=-1).values[..., -1, None]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if p < 1.0:
        srt, idx = logits.sort(dim=-1, descending=True)
        cum = srt.softmax(-1).cumsum(-1)
        remove = cum > p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        logits = logits.masked_fill(remove.scatter(-1, idx, remove), float("-inf"))
    return logits


for k, p, temp in [(3, 1.0, 1.0), (0, 0.7, 1.0), (2, 0.5, 0.5), (0, 1.0, 2.0)]:
    f = top_k_top_p(logits, k, p, temp)
    print("filter", k, p, temp, torch.isfinite(f).sum(1).tolist(), f.softmax(-1).round(decimals=4)[0].tolist())
g = torch.Generator().manual_seed(42)
probs = top_k_top_p(logits, 0, 0.9).softmax(-1)
print("multinomial gen", torch.multinomial(probs, 3, replacement=True, generator=g).tolist())
g.manual_seed(42)
print("repeat", torch.multinomial(probs, 3, replacement=True, generator=g).tolist(), g.initial_seed())

torch.manual_seed(5)
y = F.gumbel_softmax(logits, tau=0.5)
print("gumbel soft", tuple(y.shape), y.sum(-1).round(decimals=4).tolist())
w = logits.clone().requires_grad_()
torch.manual_seed(5)
h = F.gumbel_softmax(w, tau=1.0, hard=True, dim=-1)
print("gumbel hard", h.sum(-1).tolist(), h.grad_fn.name(), h.max(-1).values.tolist())
(h * torch.arange(6.0)).sum().backward()
print("straight-through grad rows sum", w.grad.sum(-1).abs().max().item() < 1e-6, w.grad.abs().sum().item() > 0)

oh = F.one_hot(torch.tensor([[0, 2], [1, 1]]), num_classes=4)
print("one_hot", oh.shape, oh.dtype, oh.sum().item(), F.one_hot(torch.tensor([3, 0])).tolist())
print("one_hot empty", F.one_hot(torch.empty(0, dtype=torch.long), 3).shape)

for bad in [lambda: F.one_hot(torch.tensor([1.0])), lambda: F.one_hot(torch.tensor([4]), 3),
            lambda: F.one_hot(torch.tensor([-1]), 3), lambda: F.one_hot(torch.empty(0, dtype=torch.long)),
            lambda: D.Categorical(logits=torch.full((3,), float("-inf"))).sample(),
            lambda: torch.multinomial(torch.zeros(3), 1)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
