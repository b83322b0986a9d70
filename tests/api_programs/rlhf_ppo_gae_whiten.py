"""PPO for language models as TRL/OpenRLHF code writes it: per-token rewards with a KL penalty against the
reference and the score added at each sequence's last response token (scatter_add_ at an index from the mask),
GAE by a reversed loop over tokens with torch.stack(...[::-1]).flip, masked whitening with unbiased and
correction forms of var, clipped value and policy losses with clamp and torch.max/min, clipfrac and approx-KL
statistics, and the empty-mask and dtype corners."""

import torch

torch.manual_seed(0)
B, T = 3, 6
logprobs = -torch.rand(B, T) * 2
ref_logprobs = logprobs + 0.1 * torch.randn(B, T)
values = torch.randn(B, T) * 0.5
scores = torch.tensor([1.0, -0.5, 0.25])
mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], dtype=torch.float32)


def masked_mean(x, m, dim=None):
    return (x * m).sum() / m.sum() if dim is None else (x * m).sum(dim) / m.sum(dim)


def masked_var(x, m, unbiased=True):
    mean = masked_mean(x, m)
    var = masked_mean((x - mean) ** 2, m)
    if unbiased:
        n = m.sum()
        if n == 0:
            raise ValueError("The sum of the mask is zero")
        var = var * n / (n - 1)
    return var


def masked_whiten(x, m, shift_mean=True):
    mean, var = masked_mean(x, m), masked_var(x, m)
    w = (x - mean) * torch.rsqrt(var + 1e-8)
    return w if shift_mean else w + mean


kl = logprobs - ref_logprobs
kl_coef = 0.05
rewards = -kl_coef * kl
last = mask.sum(1).long() - 1
print("last idx:", last.tolist())
rewards.scatter_add_(1, last.unsqueeze(1), scores.unsqueeze(1))
rewards = rewards * mask
print("rewards:", rewards.round(decimals=4).tolist())

gamma, lam = 1.0, 0.95
lastgaelam = torch.zeros(B)
adv_rev = []
for t in reversed(range(T)):
    next_v = values[:, t + 1] if t < T - 1 else torch.zeros(B)
    delta = rewards[:, t] + gamma * next_v * mask[:, t + 1 if t < T - 1 else t] - values[:, t]
    lastgaelam = delta + gamma * lam * lastgaelam
    adv_rev.append(lastgaelam)
advantages = torch.stack(adv_rev[::-1], dim=1)
alt = torch.stack(adv_rev, 1).flip(1)
print("flip equal:", torch.equal(advantages, alt))
returns = advantages + values
advantages = masked_whiten(advantages, mask)
print("adv:", advantages.round(decimals=4).tolist())
print(
    "whitened mean/var:", round(masked_mean(advantages, mask).item(), 4), round(masked_var(advantages, mask).item(), 4)
)

flat = torch.masked_select(returns, mask.bool())
print(
    "select:",
    tuple(flat.shape),
    round(flat.var().item(), 4),
    round(flat.var(unbiased=False).item(), 4),
    round(flat.var(correction=0).item(), 4),
    round(torch.var(flat, 0, correction=2).item(), 4),
)
std, mean = torch.std_mean(flat, correction=1)
print("std_mean:", round(std.item(), 4), round(mean.item(), 4))
v, m = torch.var_mean(returns, dim=1, keepdim=True, unbiased=False)
print("var_mean:", tuple(v.shape), v.squeeze(1).round(decimals=4).tolist())

new_logprobs = (logprobs + 0.2 * torch.randn(B, T)).requires_grad_()
new_values = (values + 0.3 * torch.randn(B, T)).requires_grad_()
cliprange, cliprange_value = 0.2, 0.2
vpredclipped = torch.clamp(new_values, values - cliprange_value, values + cliprange_value)
vf_losses = torch.max((new_values - returns) ** 2, (vpredclipped - returns) ** 2)
vf_loss = 0.5 * masked_mean(vf_losses, mask)
ratio = torch.exp(new_logprobs - logprobs)
pg_losses = -advantages * ratio
pg_losses2 = -advantages * torch.clamp(ratio, 1.0 - cliprange, 1.0 + cliprange)
pg_loss = masked_mean(torch.max(pg_losses, pg_losses2), mask)
loss = pg_loss + 0.1 * vf_loss
loss.backward()
print("pg_loss", round(pg_loss.item(), 4), "vf_loss", round(vf_loss.item(), 4), loss.grad_fn.name())
print(
    "clipfrac",
    round(masked_mean(torch.gt(pg_losses2, pg_losses).float(), mask).item(), 4),
    "vf_clipfrac",
    round(masked_mean(torch.gt(vf_losses, (new_values - returns) ** 2).double(), mask).item(), 4),
)
lr = new_logprobs.detach() - logprobs
print(
    "approxkl",
    round(0.5 * masked_mean(lr**2, mask).item(), 4),
    "k3",
    round(masked_mean(torch.expm1(-lr) + lr, mask).item(), 4),
)
print("grad rows:", new_logprobs.grad.abs().sum(1).round(decimals=4).tolist())
print("value grad masked zero:", bool((new_values.grad * (1 - mask)).abs().sum() == 0))
print(
    "min form:", round(masked_mean(-torch.min(advantages * ratio, advantages * ratio.clamp(0.8, 1.2)), mask).item(), 4)
)

empty = torch.zeros(B, T)
try:
    masked_var(advantages, empty)
except ValueError as e:
    print("ValueError", e)
print("nan mean on empty:", masked_mean(advantages, empty).item())
print("std of one:", torch.tensor([3.0]).std().item(), torch.tensor([3.0]).std(correction=0).item())
print("var of int:", end=" ")
try:
    print(torch.tensor([1, 2, 3]).var())
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.clamp(ratio, min=torch.tensor([0.8, 0.9]))
except Exception as e:
    print(type(e).__name__, e)
print(torch.clamp(torch.tensor([0.5, 2.0]), max=torch.tensor(1.5)).tolist())
