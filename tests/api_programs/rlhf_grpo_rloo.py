"""Critic-free policy-gradient losses as GRPO/RLOO/REINFORCE++ code writes them: G completions per prompt, group
advantages from view(-1, G).mean/std with repeat_interleave back to the batch, leave-one-out baselines, the
sequence-, token- and Dr.GRPO-style loss aggregations over a completion mask, the k3 KL against a reference with
the clipped ratio, a reward from several verifiers with torch.stack and nan_to_num, and the std==0 corner."""

import torch

torch.manual_seed(0)
N, G, T = 2, 4, 5
B = N * G
rewards_per_func = torch.tensor(
    [[1.0, 0.5], [0.0, 0.5], [1.0, float("nan")], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
)
weights = torch.tensor([1.0, 0.5])
rewards = (rewards_per_func.nan_to_num(nan=0.0) * weights.unsqueeze(0)).nansum(dim=1)
print("rewards:", rewards.tolist())
print("nansum direct:", torch.nansum(rewards_per_func * weights, dim=1).tolist())

mean_grouped = rewards.view(-1, G).mean(dim=1)
std_grouped = rewards.view(-1, G).std(dim=1)
print("group mean/std:", mean_grouped.tolist(), std_grouped.round(decimals=4).tolist())
mean_b = mean_grouped.repeat_interleave(G, dim=0)
std_b = std_grouped.repeat_interleave(G, dim=0)
adv = (rewards - mean_b) / (std_b + 1e-4)
print("advantages:", adv.round(decimals=4).tolist())
print("zero-std groups:", torch.isclose(std_grouped, torch.zeros_like(std_grouped)).tolist())
print("repeat_interleave tensor repeats:", torch.tensor([1, 2]).repeat_interleave(torch.tensor([2, 3])).tolist())
print("repeat vs interleave:", torch.arange(2).repeat(2).tolist(), torch.arange(2).repeat_interleave(2).tolist())

rg = rewards.view(N, G)
baseline = (rg.sum(1, keepdim=True) - rg) / (G - 1)
rloo = (rg - baseline).flatten()
print("rloo advantages:", rloo.round(decimals=4).tolist())
print("rloo == scaled grpo-centred:", torch.allclose(rloo, (rewards - mean_b) * G / (G - 1)))

completion_mask = (torch.arange(T)[None] < torch.tensor([5, 3, 4, 1, 5, 2, 5, 5])[:, None]).float()
old_logps = -torch.rand(B, T)
ref_logps = old_logps + 0.05 * torch.randn(B, T)
logps = (old_logps + 0.1 * torch.randn(B, T)).requires_grad_(True)
eps_low, eps_high, beta = 0.2, 0.28, 0.04
ratio = torch.exp(logps - old_logps)
clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
per_token = -torch.min(ratio * adv.unsqueeze(1), clipped * adv.unsqueeze(1))
kl = torch.exp(ref_logps - logps) - (ref_logps - logps) - 1
per_token = per_token + beta * kl

losses = {
    "grpo": ((per_token * completion_mask).sum(-1) / completion_mask.sum(-1).clamp(min=1.0)).mean(),
    "bnpo": (per_token * completion_mask).sum() / completion_mask.sum().clamp(min=1.0),
    "dr_grpo": (per_token * completion_mask).sum() / (per_token.size(0) * T),
}
for name, loss in losses.items():
    (g,) = torch.autograd.grad(loss, logps, retain_graph=True)
    print(f"{name}: {loss.item():.4f} grad row sums {g.sum(-1).round(decimals=4).tolist()}")
print("mean kl:", round(((kl * completion_mask).sum() / completion_mask.sum()).item(), 4))
is_low = (ratio < 1 - eps_low) & (adv.unsqueeze(1) < 0)
is_high = (ratio > 1 + eps_high) & (adv.unsqueeze(1) > 0)
print("clip ratios:", (is_low.float() * completion_mask).sum().item(), (is_high.float() * completion_mask).sum().item())

seq_ratio = torch.exp(((logps - old_logps) * completion_mask).sum(-1) / completion_mask.sum(-1))
gspo = -torch.min(seq_ratio * adv, seq_ratio.clamp(1 - 3e-4, 1 + 4e-4) * adv).mean()
gspo.backward()
print("gspo:", round(gspo.item(), 4), "grad nonzero rows:", (logps.grad.abs().sum(-1) > 0).int().tolist())

returns = torch.zeros(B, T)
token_r = torch.zeros(B, T)
last = completion_mask.sum(-1).long() - 1
token_r[torch.arange(B), last] = rewards
running = torch.zeros(B)
for t in reversed(range(T)):
    running = token_r[:, t] + 0.99 * running
    returns[:, t] = running
print("discounted returns[0]:", returns[0].round(decimals=4).tolist())
whitened = (returns - returns[completion_mask.bool()].mean()) / (returns[completion_mask.bool()].std() + 1e-8)
print("reinforce++ whitened sum:", round((whitened * completion_mask).sum().item(), 4))

for bad in [
    lambda: rewards.view(-1, 3),
    lambda: rewards.view(3, -1, -1),
    lambda: torch.arange(3).repeat_interleave(torch.tensor([1, 2])),
    lambda: torch.arange(3).repeat_interleave(torch.tensor([1, -1, 2])),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
