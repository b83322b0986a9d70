"""A DreamerV3 RSSM with a LayerNorm GRU (one Linear for the three gates, update bias -1), posterior/prior
categoricals, KL balancing (dyn 0.5 / rep 0.1) with 1-nat free bits through clamp and detach, over a short sequence."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, OneHotCategoricalStraightThrough, kl_divergence

torch.manual_seed(0)
torch.set_printoptions(precision=4)
T, B, G, K, D, A, O = 4, 2, 3, 4, 8, 2, 5


class LNGRUCell(nn.Module):
    def __init__(self, inp, size, norm=True, act=torch.tanh, update_bias=-1):
        super().__init__()
        self.size, self.act, self.update_bias = size, act, update_bias
        self.layer = nn.Linear(inp + size, 3 * size, bias=not norm)
        self.norm = nn.LayerNorm(3 * size, eps=1e-3) if norm else nn.Identity()

    def forward(self, x, h):
        parts = self.norm(self.layer(torch.cat([x, h], -1)))
        reset, cand, update = torch.split(parts, [self.size] * 3, -1)
        reset = torch.sigmoid(reset)
        cand = self.act(reset * cand)
        update = torch.sigmoid(update + self.update_bias)
        return update * cand + (1 - update) * h


def dist(logits, unimix=0.01):
    probs = F.softmax(logits.unflatten(-1, (G, K)), -1)
    probs = (1 - unimix) * probs + unimix / K
    return Independent(OneHotCategoricalStraightThrough(logits=torch.log(probs)), 1)


cell = LNGRUCell(G * K + A, D)
print(cell)
print([(n, tuple(p.shape)) for n, p in cell.named_parameters()])
prior_head, post_head = nn.Linear(D, G * K), nn.Linear(D + O, G * K)
gru = nn.GRUCell(G * K + A, D)
obs, act = torch.randn(T, B, O), F.one_hot(torch.randint(0, A, (T, B)), A).float()
print(act.dtype, act[0])
h, z = torch.zeros(B, D), torch.zeros(B, G, K)
h2 = torch.zeros(B, D)
kls_dyn, kls_rep, hs = [], [], []
for t in range(T):
    x = torch.cat([z.flatten(1), act[t]], -1)
    h = cell(x, h)
    h2 = gru(x, h2)
    prior = dist(prior_head(h))
    post = dist(post_head(torch.cat([h, obs[t]], -1)))
    z = post.rsample()
    sg = lambda d: Independent(OneHotCategoricalStraightThrough(logits=d.base_dist.logits.detach()), 1)
    kls_dyn.append(kl_divergence(sg(post), prior))
    kls_rep.append(kl_divergence(post, sg(prior)))
    hs.append(h)
dyn, rep = torch.stack(kls_dyn), torch.stack(kls_rep)
print(dyn.shape, torch.allclose(dyn, rep), dyn.detach()[0])
free = 1.0
dyn_loss = torch.clamp(dyn, min=free).mean()
rep_loss = torch.maximum(rep, torch.tensor(free)).mean()
print(dyn_loss.item() >= free, round(rep_loss.item(), 4), dyn_loss.grad_fn.name(), rep_loss.grad_fn.name())
loss = 0.5 * dyn_loss + 0.1 * rep_loss
loss.backward()
print(prior_head.weight.grad.abs().sum() > 0 or bool((dyn < free).all()), post_head.weight.grad is not None)
print(torch.stack(hs).shape, h2.shape, torch.stack(hs).abs().max() <= 1)
# clamp's gradient at the boundary: PyTorch passes it where x == min
x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
torch.clamp(x, min=1.0).sum().backward()
print(x.grad)
x.grad = None
torch.maximum(x, torch.tensor(1.0)).sum().backward()
print(x.grad)
x.grad = None
x.clamp_min(1.0).sum().backward()
print(x.grad)
x.grad = None
F.relu(x - 1.0).sum().backward()
print(x.grad)
x.grad = None
torch.where(x > 1.0, x, torch.ones_like(x)).sum().backward()
print(x.grad)
# KL of identical distributions and of unimix against a near-deterministic posterior
lg = torch.tensor([[20.0, -20.0, -20.0, -20.0]])
p = OneHotCategoricalStraightThrough(logits=lg)
q = OneHotCategoricalStraightThrough(probs=0.99 * p.probs + 0.01 / 4)
print(kl_divergence(p, p), kl_divergence(p, q), kl_divergence(q, p))
print(p.entropy(), q.entropy(), p.logits)
# GRUCell gate layout and shapes
print(gru.weight_ih.shape, gru.weight_hh.shape, gru.bias_ih.shape, gru)
print(gru(torch.zeros(G * K + A)).shape, nn.GRUCell(3, 4, bias=False).bias_ih)
for bad in [
    lambda: gru(torch.zeros(B, 5)),
    lambda: gru(torch.zeros(B, G * K + A), torch.zeros(3, D)),
    lambda: gru(torch.zeros(1, 1, G * K + A)),
    lambda: cell(torch.zeros(B, 3), torch.zeros(B, D)),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
