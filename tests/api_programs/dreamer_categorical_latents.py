"""DreamerV2/V3 discrete latents: 32x32-style categorical groups with unimix, OneHotCategorical and its
straight-through twin inside Independent, sample/rsample shapes and gradients, log_prob, entropy, mode, reprs."""

import torch
import torch.nn.functional as F
from torch.distributions import Independent, OneHotCategorical, OneHotCategoricalStraightThrough, Categorical

torch.manual_seed(0)
torch.set_printoptions(precision=4)
B, G, K = 3, 4, 5

logits = torch.randn(B, G * K, requires_grad=True)
lg = logits.reshape(B, G, K)
probs = F.softmax(lg, -1)
probs = 0.99 * probs + 0.01 / K
d = Independent(OneHotCategoricalStraightThrough(probs=probs), 1)
print(d)
print(d.batch_shape, d.event_shape, d.base_dist.batch_shape, d.base_dist.event_shape)
print(d.base_dist.logits[0], d.base_dist.logits.grad_fn is not None)
s = d.rsample()
print(s.shape, s.dtype, s.sum(-1).unique(), s.grad_fn is not None, s.requires_grad)
print(d.rsample((2,)).shape, d.sample().requires_grad, d.sample((2, 1)).shape)
lp = d.log_prob(s.detach())
print(lp.shape, lp.detach())
print(d.entropy().detach(), d.base_dist.entropy().shape)
print(d.mode.shape, d.mean.shape, d.variance[0, 0])
print(d.base_dist.mode[0], d.base_dist.param_shape)

# straight-through gradient: one_hot(argmax) + probs - probs.detach()
hard = F.one_hot(probs.argmax(-1), K).float()
st = hard + probs - probs.detach()
print(torch.equal(st, hard), st.grad_fn.name())
w = torch.arange(G * K, dtype=torch.float32).reshape(G, K)
(st * w).sum().backward(retain_graph=True)
g1 = logits.grad.clone()
logits.grad = None
(d.rsample() * w).sum().backward()
print(g1[0, :5], torch.allclose(g1, logits.grad))

# plain OneHotCategorical: no rsample
oc = OneHotCategorical(logits=lg.detach())
print(oc.has_rsample, OneHotCategoricalStraightThrough.has_rsample, oc.has_enumerate_support)
try:
    oc.rsample()
except Exception as e:
    print(type(e).__name__, e)
print(oc.enumerate_support().shape, oc.enumerate_support(expand=False).shape)
print(oc.support, oc.arg_constraints)
print(oc.probs.sum(-1)[0].round(decimals=4), oc.logits.exp().sum(-1)[0].round(decimals=4))
cat = Categorical(logits=lg.detach())
print(cat.sample().shape, cat.log_prob(torch.tensor(2)).shape, cat.entropy()[0])
idx = torch.tensor([[0, 1, 2, 3]] * B)
print(torch.allclose(cat.log_prob(idx), oc.log_prob(F.one_hot(idx, K).float())))

# validation of one-hot values, probs, shapes
for bad in [
    lambda: oc.log_prob(torch.full((B, G, K), 0.2)),
    lambda: OneHotCategorical(probs=torch.tensor([0.5, -0.1, 0.6])),
    lambda: OneHotCategorical(probs=torch.tensor(0.5)),
    lambda: OneHotCategorical(),
    lambda: OneHotCategorical(probs=probs, logits=lg),
    lambda: Independent(oc, 3),
    lambda: oc.log_prob(torch.eye(K)[:2]),
]:
    try:
        bad()
        print("ok")
    except Exception as e:
        print(type(e).__name__, str(e)[:160])

# probs that do not sum to one are normalised, logits are normalised with logsumexp
p = OneHotCategorical(probs=torch.tensor([[2.0, 6.0], [1.0, 1.0]]))
print(p.probs, p.logits)
q = OneHotCategorical(logits=torch.tensor([[0.0, 0.0, float("-inf")]]))
print(q.probs, q.logits, q.entropy())
print(Categorical(probs=torch.tensor([0.0, 1.0])).entropy())

# expand and batched sampling
e = d.expand(torch.Size([2, B]))
print(e.batch_shape, e.event_shape, e.sample().shape, type(e).__name__, type(e.base_dist).__name__)
torch.manual_seed(1)
counts = OneHotCategorical(probs=torch.tensor([0.1, 0.2, 0.7])).sample((2000,)).sum(0)
print(counts, counts.dtype)
print(OneHotCategorical(probs=torch.tensor([0.1, 0.9], dtype=torch.float64)).sample().dtype)
