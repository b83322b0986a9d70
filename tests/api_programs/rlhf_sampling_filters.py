"""Rollout sampling as HF-style logits processors write it: temperature, top-k with topk()[0][..., -1, None],
top-p with sort/cumsum/scatter back to vocabulary order, min-p and typical-p, a repetition penalty with gather and
scatter_, masked_fill with -inf and finfo.min, multinomial with a seeded Generator (with and without
replacement), and the errors multinomial and topk raise on bad input."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, V = 3, 10
logits = torch.randn(B, V) * 2
print("logits row0:", logits[0].round(decimals=4).tolist())


def top_k_filter(scores, k, filter_value=-float("inf")):
    k = min(max(k, 1), scores.size(-1))
    indices_to_remove = scores < torch.topk(scores, k)[0][..., -1, None]
    return scores.masked_fill(indices_to_remove, filter_value)


def top_p_filter(scores, top_p, min_tokens_to_keep=1, filter_value=-float("inf")):
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
    return scores.masked_fill(indices_to_remove, filter_value)


def top_p_desc(scores, top_p):
    sorted_logits, idx = scores.sort(dim=-1, descending=True, stable=True)
    cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    remove = cum > top_p
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., 0] = False
    out = scores.clone()
    out[remove.scatter(-1, idx, remove)] = float("-inf")
    return out


def min_p_filter(scores, min_p):
    probs = torch.softmax(scores, dim=-1)
    top = probs.amax(dim=-1, keepdim=True)
    return scores.masked_fill(probs < min_p * top, -float("inf"))


def typical_filter(scores, mass=0.9):
    normalized = F.log_softmax(scores, dim=-1)
    p = torch.exp(normalized)
    ent = -(normalized * p).nansum(-1, keepdim=True)
    shifted = torch.abs((-normalized) - ent)
    sorted_scores, sorted_indices = torch.sort(shifted, descending=False)
    sorted_logits = scores.gather(-1, sorted_indices)
    cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    last_ind = (cum < mass).sum(dim=1)
    last_ind.clamp_(max=sorted_scores.shape[-1] - 1)
    remove = sorted_scores > sorted_scores.gather(1, last_ind.view(-1, 1))
    return scores.masked_fill(remove.scatter(1, sorted_indices, remove), -float("inf"))


def repetition_penalty(input_ids, scores, penalty):
    score = torch.gather(scores, 1, input_ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return scores.scatter(1, input_ids, score)


t = logits / 0.7
for name, f in [
    ("top_k", lambda s: top_k_filter(s, 3)),
    ("top_p", lambda s: top_p_filter(s, 0.8)),
    ("top_p_desc", lambda s: top_p_desc(s, 0.8)),
    ("min_p", lambda s: min_p_filter(s, 0.1)),
    ("typical", typical_filter),
]:
    out = f(t)
    kept = torch.isfinite(out)
    print(f"{name:10s} kept per row {kept.sum(-1).tolist()} first row {kept[0].int().tolist()}")
print("top_p asc == desc:", torch.equal(top_p_filter(t, 0.8), top_p_desc(t, 0.8)))

prev = torch.tensor([[1, 2, 2], [0, 9, 3], [5, 5, 5]])
pen = repetition_penalty(prev, logits, 1.3)
print("penalized:", (pen - logits).abs().sum(-1).round(decimals=4).tolist())
neg = logits.masked_fill(torch.arange(V) >= 8, torch.finfo(logits.dtype).min)
print("finfo.min softmax tail:", F.softmax(neg, -1)[:, 8:].sum().item(), torch.finfo(torch.float16).min)

g = torch.Generator().manual_seed(1234)
probs = F.softmax(top_k_filter(t, 4), dim=-1)
print("zeros outside top-4:", int((probs == 0).sum()))
s1 = torch.multinomial(probs, num_samples=1, generator=g)
s4 = torch.multinomial(probs, num_samples=4, replacement=False, generator=g)
s8 = torch.multinomial(probs, 8, True, generator=g)
print("samples:", s1.squeeze(1).tolist(), s4.tolist(), s8.tolist())
print("in support:", bool(torch.gather(probs, 1, s4).gt(0).all()))
greedy = torch.argmax(logits, dim=-1, keepdim=True)
print("greedy:", greedy.flatten().tolist(), greedy.dtype)
g2 = torch.Generator().manual_seed(1234)
print("replay equal:", torch.equal(torch.multinomial(probs, 1, generator=g2), s1), g.initial_seed())
u = torch.rand(B, V, generator=torch.Generator().manual_seed(7))
gumbel = (t - torch.log(-torch.log(u))).argmax(-1)
print("gumbel-max:", gumbel.tolist())

for bad in [
    lambda: torch.multinomial(probs, 5),
    lambda: torch.multinomial(-probs, 1),
    lambda: torch.multinomial(torch.zeros(2, 4), 1),
    lambda: torch.multinomial(probs.long(), 1),
    lambda: torch.multinomial(torch.ones(2, 2, 2), 1),
    lambda: torch.multinomial(probs, 0),
    lambda: torch.topk(logits, 11),
    lambda: torch.sort(logits, dim=2),
]:
    try:
        r = bad()
        print("ok", tuple(r.shape))
    except Exception as e:
        print(type(e).__name__, e)
