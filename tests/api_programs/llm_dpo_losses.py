"""Post-training losses as TRL-style code computes them: per-sequence log-probs with a completion mask, DPO (sigmoid,
label-smoothed, IPO and hinge variants) with reference models, rewards and accuracies, token-level KL to a
reference (k1/k2/k3 estimators), PPO's clipped ratio with advantages whitened by masked moments, chunked
cross-entropy with torch.utils.checkpoint, the PaLM z-loss, and a reward model's Bradley-Terry loss."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.set_printoptions(precision=4, sci_mode=False)
B, T, V = 4, 6, 9


def det(shape, a, b=0.0):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * a + b).reshape(shape)


input_ids = (torch.arange(B * T).reshape(B, T) * 5 + 3) % V
prompt_len = torch.tensor([2, 3, 2, 1])
lengths = torch.tensor([6, 5, 4, 6])
pos = torch.arange(T)[None]
completion_mask = ((pos >= prompt_len[:, None]) & (pos < lengths[:, None])).float()
print("completion mask:\n", completion_mask)


def sequence_logps(logits, labels, mask):
    logits, labels, mask = logits[:, :-1], labels[:, 1:], mask[:, 1:]
    per_token = torch.gather(logits.log_softmax(-1), dim=2, index=labels.unsqueeze(2)).squeeze(2)
    return (per_token * mask).sum(-1), per_token


policy_logits = (det((B, T, V), 0.37) * 2).requires_grad_()
ref_logits = det((B, T, V), 0.37, 0.3) * 2
pol_logps, pol_tok = sequence_logps(policy_logits, input_ids, completion_mask)
ref_logps, ref_tok = sequence_logps(ref_logits, input_ids, completion_mask)
print("policy logps:", pol_logps.detach(), "\nref logps:", ref_logps)

# pairs: rows (0, 1) and (2, 3) are (chosen, rejected)
chosen, rejected = pol_logps[0::2], pol_logps[1::2]
ref_chosen, ref_rejected = ref_logps[0::2], ref_logps[1::2]
beta = 0.1
logits = (chosen - rejected) - (ref_chosen - ref_rejected)
losses = {
    "sigmoid": -F.logsigmoid(beta * logits),
    "robust(ls=0.1)": -F.logsigmoid(beta * logits) * 0.9 - F.logsigmoid(-beta * logits) * 0.1,
    "ipo": (logits - 1 / (2 * beta)) ** 2,
    "hinge": torch.relu(1 - beta * logits),
}
for name, l in losses.items():
    print(f"{name:>15}: {l.detach()}  mean {l.mean().item():.4f}")
chosen_rewards = beta * (chosen - ref_chosen).detach()
rejected_rewards = beta * (rejected - ref_rejected).detach()
print("rewards/chosen:", chosen_rewards, "rewards/rejected:", rejected_rewards)
print("rewards/accuracies:", (chosen_rewards > rejected_rewards).float().mean().item(),
      "margins:", (chosen_rewards - rejected_rewards).mean().item().__round__(4))
losses["sigmoid"].mean().backward()
g = policy_logits.grad
print("no grad where the next token is masked:", g[:, :-1][completion_mask[:, 1:] == 0].abs().max().item(),
      g[:, -1].abs().max().item(), "grad rows sum ~0:", torch.allclose(g.sum(-1), torch.zeros(B, T), atol=1e-6))
print("grad norm per sequence:", g.norm(dim=(1, 2)))

# token-level KL estimators between policy and reference on sampled tokens
log_ratio = (pol_tok - ref_tok).detach()
m = completion_mask[:, 1:]
k1 = log_ratio
k2 = 0.5 * log_ratio ** 2
k3 = torch.expm1(-log_ratio) + log_ratio
for name, k in (("k1", k1), ("k2", k2), ("k3", k3)):
    print(f"{name}: {((k * m).sum() / m.sum()).item():.4f}", end="  ")
print()
full_kl = F.kl_div(ref_logits.log_softmax(-1), policy_logits.detach().log_softmax(-1), reduction="none",
                   log_target=True).sum(-1)
print("exact KL per token:", full_kl[0])
print("kl_div batchmean:", round(F.kl_div(ref_logits.log_softmax(-1).view(-1, V),
                                           policy_logits.detach().log_softmax(-1).view(-1, V),
                                           reduction="batchmean", log_target=True).item(), 4))


# PPO clipped objective with masked whitening
def masked_mean(x, mask):
    return (x * mask).sum() / mask.sum()


def masked_whiten(x, mask):
    mean = masked_mean(x, mask)
    var = masked_mean((x - mean) ** 2, mask) * mask.sum() / (mask.sum() - 1)
    return (x - mean) * torch.rsqrt(var + 1e-8)


advantages = masked_whiten(det((B, T - 1), 0.9), m)
print("whitened mean/var:", round(masked_mean(advantages, m).item(), 4),
      round(masked_mean(advantages ** 2, m).item(), 4))
old_logp = pol_tok.detach() - 0.05 * det((B, T - 1), 1.3)
ratio = torch.exp(pol_tok.detach() - old_logp)
pg1 = -advantages * ratio
pg2 = -advantages * torch.clamp(ratio, 0.8, 1.2)
pg_loss = masked_mean(torch.max(pg1, pg2), m)
clipfrac = masked_mean(torch.gt(pg2, pg1).float(), m)
print(f"pg loss {pg_loss.item():.4f} clipfrac {clipfrac.item():.4f} ratio range "
      f"[{ratio[m.bool()].min().item():.4f}, {ratio[m.bool()].max().item():.4f}]")

# chunked cross-entropy through activation checkpointing
hidden = det((B * T, 8), 0.21).requires_grad_()
head = nn.Linear(8, V, bias=False)
with torch.no_grad():
    head.weight.copy_(det((V, 8), 0.5))
targets = input_ids.view(-1).clone()
targets[completion_mask.view(-1) == 0] = -100


def chunk_loss(h, t):
    return F.cross_entropy(head(h).float(), t, ignore_index=-100, reduction="sum")


total = sum(checkpoint(chunk_loss, h, t, use_reentrant=False)
            for h, t in zip(hidden.split(7), targets.split(7)))
n_tok = (targets != -100).sum()
loss_chunked = total / n_tok
loss_full = F.cross_entropy(head(hidden), targets, ignore_index=-100)
print(f"chunked {loss_chunked.item():.4f} full {loss_full.item():.4f}")
gc, = torch.autograd.grad(loss_chunked, hidden)
gf, = torch.autograd.grad(loss_full, hidden)
print("checkpointed grads equal:", torch.allclose(gc, gf, atol=1e-6))

# PaLM z-loss and logsumexp of bf16 logits in float32
lg = head(hidden).detach()
z = torch.logsumexp(lg, -1)
print(f"z-loss {1e-4 * (z ** 2).mean().item():.6f}", "lse[:3]:", z[:3])
lse_bf16 = torch.logsumexp(lg.bfloat16().float(), -1)
print("bf16 lse close:", torch.allclose(lse_bf16, z, atol=0.05))

# reward model: Bradley-Terry with margin
r_chosen = torch.tensor([1.2, 0.3, -0.5])
r_rejected = torch.tensor([0.2, 0.4, -1.5])
margin = torch.tensor([0.5, 0.0, 1.0])
bt = -F.logsigmoid(r_chosen - r_rejected - margin)
acc = (r_chosen > r_rejected).float().mean()
print("BT loss:", bt, "mean:", round(bt.mean().item(), 4), "acc:", round(acc.item(), 4))
print("sigmoid prefs:", torch.sigmoid(r_chosen - r_rejected))
print("softplus identity:", torch.allclose(bt, F.softplus(-(r_chosen - r_rejected - margin))))
