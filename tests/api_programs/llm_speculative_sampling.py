"""Decoding math from LLM inference code: temperature, top-k, top-p (nucleus) and min-p filtering, repetition and
presence penalties with scatter/gather, speculative decoding's accept/reject rule with the residual distribution
norm(max(0, p - q)), the expected number of accepted tokens, sampling with a seeded torch.Generator (only
seed-independent facts printed), and log-prob bookkeeping with gather and logsumexp."""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
V = 10
logits = torch.tensor([[2.0, 1.0, 0.5, 0.2, -0.3, -1.0, 1.5, 0.0, -2.0, 0.8],
                       [0.1, 0.2, 0.3, 3.0, 2.9, -1.0, -1.0, 0.0, 0.5, 0.4]])


def top_k_filter(logits, k):
    v, _ = torch.topk(logits, min(k, logits.size(-1)))
    return logits.masked_fill(logits < v[..., -1, None], float("-inf"))


def top_p_filter(logits, top_p, min_tokens_to_keep=1):
    sorted_logits, sorted_indices = torch.sort(logits, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
    return logits.masked_fill(indices_to_remove, float("-inf"))


def top_p_descending(logits, top_p):
    sorted_logits, sorted_idx = torch.sort(logits, descending=True)
    cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    remove = cum > top_p
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., 0] = False
    remove = remove.scatter(-1, sorted_idx, remove)
    return logits.masked_fill(remove, float("-inf"))


def min_p_filter(logits, min_p):
    probs = logits.softmax(-1)
    thresh = probs.amax(-1, keepdim=True) * min_p
    return logits.masked_fill(probs < thresh, float("-inf"))


print("temperature 0.5 probs:", F.softmax(logits[0] / 0.5, -1))
print("top-k=3 kept:", torch.isfinite(top_k_filter(logits, 3)).int().tolist())
print("top-p=0.8 kept:", torch.isfinite(top_p_filter(logits, 0.8)).int().tolist())
print("descending variant agrees:", torch.equal(torch.isfinite(top_p_filter(logits, 0.8)),
                                                torch.isfinite(top_p_descending(logits, 0.8))))
print("min-p=0.2 kept:", torch.isfinite(min_p_filter(logits, 0.2)).sum(-1).tolist())
filtered = top_k_filter(top_p_filter(logits, 0.9), 4)
print("filtered probs:\n", filtered.softmax(-1))

# repetition penalty (CTRL): divide positive logits, multiply negative ones, for tokens already generated
generated = torch.tensor([[0, 6, 6, 8], [3, 3, 3, 4]])
score = torch.gather(logits, 1, generated)
score = torch.where(score < 0, score * 1.3, score / 1.3)
penalized = logits.scatter(1, generated, score)
print("repetition penalty:", penalized[0, [0, 6, 8]], penalized[1, [3, 4]])
counts = torch.zeros_like(logits).scatter_add_(1, generated, torch.ones_like(generated, dtype=torch.float))
print("token counts:", counts.tolist())
freq_presence = logits - 0.5 * counts - 0.3 * (counts > 0).float()
print("frequency/presence:", freq_presence[1, 2:5])

# greedy and seeded sampling
print("greedy:", logits.argmax(-1).tolist())
g = torch.Generator().manual_seed(1234)
probs = F.softmax(top_k_filter(logits, 3), -1)
draws = torch.multinomial(probs, num_samples=200, replacement=True, generator=g)
print("samples within top-3:", all(set(draws[i].unique().tolist()) <= set(logits[i].topk(3).indices.tolist())
                                   for i in range(2)), draws.shape, draws.dtype)
