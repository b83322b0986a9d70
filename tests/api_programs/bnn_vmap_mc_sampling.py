"""Vectorised Monte-Carlo prediction with torch.func.vmap: per-sample dropout masks, weight draws and
randomness modes."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
from torch.func import vmap, functional_call  # noqa: E402


def r(t, d=4):
    return t.detach().round(decimals=d).tolist()


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))
params = {k: v.detach() for k, v in net.named_parameters()}
x = torch.randn(8, 3)
S = 64
seeds = torch.arange(S)


def one_pass(_):
    return functional_call(net, params, (x,))


net.train()
preds = vmap(one_pass, randomness="different")(seeds)
print("mc preds", preds.shape, "distinct passes", bool((preds[0] != preds[1]).any()))
same = vmap(one_pass, randomness="same")(seeds)
print("same randomness identical", bool((same == same[0]).all()))
try:
    vmap(one_pass)(seeds)
except Exception as e:
    print(type(e).__name__, e)
net.eval()
det = vmap(one_pass)(seeds)
print("eval mode deterministic", bool((det == det[0]).all()))

# Bayes-by-backprop weight draws per sample: eps made like the mapped mean is mapped too
mu = torch.randn(S, 3) * 0.01 + torch.tensor([1.0, -1.0, 0.5])
log_sigma = torch.full((S, 3), -2.0)


def draw_and_predict(m, ls):
    eps = torch.empty_like(m).normal_()
    w = m + ls.exp() * eps
    return x @ w


out = vmap(draw_and_predict, randomness="different")(mu, log_sigma)
print("weight draws", out.shape, "spread ~ sigma", round(out.std(0).mean().item(), 1))
out2 = vmap(lambda m, ls: x @ (m + ls.exp() * torch.randn_like(m)), randomness="different")(mu, log_sigma)
print("randn_like draws", out2.shape, bool((out2[0] != out2[1]).any()))
noise = vmap(lambda m: m + torch.zeros_like(m).uniform_(-1, 1), randomness="different")(torch.zeros(4, 1000))
print("uniform_ per sample", bool((noise[0] != noise[1]).any()), round(noise.mean().item(), 1))
gum = vmap(lambda lg: F.gumbel_softmax(lg, tau=0.5), randomness="different")(torch.zeros(5, 4))
print("gumbel per sample", gum.shape, r(gum.sum(-1)), bool((gum[0] != gum[1]).any()))

# distribution methods inside vmap: log-probs map cleanly, fresh-tensor draws follow PyTorch's rules
locs = torch.tensor([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]])
lp = vmap(lambda l: D.Normal(l, 1.0).log_prob(torch.zeros(2)).sum())(locs)
print("log_prob", r(lp))
kl = vmap(lambda l: D.kl_divergence(D.Normal(l, 2.0), D.Normal(0.0, 1.0)).sum())(locs)
print("kl", r(kl))
ent = vmap(lambda l: D.Categorical(logits=l).entropy())(locs)
print("entropy", r(ent))
for mode in ["different", "same"]:
    try:
        s = vmap(lambda l: D.Normal(l, 1.0).rsample(), randomness=mode)(locs)
        print(mode, "rsample", s.shape, bool((s[0] - locs[0] == s[1] - locs[1]).all()))
    except Exception as e:
        print(mode, type(e).__name__, e)
    try:
        s = vmap(lambda l: torch.empty(2).bernoulli_(0.5) + l, randomness=mode)(locs)
        print(mode, "bernoulli_", s.shape)
    except Exception as e:
        print(mode, type(e).__name__, e)
    try:
        s = vmap(lambda l: torch.bernoulli(torch.sigmoid(l)), randomness=mode)(locs)
        print(mode, "bernoulli(p)", s.shape)
    except Exception as e:
        print(mode, type(e).__name__, e)
print("sample via normal()", vmap(lambda l: torch.normal(l, 1.0), randomness="different")(locs).shape)
buf = vmap(lambda l: torch.zeros_like(l).copy_(l * 2))(locs)
print("copy into like", r(buf))
try:
    vmap(lambda l: torch.zeros(2).copy_(l))(locs)
except Exception as e:
    print(type(e).__name__, str(e)[:80])
try:
    vmap(lambda l: l.item())(locs[:, 0])
except Exception as e:
    print(type(e).__name__, str(e)[:80])
