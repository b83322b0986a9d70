"""Actor-critic plumbing from IMPALA/A2C/MAPPO code: a GRU policy with done-mask resets over a rollout, invalid
action masking (masked_fill with -inf or finfo.min, Categorical entropy on masked logits), V-trace targets with
clipped importance weights, a Welford running mean/std for observation and reward normalisation, and the other
policy heads (OneHotCategorical, Bernoulli, Beta, MultivariateNormal) with their KLs."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Bernoulli, Beta, Categorical, MultivariateNormal, OneHotCategorical, kl_divergence

rng = np.random.default_rng(21)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def N(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


class RunningMeanStd:
    """Parallel Welford update (Chan et al.) as in baselines' VecNormalize, in float64."""

    def __init__(self, shape=(), epsilon=1e-4):
        self.mean = torch.zeros(shape, dtype=torch.float64)
        self.var = torch.ones(shape, dtype=torch.float64)
        self.count = epsilon

    def update(self, x):
        batch_mean, batch_var, batch_count = x.mean(0), x.var(0, unbiased=False), x.shape[0]
        delta = batch_mean - self.mean
        tot = self.count + batch_count
        self.mean = self.mean + delta * batch_count / tot
        m2 = self.var * self.count + batch_var * batch_count + delta**2 * self.count * batch_count / tot
        self.var = m2 / tot
        self.count = tot


rms = RunningMeanStd(shape=(3,))
chunks = [torch.from_numpy(rng.normal(2.0, 3.0, (n, 3))) for n in (5, 17, 8)]
for c in chunks:
    rms.update(c)
allx = torch.cat(chunks)
print("welford", r(rms.mean, 3), r(rms.var, 3), r(allx.mean(0), 3), r(allx.var(0, correction=0), 3))
norm = ((allx[:2] - rms.mean) / torch.sqrt(rms.var + 1e-8)).clip(-10, 10).float()
print("normed", r(norm), norm.dtype)


class RecurrentPolicy(nn.Module):
    def __init__(self, obs_dim, n_act, hid=12):
        super().__init__()
        self.enc = nn.Linear(obs_dim, hid)
        self.gru = nn.GRUCell(hid, hid)
        self.pi = nn.Linear(hid, n_act)
        self.v = nn.Linear(hid, 1)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(N(*p.shape, scale=0.3))

    def forward(self, obs, h, done, avail):
        h = h * (1.0 - done).unsqueeze(-1)  # reset the hidden state where an episode ended
        h = self.gru(torch.tanh(self.enc(obs)), h)
        logits = self.pi(h).masked_fill(~avail, float("-inf"))
        return Categorical(logits=logits), self.v(h).squeeze(-1), h


T, E, n_act = 6, 3, 4
pol = RecurrentPolicy(5, n_act)
obs = N(T, E, 5)
dones = torch.from_numpy((rng.random((T, E)) < 0.25).astype(np.float32))
avail = torch.from_numpy(rng.random((T, E, n_act)) < 0.7)
avail[..., 0] = True
h = torch.zeros(E, 12)
logps, ents, vals, acts = [], [], [], []
for t in range(T):
    dist, v, h = pol(obs[t], h, dones[t], avail[t])
    a = dist.probs.argmax(-1)
    acts.append(a)
    logps.append(dist.log_prob(a))
    ents.append(dist.entropy())
    vals.append(v)
logps, ents, vals, acts = torch.stack(logps), torch.stack(ents), torch.stack(vals), torch.stack(acts)
print("masked probs zero", bool((dist.probs[~avail[-1]] == 0).all()), "entropy finite", bool(ents.isfinite().all()))
print("acts", acts.tolist()[:3], "ent", r(ents[0], 3), "logp", r(logps[0], 3))
masked2 = pol.pi(h).masked_fill(~avail[-1], torch.finfo(torch.float32).min)
print("finfo mask", r(Categorical(logits=masked2).entropy(), 3), r(ents[-1], 3))


