"""A PPO update loop over a rollout buffer as small RLHF/RL codebases write it: a policy with a value head over
token states, Categorical(logits=...) for log_prob/entropy, several epochs of shuffled minibatches from
torch.randperm with a Generator and BatchSampler, normalised advantages per minibatch, the clipped surrogate,
clipped value loss with smooth_l1/mse, an entropy bonus, clip_grad_norm_ with the returned norm, early stopping on
approximate KL, and the distribution misuse PyTorch rejects."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical
from torch.utils.data import BatchSampler, SubsetRandomSampler

torch.manual_seed(0)
V, D, A = 10, 16, 5


class PolicyWithValueHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.body = nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, D), nn.Tanh())
        self.pi = nn.Linear(D, A)
        self.v_head = nn.Sequential(nn.Dropout(0.0), nn.Linear(D, 1))
        nn.init.orthogonal_(self.pi.weight, gain=0.01)
        nn.init.zeros_(self.pi.bias)
        nn.init.orthogonal_(self.v_head[1].weight, gain=1.0)
        nn.init.constant_(self.v_head[1].bias, 0.0)

    def forward(self, s):
        h = self.body(self.emb(s))
        return self.pi(h), self.v_head(h).squeeze(-1)


net = PolicyWithValueHead()
print(
    "pi weight norm:",
    round(net.pi.weight.norm().item(), 4),
    "v rows orthonormal:",
    round((net.v_head[1].weight @ net.v_head[1].weight.T).item(), 4),
)
N = 24
states = torch.randint(0, V, (N,))
with torch.no_grad():
    logits, values = net(states)
    dist = Categorical(logits=logits)
    actions = dist.sample()
    old_logp = dist.log_prob(actions)
rewards = (actions == states % A).float() - 0.1
adv = rewards - values
returns = rewards
print("rollout:", tuple(actions.shape), actions.dtype, "mean reward:", round(rewards.mean().item(), 4))
print(
    "entropy at init:",
    round(dist.entropy().mean().item(), 4),
    "max:",
    round(torch.log(torch.tensor(A * 1.0)).item(), 4),
)

opt = torch.optim.Adam(net.parameters(), lr=3e-3, eps=1e-5)
g = torch.Generator().manual_seed(0)
clip, vclip, ent_coef, target_kl = 0.2, 0.2, 0.01, 0.05
for epoch in range(3):
    perm = torch.randperm(N, generator=g)
    stats = []
    for mb in perm.split(8):
        logits, v = net(states[mb])
        d = Categorical(logits=logits)
        new_logp = d.log_prob(actions[mb])
        a = adv[mb]
        a = (a - a.mean()) / (a.std() + 1e-8)
        log_ratio = new_logp - old_logp[mb]
        ratio = log_ratio.exp()
        surr = torch.min(ratio * a, torch.clamp(ratio, 1 - clip, 1 + clip) * a)
        v_clipped = values[mb] + (v - values[mb]).clamp(-vclip, vclip)
        v_loss = (
            0.5
            * torch.max(
                F.mse_loss(v, returns[mb], reduction="none"), F.mse_loss(v_clipped, returns[mb], reduction="none")
            ).mean()
        )
        loss = -surr.mean() + 0.5 * v_loss - ent_coef * d.entropy().mean()
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        opt.step()
        with torch.no_grad():
            approx_kl = ((ratio - 1) - log_ratio).mean()
        stats.append((loss.item(), gn.item(), approx_kl.item(), ((ratio - 1).abs() > clip).float().mean().item()))
    s = torch.tensor(stats)
    print(
        f"epoch {epoch}: loss {s[:, 0].mean():.4f} gnorm {s[:, 1].max():.4f} kl {s[:, 2].mean():.5f} "
        f"clipfrac {s[:, 3].mean():.4f}"
    )
    if s[:, 2].mean() > target_kl:
        print("early stop")
        break

sampler = BatchSampler(SubsetRandomSampler(range(N), generator=torch.Generator().manual_seed(1)), 10, drop_last=False)
print("batch sizes:", [len(b) for b in sampler], len(sampler))
sampler = BatchSampler(SubsetRandomSampler(range(N)), 10, drop_last=True)
print("drop_last:", len(sampler), list(BatchSampler(range(5), 2, False)))

with torch.no_grad():
    logits, v = net(states)
d = Categorical(logits=logits)
print(
    "new entropy:",
    round(d.entropy().mean().item(), 4),
    "probs row sums:",
    d.probs.sum(-1)[:3].round(decimals=4).tolist(),
)
print("sl1 value loss:", round(F.smooth_l1_loss(v, returns, beta=0.5).item(), 4))
print("mode == argmax:", torch.equal(d.mode, logits.argmax(-1)), d.sample((2,)).shape, d.batch_shape)

for bad in [
    lambda: d.log_prob(actions[:5]),
    lambda: d.log_prob(torch.full((N,), A)),
    lambda: Categorical(logits=logits, probs=logits.softmax(-1)),
    lambda: Categorical(probs=-logits.softmax(-1)),
    lambda: BatchSampler(range(5), 0, False),
    lambda: BatchSampler(range(5), 2, drop_last="no"),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
