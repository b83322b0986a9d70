"""Autoregressive sampling as LM repos write it: temperature, top-k (topk + masked_fill with -inf), top-p nucleus
filtering (sort, cumsum, scatter back), min-p, typical sampling, repetition/frequency penalties with gather/scatter,
greedy and multinomial decoding loops with a KV cache in a tiny causal transformer, log-prob bookkeeping, and the
errors torch.multinomial raises; random draws print only seed-independent facts."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def top_k_filter(logits, k):
    v, _ = torch.topk(logits, min(k, logits.size(-1)))
    return logits.masked_fill(logits < v[..., [-1]], float("-inf"))


def top_p_filter(logits, top_p, min_tokens_to_keep=1):
    sorted_logits, sorted_indices = torch.sort(logits, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
    return logits.masked_fill(indices_to_remove, -float("Inf"))


def top_p_filter_desc(logits, top_p):
    sorted_logits, sorted_indices = torch.sort(logits, descending=True)
    cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    remove = cum > top_p
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., 0] = False
    mask = torch.zeros_like(logits, dtype=torch.bool).scatter_(-1, sorted_indices, remove)
    return logits.masked_fill(mask, float("-inf"))


def min_p_filter(logits, min_p):
    probs = logits.softmax(-1)
    top = probs.max(-1, keepdim=True).values
    return logits.masked_fill(probs < min_p * top, float("-inf"))


def typical_filter(logits, mass=0.9):
    normalized = F.log_softmax(logits, dim=-1)
    p = normalized.exp()
    ent = -(normalized * p).nansum(-1, keepdim=True)
    shifted = torch.abs((-normalized) - ent)
    sorted_scores, sorted_indices = torch.sort(shifted, descending=False)
    cumulative = logits.gather(-1, sorted_indices).softmax(dim=-1).cumsum(dim=-1)
    last_ind = (cumulative < mass).sum(dim=1)
    last_ind.clamp_(max=sorted_scores.shape[-1] - 1)
    remove_sorted = sorted_scores > sorted_scores.gather(1, last_ind.view(-1, 1))
    remove = remove_sorted.scatter(1, sorted_indices, remove_sorted)
    return logits.masked_fill(remove, -float("inf"))


def repetition_penalty(logits, input_ids, penalty):
    score = torch.gather(logits, 1, input_ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return logits.scatter(1, input_ids, score)


logits = torch.tensor([[2.0, 1.0, 0.5, -0.5, 3.0, 0.0, -1.0, 1.5],
                       [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]])
for temp in [0.5, 1.0, 2.0]:
    print(f"T={temp}", F.softmax(logits / temp, dim=-1)[0])
print("top-k 3", top_k_filter(logits, 3))
tp = top_p_filter(logits, 0.8)
print("top-p 0.8 kept", torch.isfinite(tp).sum(-1).tolist(), torch.equal(torch.isfinite(tp), torch.isfinite(
    top_p_filter_desc(logits, 0.8))))
print("min-p 0.2 kept", torch.isfinite(min_p_filter(logits, 0.2)).sum(-1).tolist())
print("typical kept", torch.isfinite(typical_filter(logits, 0.9)).sum(-1).tolist())
ids = torch.tensor([[4, 0, 4], [7, 1, 1]])
print("rep penalty", repetition_penalty(logits, ids, 1.3))
counts = torch.zeros_like(logits).scatter_add_(1, ids, torch.ones_like(ids, dtype=logits.dtype))
print("freq/presence", logits - 0.5 * counts - 0.3 * (counts > 0).float())
probs = F.softmax(top_k_filter(logits, 2), -1)
draw = torch.multinomial(probs, num_samples=200, replacement=True)
print("multinomial support", sorted(set(draw[0].tolist())), sorted(set(draw[1].tolist())), draw.shape, draw.dtype)
print("without replacement distinct", torch.multinomial(F.softmax(logits, -1), 8).sort(-1).values.tolist())
gen = torch.Generator().manual_seed(1234)
a = torch.multinomial(F.softmax(logits, -1), 5, replacement=True, generator=gen)
gen.manual_seed(1234)
b = torch.multinomial(F.softmax(logits, -1), 5, replacement=True, generator=gen)
print("generator reproducible", torch.equal(a, b))
for bad in [torch.tensor([[0.0, 0.0]]), torch.tensor([[-0.1, 1.0]]), torch.tensor([[float("nan"), 1.0]])]:
    try:
        torch.multinomial(bad, 1)
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    torch.multinomial(torch.tensor([0.5, 0.5]), 3)
except RuntimeError as e:
    print("RuntimeError:", e)


class Block(nn.Module):
    def __init__(self, d=16, h=2):
        super().__init__()
        self.h, self.dk = h, d // h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))

    def forward(self, x, cache=None):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = [t.view(B, T, self.h, self.dk).transpose(1, 2) for t in (q, k, v)]
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp(self.ln2(x)), (k, v)


class TinyLM(nn.Module):
    def __init__(self, vocab=12, d=16, n=2, ctx=32):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight
        with torch.no_grad():
            for k, p in enumerate(self.parameters()):
                p.copy_(0.4 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.29 + 0.03 * k) + k).view_as(p))

    def forward(self, idx, caches=None, start=0):
        x = self.tok(idx) + self.pos(torch.arange(start, start + idx.shape[1]))
        new = []
        for i, b in enumerate(self.blocks):
            x, c = b(x, None if caches is None else caches[i])
            new.append(c)
        return self.head(self.ln_f(x)), new


lm = TinyLM().eval()
print("tied", lm.head.weight is lm.tok.weight, "params", sum(p.numel() for p in lm.parameters()))


@torch.no_grad()
def generate(lm, idx, n, use_cache, greedy=True, temperature=1.0):
    caches, logps = None, []
    for i in range(n):
        if use_cache and caches is not None:
            logits, caches = lm(idx[:, -1:], caches, start=idx.shape[1] - 1)
        else:
            logits, caches = lm(idx)
        logits = logits[:, -1, :] / temperature
        logp = F.log_softmax(logits, -1)
        nxt = logits.argmax(-1, keepdim=True) if greedy else torch.multinomial(logp.exp(), 1)
        logps.append(logp.gather(-1, nxt))
        idx = torch.cat([idx, nxt], dim=1)
    return idx, torch.cat(logps, 1)


prompt = torch.tensor([[1, 5, 3], [2, 2, 7]])
out_nc, lp_nc = generate(lm, prompt, 6, use_cache=False)
out_c, lp_c = generate(lm, prompt, 6, use_cache=True)
print("greedy", out_nc.tolist())
print("cache == no cache", torch.equal(out_nc, out_c), torch.allclose(lp_nc, lp_c, atol=1e-5))
print("sequence logprob", r(lp_nc.sum(1), 4), "ppl", r(torch.exp(-lp_nc.mean(1)), 4))
out_s, lp_s = generate(lm, prompt, 5, use_cache=True, greedy=False, temperature=0.7)
print("sampled shape", out_s.shape, "prompt kept", torch.equal(out_s[:, :3], prompt), "logp<=0",
      bool((lp_s <= 0).all()), "in vocab", bool(((out_s >= 0) & (out_s < 12)).all()))