def vtrace(behaviour_logp, target_logp, rewards, values, bootstrap, discounts, rho_bar=1.0, c_bar=1.0):
    rhos = torch.exp(target_logp - behaviour_logp)
    clipped_rhos = torch.clamp(rhos, max=rho_bar)
    cs = torch.clamp(rhos, max=c_bar)
    values_tp1 = torch.cat([values[1:], bootstrap.unsqueeze(0)], 0)
    deltas = clipped_rhos * (rewards + discounts * values_tp1 - values)
    acc = torch.zeros_like(bootstrap)
    out = []
    for t in range(deltas.shape[0] - 1, -1, -1):
        acc = deltas[t] + discounts[t] * cs[t] * acc
        out.append(acc)
    vs_minus_v = torch.stack(out[::-1])
    vs = vs_minus_v + values
    vs_tp1 = torch.cat([vs[1:], bootstrap.unsqueeze(0)], 0)
    pg_adv = clipped_rhos * (rewards + discounts * vs_tp1 - values)
    return vs.detach(), pg_adv.detach(), rhos


behaviour = logps.detach() + N(T, E, scale=0.3)
rewards = N(T, E, scale=0.5)
discounts = 0.99 * (1 - dones)
vs, pg_adv, rhos = vtrace(behaviour, logps.detach(), rewards, vals.detach(), torch.zeros(E), discounts)
print("vtrace vs", r(vs[:, 0]), "adv", r(pg_adv[:, 1]))
print("rhos clipped", int((rhos > 1).sum()), r(rhos.max()))
pg_loss = -(logps * pg_adv).sum()
baseline_loss = 0.5 * ((vs - vals) ** 2).sum()
entropy_loss = -ents.sum()
total = pg_loss + 0.5 * baseline_loss + 0.01 * entropy_loss
total.backward()
gn = torch.nn.utils.clip_grad_norm_(pol.parameters(), 40.0)
print("impala loss", round(total.item(), 4), "grad norm", round(gn.item(), 4), r(pol.gru.weight_hh.grad, 4))

# other heads
oh = OneHotCategorical(logits=N(2, 4))
x = F.one_hot(torch.tensor([1, 3]), 4).float()
print("onehot", r(oh.log_prob(x)), oh.event_shape, r(oh.entropy()), oh.mode.tolist())
bern = Bernoulli(logits=N(5))
print("bernoulli", r(bern.log_prob(torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0]))), r(bern.entropy()), r(bern.probs))
alpha_, beta_ = F.softplus(N(3)) + 1.0, F.softplus(N(3)) + 1.0
bdist = Beta(alpha_, beta_)
act = torch.tensor([0.2, 0.5, 0.9])
print("beta", r(bdist.log_prob(act)), r(bdist.mean), r(bdist.entropy()), r(2 * act - 1))
L = torch.tensor([[1.0, 0.0], [0.5, 0.8]])
mvn = MultivariateNormal(torch.zeros(2), scale_tril=L)
mvn2 = MultivariateNormal(torch.tensor([0.3, -0.1]), covariance_matrix=torch.eye(2) * 0.5)
print("mvn", r(mvn.log_prob(torch.tensor([[0.1, 0.2], [1.0, -1.0]]))), r(mvn.entropy()), r(mvn.covariance_matrix, 4))
print("kls", r(kl_divergence(mvn, mvn2)), r(kl_divergence(bdist, Beta(torch.ones(3), torch.ones(3)))),
      r(kl_divergence(bern, Bernoulli(probs=torch.full((5,), 0.5)))))
print("kl cat", r(kl_divergence(Categorical(logits=N(2, 3)), Categorical(logits=N(2, 3)))))

# typical mistakes
try:
    Categorical(logits=torch.full((2, 3), float("-inf")))
except ValueError as e:
    print("ValueError", str(e)[:80])
try:
    Bernoulli(probs=torch.tensor([0.5]), logits=torch.tensor([0.0]))
except ValueError as e:
    print("ValueError", str(e))
try:
    MultivariateNormal(torch.zeros(2))
except ValueError as e:
    print("ValueError", str(e))
try:
    pol.gru(torch.zeros(3, 12), torch.zeros(2, 12))
except RuntimeError as e:
    print("RuntimeError", str(e))
