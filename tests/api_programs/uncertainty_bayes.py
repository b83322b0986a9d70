"""Uncertainty estimation: MC dropout, deep ensembles, SWA/EMA with AveragedModel/SWALR/update_bn, temperature
scaling fit by LBFGS, expected calibration error via bucketize, a Laplace approximation (Hessian, eigh, slogdet),
Bayes-by-backprop with a ParameterDict and rsample, and printed result tuples."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import distributions as D
from torch.optim.swa_utils import AveragedModel, SWALR, get_ema_multi_avg_fn, update_bn

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def init(m, scale=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


X = T(32, 4)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).long() + (X[:, 2] > 1).long()
net = init(nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 3)))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
swa_model = AveragedModel(net)
ema_model = AveragedModel(net, multi_avg_fn=get_ema_multi_avg_fn(0.8))
swa_sched = SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear")
net[3].p = 0.0  # dropout masks differ between libraries: train without, test MC dropout's plumbing below
for epoch in range(4):
    net.train()
    for i in range(0, 32, 8):
        opt.zero_grad()
        loss = F.cross_entropy(net(X[i:i + 8]), y[i:i + 8])
        loss.backward()
        opt.step()
        ema_model.update_parameters(net)
    if epoch >= 1:
        swa_model.update_parameters(net)
        swa_sched.step()
    print("epoch", epoch, round(loss.item(), 4), round(opt.param_groups[0]["lr"], 4), swa_model.n_averaged.item())
update_bn([(X[i:i + 8],) for i in range(0, 32, 8)], swa_model)
print("swa_bn", r(swa_model.module[1].running_mean), swa_model.module[1].num_batches_tracked.item())
print("ema", r(ema_model.module[0].weight), ema_model.n_averaged.item(), type(ema_model.module).__name__)
swa_model.eval()
print("swa_logits", r(swa_model(X[:2])))
print("swa_sd", list(swa_model.state_dict().keys())[:3])

net[3].p = 0.3
net.eval()
for m in net.modules():
    if isinstance(m, nn.Dropout):
        m.train()
with torch.no_grad():
    mc = torch.stack([F.softmax(net(X), dim=-1) for _ in range(5)])
print("mc_dropout", tuple(mc.shape), net[3].training, net[1].training,
      bool(torch.allclose(mc.sum(-1), torch.ones(5, 32))))
net.eval()

ensemble = [init(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))) for _ in range(3)]
for m in ensemble:
    o = torch.optim.Adam(m.parameters(), lr=0.05)
    for _ in range(5):
        o.zero_grad()
        F.cross_entropy(m(X), y).backward()
        o.step()
with torch.no_grad():
    probs = torch.stack([F.softmax(m(X), -1) for m in ensemble]).mean(0)
entropy = -(probs * probs.clamp_min(1e-12).log()).sum(-1)
print("ensemble", r(probs[0]), r(entropy[:3]), round(D.Categorical(probs=probs).entropy().mean().item(), 4))
conf, pred = probs.max(dim=-1)
print(probs[:2].max(dim=-1))
print(torch.sort(entropy[:4], descending=True))

# temperature scaling
with torch.no_grad():
    logits = torch.stack([m(X) for m in ensemble]).mean(0)
temperature = nn.Parameter(torch.ones(1) * 1.5)
lbfgs = torch.optim.LBFGS([temperature], lr=0.01, max_iter=50)


def eval_t():
    lbfgs.zero_grad()
    loss = F.cross_entropy(logits / temperature, y)
    loss.backward()
    return loss


lbfgs.step(eval_t)
print("temperature", round(temperature.item(), 4), round(F.cross_entropy(logits / temperature, y).item(), 4))


def ece(probs, labels, n_bins=5):
    conf, pred = probs.max(1)
    acc = pred.eq(labels)
    bounds = torch.linspace(0, 1, n_bins + 1)
    ids = torch.bucketize(conf, bounds[1:-1], right=False)
    e = torch.zeros(1)
    for b in range(n_bins):
        in_bin = ids == b
        if in_bin.any():
            e += in_bin.float().mean() * (conf[in_bin].mean() - acc[in_bin].float().mean()).abs()
    return e, torch.bincount(ids, minlength=n_bins)


e, counts = ece(F.softmax(logits / temperature, -1).detach(), y)
print("ece", round(e.item(), 4), counts.tolist())

# Laplace approximation of a logistic regression's last layer
w_map = nn.Parameter(torch.zeros(4, dtype=torch.float64))
Xd, yd = X.double(), (y > 0).double()
o = torch.optim.LBFGS([w_map], line_search_fn="strong_wolfe")


def nll():
    o.zero_grad()
    l = F.binary_cross_entropy_with_logits(Xd @ w_map, yd, reduction="sum") + 0.5 * w_map.pow(2).sum()
    l.backward()
    return l


o.step(nll)
H = torch.autograd.functional.hessian(
    lambda w: F.binary_cross_entropy_with_logits(Xd @ w, yd, reduction="sum") + 0.5 * w.pow(2).sum(), w_map.detach())
evals, evecs = torch.linalg.eigh(H)
sign, logabsdet = torch.linalg.slogdet(H)
print("laplace", r(w_map), r(evals), sign.item(), round(logabsdet.item(), 4))
cov = torch.linalg.inv(H)
post = D.MultivariateNormal(w_map.detach(), covariance_matrix=cov)
f_var = (Xd[:3] @ cov * Xd[:3]).sum(-1)
probit = torch.sigmoid((Xd[:3] @ w_map) / torch.sqrt(1 + math.pi / 8 * f_var))
print("predictive", r(probit), r(post.stddev), round(post.entropy().item(), 4))

# Bayes by backprop
class BayesLinear(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.params = nn.ParameterDict({"w_mu": torch.zeros(o, i), "w_rho": torch.full((o, i), -3.0),
                                        "b_mu": torch.zeros(o)})
        self.prior = D.Normal(0.0, 1.0)

    def forward(self, x, eps):
        sigma = F.softplus(self.params["w_rho"])
        q = D.Normal(self.params["w_mu"], sigma)
        w = self.params["w_mu"] + sigma * eps
        kl = D.kl_divergence(q, self.prior).sum()
        return F.linear(x, w, self.params["b_mu"]), kl


bl = BayesLinear(4, 3)
print(bl.params)
print("bbb_names", [n for n, _ in bl.named_parameters()])
bopt = torch.optim.Adam(bl.parameters(), lr=0.05)
for step in range(3):
    out, kl = bl(X, T(3, 4))
    loss = F.cross_entropy(out, y) + kl / 32
    bopt.zero_grad()
    loss.backward()
    bopt.step()
    print("bbb", step, round(loss.item(), 4), round(kl.item(), 4))
q = D.Normal(torch.zeros(3), torch.ones(3))
s = q.rsample((2,))
print("rsample", tuple(s.shape), s.requires_grad, q.has_rsample, D.Bernoulli(0.5).has_rsample)
