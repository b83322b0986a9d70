"""A DreamerV3-style world model step: an RSSM with a GRUCell deterministic state and 4x4 discrete latents
(OneHotCategoricalStraightThrough inside Independent, 1% unimix), KL balancing with free bits through detach,
imagination rollouts in latent space, lambda-returns computed backwards, return normalisation by percentiles
(torch.quantile) and a Decision-Transformer-style causal embedding of (return-to-go, state, action) tokens."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, OneHotCategoricalStraightThrough, kl_divergence

rng = np.random.default_rng(31)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def det_(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * scale).astype(np.float32)))
    return m


G, K, H, A, O = 4, 4, 12, 2, 5  # groups, classes, deter size, actions, obs size


def latent_dist(logits, unimix=0.01):
    logits = logits.view(*logits.shape[:-1], G, K)
    probs = F.softmax(logits, -1)
    probs = (1 - unimix) * probs + unimix / K
    return Independent(OneHotCategoricalStraightThrough(probs=probs), 1)


def mode_sample(dist):
    # deterministic stand-in for dist.rsample(): the mode, with rsample's straight-through gradient
    probs = dist.base_dist.probs
    hard = F.one_hot(probs.argmax(-1), K).to(probs.dtype)
    return hard + probs - probs.detach()


class RSSM(nn.Module):
    def __init__(self):
        super().__init__()
        self.img_in = nn.Sequential(nn.Linear(G * K + A, H), nn.LayerNorm(H), nn.SiLU())
        self.cell = nn.GRUCell(H, H)
        self.prior = nn.Linear(H, G * K)
        self.post = nn.Sequential(nn.Linear(H + O, H), nn.LayerNorm(H), nn.SiLU(), nn.Linear(H, G * K))

    def img_step(self, h, z, a):
        h = self.cell(self.img_in(torch.cat([z.flatten(-2), a], -1)), h)
        return h, latent_dist(self.prior(h))

    def obs_step(self, h, z, a, o):
        h, prior = self.img_step(h, z, a)
        post = latent_dist(self.post(torch.cat([h, o], -1)))
        return h, prior, post


rssm = det_(RSSM())
B, T = 3, 5
obs = torch.from_numpy(rng.standard_normal((T, B, O)).astype(np.float32))
actions = F.one_hot(torch.from_numpy(rng.integers(0, A, (T, B))), A).float()
h, z = torch.zeros(B, H), torch.zeros(B, G, K)
kls_dyn, kls_rep, hs, zs = [], [], [], []
for t in range(T):
    h, prior, post = rssm.obs_step(h, z, actions[t], obs[t])
    z = mode_sample(post)
    prior_sg = latent_dist(rssm.prior(h).detach())
    post_sg = Independent(OneHotCategoricalStraightThrough(probs=post.base_dist.probs.detach()), 1)
    kls_dyn.append(kl_divergence(post_sg, prior))
    kls_rep.append(kl_divergence(post, prior_sg))
    hs.append(h)
    zs.append(z)
free = 0.35
dyn = torch.stack(kls_dyn)
rep = torch.stack(kls_rep)
kl_loss = 0.5 * torch.clip(dyn, min=free).mean() + 0.1 * torch.maximum(rep, torch.tensor(free)).mean()
print("dist", post.batch_shape, post.event_shape, post.base_dist.batch_shape, post.base_dist.event_shape)
print("kl dyn", r(dyn[:, 0], 5), "rep == dyn", torch.allclose(dyn, rep))
print("kl loss", round(kl_loss.item(), 4), "z one-hot", r(zs[-1].sum(-1)[0], 4), zs[-1].argmax(-1).tolist())
kl_loss.backward()
print("grads", r(rssm.prior.weight.grad.abs().sum(1), 4), rssm.post[3].bias.grad is not None,
      r(rssm.cell.weight_hh.grad.norm().view(1)))
hard = F.one_hot(zs[-1].argmax(-1), K).float()
print("log_prob", r(post.log_prob(hard)), r(post.entropy()), post.base_dist.probs.min().item() >= 0.01 / K)

# imagination and lambda-returns
actor = det_(nn.Linear(H + G * K, A))
critic = det_(nn.Linear(H + G * K, 1))
reward_head = det_(nn.Linear(H + G * K, 1))
horizon, gamma, lam = 6, 0.99, 0.95
with torch.no_grad():
    h_i, z_i = hs[-1].detach(), zs[-1].detach()
    feats, rewards = [], []
    for k in range(horizon):
        feat = torch.cat([h_i, z_i.flatten(-2)], -1)
        feats.append(feat)
        a = F.one_hot(actor(feat).argmax(-1), A).float()
        h_i, prior = rssm.img_step(h_i, z_i, a)
        z_i = mode_sample(prior)
        rewards.append(reward_head(torch.cat([h_i, z_i.flatten(-2)], -1)).squeeze(-1))
    feats = torch.stack(feats)
    rewards = torch.stack(rewards)
    values = critic(feats).squeeze(-1)
    last = critic(torch.cat([h_i, z_i.flatten(-2)], -1)).squeeze(-1)
cont = torch.ones_like(rewards) * gamma
rets = [None] * horizon
nxt = last
for k in reversed(range(horizon)):
    v_next = values[k + 1] if k + 1 < horizon else last
    nxt = rewards[k] + cont[k] * ((1 - lam) * v_next + lam * nxt)
    rets[k] = nxt
rets = torch.stack(rets)
print("imagined", feats.shape, "returns", r(rets[:, 0]), r(rets[0]))
lo, hi = torch.quantile(rets, torch.tensor([0.05, 0.95])).unbind()
scale = torch.clamp(hi - lo, min=1.0)
adv = (rets - values) / scale
print("percentiles", round(lo.item(), 4), round(hi.item(), 4), "scale", round(scale.item(), 4), r(adv[0]))
ema = torch.zeros(2)
for q in (torch.stack([lo, hi]), torch.stack([lo - 0.5, hi + 0.5])):
    ema.lerp_(q, 0.01)
print("ema", r(ema))


# Decision Transformer token embedding with timesteps and a causal mask
class DTEmbed(nn.Module):
    def __init__(self, d=8, max_t=16):
        super().__init__()
        self.embed_t = nn.Embedding(max_t, d)
        self.embed_rtg = nn.Linear(1, d)
        self.embed_s = nn.Linear(O, d)
        self.embed_a = nn.Linear(A, d)
        self.ln = nn.LayerNorm(d)

    def forward(self, rtg, s, a, t):
        te = self.embed_t(t)
        toks = torch.stack([self.embed_rtg(rtg) + te, self.embed_s(s) + te, self.embed_a(a) + te], dim=2)
        return self.ln(toks.reshape(s.shape[0], 3 * s.shape[1], -1))


dt = det_(DTEmbed())
rtg_seq = torch.flip(torch.cumsum(torch.flip(torch.tensor([[0.1, 0.0, 0.5, 1.0]]), [1]), 1), [1]).unsqueeze(-1)
x = dt(rtg_seq, obs[:4, :1].transpose(0, 1), actions[:4, :1].transpose(0, 1), torch.arange(4).unsqueeze(0))
L = x.shape[1]
mask = torch.triu(torch.full((L, L), float("-inf")), diagonal=1)
att = F.softmax(x @ x.transpose(1, 2) / x.shape[-1] ** 0.5 + mask, -1)
print("dt", rtg_seq.squeeze(-1).tolist(), x.shape, r(att[0, 2, :3], 3), r(att[0].sum(-1), 3))
sdpa = F.scaled_dot_product_attention(x, x, x, is_causal=True)
print("sdpa == manual", torch.allclose(sdpa, att @ x, atol=1e-5))
try:
    dt.embed_t(torch.tensor([[16]]))
except IndexError as e:
    print("IndexError", e)
try:
    Independent(OneHotCategoricalStraightThrough(probs=torch.ones(3, 4) / 4), 2)
except ValueError as e:
    print("ValueError", e)
