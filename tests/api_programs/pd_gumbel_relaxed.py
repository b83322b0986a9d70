"""Gumbel-softmax and relaxed discrete distributions as discrete-latent models use them: RelaxedOneHotCategorical
and RelaxedBernoulli rsample at several temperatures, their log_prob, straight-through estimators by hand and via
F.gumbel_softmax(hard=True), temperature annealing in a tiny categorical-VAE training, and the Concrete
distribution's underlying LogitRelaxedBernoulli."""
import torch
import torch.distributions as D
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.detach().flatten().tolist()]


logits = torch.tensor([1.0, 0.0, -1.0, 0.5])
for temp in (0.1, 0.5, 1.0, 5.0):
    dist = D.RelaxedOneHotCategorical(torch.tensor(temp), logits=logits)
    torch.manual_seed(0)
    s = dist.rsample((2,))
    print(f"T={temp:<4} sample {r(s)} sums {r(s.sum(-1))} log_prob {r(dist.log_prob(s))}")
dist = D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=logits)
print("temperature", dist.temperature, "probs", dist.probs, "support", dist.support)
print("batch/event", dist.batch_shape, dist.event_shape, "base", type(dist.base_dist).__name__)
torch.manual_seed(1)
many = dist.sample((4000,))
print("argmax freq", r(torch.bincount(many.argmax(-1), minlength=4).float() / 4000), "softmax", r(dist.probs))

# RelaxedBernoulli and its logit-space base
rb = D.RelaxedBernoulli(torch.tensor(0.3), logits=torch.tensor([-1.0, 0.0, 2.0]))
torch.manual_seed(2)
bs = rb.rsample((3,))
print("relaxed bernoulli", r(bs), "log_prob", r(rb.log_prob(bs)))
lrb = LogitRelaxedBernoulli(torch.tensor(0.3), logits=torch.tensor([-1.0, 0.0, 2.0]))
torch.manual_seed(2)
ls = lrb.rsample((3,))
print("logit relaxed", r(ls), "sigmoid matches", torch.allclose(torch.sigmoid(ls), bs, atol=1e-6))
print("logit relaxed log_prob", r(lrb.log_prob(ls)))

# gradients flow through rsample to the logits
lg = torch.tensor([0.5, -0.5, 0.0], requires_grad=True)
torch.manual_seed(3)
y = D.RelaxedOneHotCategorical(torch.tensor(0.7), logits=lg).rsample()
(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("relaxed sample", r(y), "grad", r(lg.grad))

# straight-through by hand vs F.gumbel_softmax(hard=True)
torch.manual_seed(4)
soft = F.gumbel_softmax(torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]]), tau=0.5)
print("gumbel_softmax soft", soft)
torch.manual_seed(4)
lg2 = torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]], requires_grad=True)
hard = F.gumbel_softmax(lg2, tau=0.5, hard=True)
print("gumbel_softmax hard", hard, "argmax same", torch.equal(hard.argmax(-1), soft.argmax(-1)))
(hard * torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).sum().backward()
print("straight-through grad", lg2.grad)
rel = D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=torch.tensor([1.0, 2.0, 0.5]))
torch.manual_seed(5)
ys = rel.rsample()
st = F.one_hot(ys.argmax(-1), 3).float() - ys.detach() + ys
print("hand straight-through", st, "requires_grad", st.requires_grad)

# a tiny categorical VAE: 4 one-hot inputs, a 4-way relaxed latent, annealed temperature
torch.manual_seed(6)
enc = nn.Linear(4, 4)
dec = nn.Linear(4, 4)
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.05)
data = torch.eye(4).repeat(8, 1)
prior = D.OneHotCategorical(logits=torch.zeros(4))
for step in range(120):
    tau = max(0.3, 2.0 * 0.97 ** step)
    q_logits = enc(data)
    z = D.RelaxedOneHotCategorical(torch.tensor(tau), logits=q_logits).rsample()
    rec = D.OneHotCategorical(logits=dec(z)).log_prob(data)
    kl = D.kl_divergence(D.OneHotCategorical(logits=q_logits), prior)
    loss = -(rec - kl).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 40 == 0 or step == 119:
        print(f"step {step:3d} tau {tau:.3f} loss {loss.item():.4f} kl {kl.mean().item():.4f}")
with torch.no_grad():
    codes = enc(torch.eye(4)).argmax(-1)
    recon = dec(F.one_hot(codes, 4).float()).argmax(-1)
    print("codes", codes.tolist(), "reconstructs", recon.tolist(), "distinct codes", len(set(codes.tolist())))

# errors
for bad in (lambda: D.RelaxedOneHotCategorical(torch.tensor(0.5)),
            lambda: D.RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([1.5])),
            lambda: F.gumbel_softmax(torch.zeros(3), tau=1.0, dim=3)):
    try:
        bad()
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:110])
print("exported", [n for n in ("RelaxedBernoulli", "LogitRelaxedBernoulli", "ExpRelaxedCategorical",
                               "RelaxedOneHotCategorical") if hasattr(D, n)])