g2 = torch.Generator().manual_seed(1234)
again = torch.multinomial(probs, num_samples=200, replacement=True, generator=g2)
print("same seed, same draws:", torch.equal(draws, again), "initial_seed:", g2.initial_seed())
gumbel_argmax = (probs.log() - torch.log(-torch.log(torch.full_like(probs, 0.5)))).argmax(-1)
print("gumbel with u=0.5 picks argmax:", gumbel_argmax.tolist())
q_exp = torch.empty_like(probs).exponential_(1, generator=torch.Generator().manual_seed(0))
print("exponential race draws a top-3 token:",
      all(int((probs[i] / q_exp[i]).argmax()) in logits[i].topk(3).indices.tolist() for i in range(2)))

# speculative decoding: draft q, target p over gamma=3 drafted tokens
gamma = 3
p = F.softmax(torch.cos(torch.arange((gamma + 1) * V, dtype=torch.float32).reshape(gamma + 1, V) * 0.7) * 2, -1)
q = F.softmax(torch.sin(torch.arange(gamma * V, dtype=torch.float32).reshape(gamma, V) * 0.5) * 2, -1)
draft_tokens = q.argmax(-1)
print("draft tokens:", draft_tokens.tolist())
idx = torch.arange(gamma)
p_tok, q_tok = p[idx, draft_tokens], q[idx, draft_tokens]
accept_prob = torch.clamp(p_tok / q_tok, max=1.0)
print("p(x):", p_tok, "\nq(x):", q_tok, "\naccept prob:", accept_prob)
u = torch.tensor([0.03, 0.1, 0.9])  # the uniforms a sampler would draw
accepted = u <= accept_prob
n_accepted = int(torch.cumprod(accepted.int(), 0).sum())
print("accepted mask:", accepted.tolist(), "n accepted:", n_accepted)
if n_accepted < gamma:
    residual = torch.clamp(p[n_accepted] - q[n_accepted], min=0)
    residual = residual / residual.sum()
    print("residual dist:", residual, "support:", (residual > 0).nonzero().flatten().tolist())
else:
    residual = p[gamma]

# the rule is exact: accept*q + reject*residual == p, for each position
for i in range(gamma):
    acc = torch.minimum(p[i], q[i])
    rej_mass = 1 - acc.sum()
    res = torch.clamp(p[i] - q[i], min=0)
    mix = acc + rej_mass * res / res.sum()
    print(f"pos {i}: P(accept) {acc.sum().item():.4f}  recovered p: {torch.allclose(mix, p[i], atol=1e-6)}")
alpha = torch.minimum(p[:gamma], q).sum(-1).mean()
expected_tokens = (1 - alpha ** (gamma + 1)) / (1 - alpha)
print(f"alpha {alpha.item():.4f} expected tokens per step {expected_tokens.item():.4f}")
tv = 0.5 * (p[:gamma] - q).abs().sum(-1)
print("1 - TV == P(accept):", torch.allclose(1 - tv, torch.minimum(p[:gamma], q).sum(-1), atol=1e-6))

# log-prob bookkeeping for sequences
seq_logits = torch.cos(torch.arange(5 * V, dtype=torch.float32).reshape(1, 5, V) * 0.9) * 3
tokens = torch.tensor([[1, 4, 4, 7, 2]])
logp = F.log_softmax(seq_logits, -1)
tok_logp = logp[:, :-1].gather(-1, tokens[:, 1:, None]).squeeze(-1)
alt = seq_logits[:, :-1].gather(-1, tokens[:, 1:, None]).squeeze(-1) - torch.logsumexp(seq_logits[:, :-1], -1)
print("token log-probs:", tok_logp, torch.allclose(tok_logp, alt, atol=1e-6))
print(f"sequence logp {tok_logp.sum().item():.4f} perplexity {torch.exp(-tok_logp.mean()).item():.4f}")
entropy = -(logp.exp() * logp).sum(-1)
print("entropy:", entropy, "Categorical agrees:",
      torch.allclose(torch.distributions.Categorical(logits=seq_logits).entropy(), entropy, atol=1e-5))
try:
    torch.multinomial(torch.tensor([[0.0, 0.0]]), 1)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.multinomial(torch.tensor([0.2, 0.8]), 3)
except RuntimeError as e:
    print("RuntimeError:", e)
