"""Sampling from structured models with torch.distributions.Categorical under fixed seeds: logits vs probs
parametrisations, batch/event shapes, sample shapes, log_prob with broadcasting, entropy, enumerate_support,
ancestral sampling through a CRF's backward messages, Gumbel-max sampling, multinomial, and validation errors."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
torch.manual_seed(7)

logits = torch.randn(3, 4)
cat = D.Categorical(logits=logits)
print(cat)
print("shapes", cat.batch_shape, cat.event_shape, cat.param_shape)
print("probs", cat.probs.round(decimals=4).tolist())
print("logits normalized", cat.logits.round(decimals=4).tolist())
print("entropy", cat.entropy().round(decimals=4).tolist(), "mode", cat.mode.tolist())
torch.manual_seed(0)
s = cat.sample((5,))
print("sample", s.shape, s.dtype, s.tolist())
print("log_prob", cat.log_prob(s).sum(0).round(decimals=4).tolist())
print("broadcast lp", cat.log_prob(torch.tensor([0, 1, 2])).round(decimals=4).tolist(),
      tuple(cat.log_prob(torch.tensor([[0], [1]])).shape))
print("support", cat.enumerate_support().tolist(), cat.enumerate_support(expand=False).shape)
p = D.Categorical(probs=torch.tensor([[2.0, 1.0, 1.0], [0.0, 0.0, 3.0]]))
print("unnormalised", p.probs.tolist(), p.log_prob(torch.tensor([1, 0])).tolist())
print("mean nan", p.mean.tolist(), p.variance.tolist())
print("expand", p.expand(torch.Size([4, 2])).batch_shape)

# ancestral sampling of a linear-chain model from backward messages
T, C = 5, 3
em = torch.randn(T, C)
tr = torch.randn(C, C)
beta = torch.zeros(T, C)
for t in range(T - 2, -1, -1):
    beta[t] = torch.logsumexp(tr + em[t + 1] + beta[t + 1], dim=1)
logZ = torch.logsumexp(em[0] + beta[0], 0)
print("logZ", round(logZ.item(), 4))
torch.manual_seed(11)
counts = torch.zeros(C, dtype=torch.long)
paths = []
for _ in range(200):
    y = D.Categorical(logits=em[0] + beta[0]).sample()
    path = [y.item()]
    for t in range(1, T):
        y = D.Categorical(logits=tr[y] + em[t] + beta[t]).sample()
        path.append(y.item())
    paths.append(path)
    counts[path[0]] += 1
exact = torch.softmax(em[0] + beta[0], 0)
print("first-tag freq close", torch.allclose(counts / 200.0, exact, atol=0.12), exact.round(decimals=4).tolist())
print("first path", paths[0], "total", counts.sum().item())

torch.manual_seed(3)
g = -torch.log(-torch.log(torch.rand(1000, C)))
gm = (em[0] + g).argmax(1).bincount(minlength=C)
print("gumbel bins", gm.sum().item(), torch.allclose(gm / 1000.0, em[0].softmax(0), atol=0.06))
torch.manual_seed(3)
print("multinomial", torch.multinomial(torch.tensor([0.1, 0.0, 0.9]), 4, replacement=True).tolist(),
      torch.multinomial(torch.tensor([[1.0, 1.0, 0.0]]), 2).sort().values.tolist())
oh = D.OneHotCategorical(logits=logits[0])
print("onehot", oh.event_shape, oh.sample().sum().item(), oh.sample((2,)).shape)

for bad in [lambda: D.Categorical(probs=torch.tensor([0.5, -0.1, 0.6])),
            lambda: D.Categorical(logits=torch.randn(3), probs=torch.ones(3)),
            lambda: cat.log_prob(torch.tensor([4, 0, 0])),
            lambda: D.Categorical(logits=torch.tensor(1.0)),
            lambda: torch.multinomial(torch.tensor([0.5, 0.5]), 3),
            lambda: torch.multinomial(torch.tensor([-1.0, 2.0]), 1)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
