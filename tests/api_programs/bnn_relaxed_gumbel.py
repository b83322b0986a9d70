"""Concrete / Gumbel-softmax relaxations: temperatures, straight-through estimators, REINFORCE baselines."""
import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


logits = torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]])
for temp in [0.1, 1.0, 5.0]:
    d = D.RelaxedOneHotCategorical(torch.tensor(temp), logits=logits)
    torch.manual_seed(0)
    s = d.rsample((3000,))
    print("T", temp, "mean", r(s.mean(0).round(decimals=1)), "max avg", round(s.max(-1).values.mean().item(), 1))
d = D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=logits)
print("shapes", d.batch_shape, d.event_shape, d.temperature.item(), r(d.probs), r(d.logits))
print("support", d.support, "has_rsample", d.has_rsample)
v = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
print("log_prob", r(d.log_prob(v)))
print("base", type(d.base_dist).__name__, d.base_dist.temperature.item())

rb = D.RelaxedBernoulli(torch.tensor([0.3, 2.0]), probs=torch.tensor([0.2, 0.9]))
print("rb", rb.batch_shape, r(rb.logits), r(rb.temperature), rb.support)
print("rb log_prob", r(rb.log_prob(torch.tensor([0.3, 0.6]))))
torch.manual_seed(1)
sb = rb.rsample((4000,))
print("rb mean", r(sb.mean(0).round(decimals=1)), "in (0,1)", bool(((sb > 0) & (sb < 1)).all()))
lrb = D.relaxed_bernoulli.LogitRelaxedBernoulli(torch.tensor(0.5), logits=torch.tensor([0.0, 1.0]))
print("logit rb", r(lrb.log_prob(torch.tensor([0.0, 1.0]))), lrb.support)

# gumbel_softmax hard straight-through keeps gradients
torch.manual_seed(2)
lg = torch.tensor([[2.0, 1.0, 0.1, -1.0]] * 2000, requires_grad=True)
y = F.gumbel_softmax(lg, tau=0.5, hard=True)
print("hard one-hot", bool((y.sum(-1) == 1).all()), sorted(set(y.flatten().tolist())))
print("freq", r(y.mean(0).round(decimals=1)), r(F.softmax(lg[0], -1).round(decimals=1)))
(y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print("grad flows", lg.grad.abs().sum().item() > 0, lg.grad.shape)
ys = F.gumbel_softmax(torch.zeros(2, 5), tau=1.0, hard=False, dim=0)
print("soft dim0 sums", r(ys.sum(0)))

# straight-through estimator for bernoulli gates
torch.manual_seed(3)
gate_logits = torch.zeros(6, requires_grad=True)
probs = torch.sigmoid(gate_logits)
hard = torch.bernoulli(probs.detach())
st = hard + probs - probs.detach()
st.sum().backward()
print("st grad", r(gate_logits.grad), "sample values", sorted(set(hard.tolist())) <= [0.0, 1.0])

# REINFORCE score function with a mean baseline vs reparameterised gradient, same objective
theta = torch.tensor([0.2, -0.3], requires_grad=True)
cat = D.Categorical(logits=torch.stack([theta, torch.zeros(2)], -1))
torch.manual_seed(4)
a = cat.sample((5000,))
reward = (a == 0).float()
baseline = reward.mean(0)
surrogate = ((reward - baseline) * cat.log_prob(a)).mean()
surrogate.backward()
exact = torch.sigmoid(theta.detach()) * (1 - torch.sigmoid(theta.detach()))
print("reinforce", r(theta.grad.round(decimals=1)), "exact", r(exact.round(decimals=1)))

oh = D.OneHotCategorical(logits=torch.tensor([0.0, 1.0, 2.0]))
print("onehot", oh.event_shape, r(oh.mean), r(oh.variance), round(oh.entropy().item(), 4))
print("onehot support", r(oh.enumerate_support()), oh.has_enumerate_support)
print("onehot lp", r(oh.log_prob(torch.tensor([0.0, 0.0, 1.0]))), r(oh.mode))
st_oh = D.OneHotCategoricalStraightThrough(logits=torch.tensor([0.0, 1.0, 2.0], requires_grad=True))
torch.manual_seed(5)
z = st_oh.rsample((3,))
print("st onehot", z.shape, z.requires_grad, r(z.sum(-1)))
try:
    D.RelaxedOneHotCategorical(logits=logits)
except Exception as e:
    print(type(e).__name__, e)
try:
    D.RelaxedBernoulli(torch.tensor(1.0), probs=torch.tensor([0.5]), logits=torch.tensor([0.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.gumbel_softmax(torch.zeros(3), tau=1.0, hard=True, dim=3)
except Exception as e:
    print(type(e).__name__, e)
