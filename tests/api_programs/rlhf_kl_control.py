"""KL regularisation against a frozen reference as RLHF code computes and controls it: the k1/k2/k3 estimators
of sampled tokens against the exact KL of full distributions (F.kl_div in its input/target and log_target forms,
kl_divergence of two Categoricals, xlogy), the warning kl_div's 'mean' reduction raises (captured with
warnings.catch_warnings), the adaptive and fixed KL controllers, and KL-shaped per-token rewards."""

import warnings

import numpy as np
import torch
import torch.nn.functional as F
from torch.distributions import Categorical, kl_divergence

torch.manual_seed(0)
B, T, V = 2, 4, 6
policy_logits = torch.randn(B, T, V)
ref_logits = policy_logits + 0.3 * torch.randn(B, T, V)
logp = F.log_softmax(policy_logits, -1)
ref_logp = F.log_softmax(ref_logits, -1)

exact = (logp.exp() * (logp - ref_logp)).sum(-1)
print("exact KL:", exact.round(decimals=4).tolist())
kd = F.kl_div(ref_logp, logp, reduction="none", log_target=True).sum(-1)
kd2 = F.kl_div(ref_logp, logp.exp(), reduction="none").sum(-1)
cat = kl_divergence(Categorical(logits=policy_logits), Categorical(logits=ref_logits))
xl = (torch.xlogy(logp.exp(), logp.exp()) - logp.exp() * ref_logp).sum(-1)
print(
    "kl_div log_target / prob target / Categorical / xlogy agree:",
    torch.allclose(kd, exact, atol=1e-6),
    torch.allclose(kd2, exact, atol=1e-6),
    torch.allclose(cat, exact, atol=1e-6),
    torch.allclose(xl, exact, atol=1e-6),
)
print(
    "batchmean:",
    round(F.kl_div(ref_logp.view(-1, V), logp.view(-1, V), reduction="batchmean", log_target=True).item(), 4),
    "vs",
    round(exact.mean().item(), 4),
)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    m = F.kl_div(ref_logp, logp, reduction="mean", log_target=True)
print("mean:", round(m.item(), 6), "warnings:", [(x.category.__name__, str(x.message)) for x in w])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    F.kl_div(ref_logp, logp, size_average=False, log_target=True)
print("legacy:", [(x.category.__name__, str(x.message)) for x in w])

g = torch.Generator().manual_seed(3)
samples = torch.multinomial(logp.exp().view(-1, V), 2000, replacement=True, generator=g).view(B, T, -1)
lp = logp.gather(-1, samples)
rlp = ref_logp.gather(-1, samples)
log_ratio = lp - rlp
k1 = log_ratio
k2 = 0.5 * log_ratio**2
k3 = (-log_ratio).exp() - 1 + log_ratio
for name, k in [("k1", k1), ("k2", k2), ("k3", k3)]:
    est = k.mean(-1)
    print(f"{name}: mean abs err {(est - exact).abs().mean().item():.3f} min sample {k.min().item():.4f}")
print("k3 non-negative:", bool((k3 >= -1e-7).all()))


class AdaptiveKLController:
    def __init__(self, init_kl_coef, target, horizon):
        self.value, self.target, self.horizon = init_kl_coef, target, horizon

    def update(self, current, n_steps):
        proportional_error = np.clip(current / self.target - 1, -0.2, 0.2)
        self.value *= 1 + proportional_error * n_steps / self.horizon


ctl = AdaptiveKLController(0.2, target=6.0, horizon=10000)
for kl in [2.0, 6.0, 12.0, torch.tensor(30.0).item()]:
    ctl.update(kl, n_steps=256)
    print(f"kl {kl:5.1f} -> coef {ctl.value:.6f}")
pe = torch.clamp(torch.tensor(12.0) / 6.0 - 1, -0.2, 0.2)
print("torch clip:", pe.item(), type(float(np.clip(np.float32(3.0), 0, 1))).__name__)

mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.float32)
taken = torch.tensor([[0, 3, 5, 0], [2, 2, 1, 4]])
per_tok = (logp.gather(-1, taken[..., None]) - ref_logp.gather(-1, taken[..., None])).squeeze(-1)
non_score = -ctl.value * per_tok * mask
score = torch.tensor([0.7, -0.2])
last = mask.sum(-1).long() - 1
rewards = non_score.clone()
rewards[torch.arange(B), last] += score
print("rewards:", rewards.round(decimals=4).tolist())
print(
    "seq kl:",
    (per_tok * mask).sum(-1).round(decimals=4).tolist(),
    "mean-token kl:",
    round(((per_tok * mask).sum() / mask.sum()).item(), 4),
)

for bad in [
    lambda: F.kl_div(ref_logp, logp, reduction="avg"),
    lambda: F.kl_div(ref_logp, logp[:, :2, :3]),
    lambda: kl_divergence(Categorical(logits=policy_logits), Categorical(logits=ref_logits[..., :4])),
    lambda: F.kl_div(ref_logp.long(), logp),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
