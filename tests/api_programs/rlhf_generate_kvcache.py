"""Batched rollout generation as RLHF actors write it: left-padded prompts with position ids from cumsum, a tiny
decoder with a KV cache grown by torch.cat and SDPA over an additive attention mask, per-row EOS tracking with
unfinished-sequence masks, frequency/presence penalties from scatter_add_ counts, a no-repeat-n-gram ban with
unfold, seeded sampling under inference_mode, and the cached-vs-full-forward check."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, NH, PAD, EOS = 12, 16, 2, 0, 1


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(approximate="tanh"), nn.Linear(4 * D, D))

    def forward(self, x, bias, cache=None):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        q, k, v = (t.view(B, T, NH, D // NH).transpose(1, 2) for t in (q, k, v))
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, D))
        return x + self.mlp(self.ln2(x)), (k, v)


class TinyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, D), nn.Embedding(64, D)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(D, V, bias=False)

    def forward(self, ids, attn, past=None):
        B, T = ids.shape
        pos = (attn.cumsum(-1) - 1).clamp_min(0)[:, -T:]
        S = attn.shape[1]
        causal = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
        allowed = causal[None] & attn[:, None, :].bool()
        bias = torch.zeros(B, 1, T, S).masked_fill(~allowed[:, None], torch.finfo(torch.float32).min)
        x = self.wte(ids) + self.wpe(pos)
        new = []
        for i, blk in enumerate(self.blocks):
            x, kv = blk(x, bias, None if past is None else past[i])
            new.append(kv)
        return self.head(x), new


model = TinyDecoder().eval()
prompts = [[5, 6, 7, 8], [9, 3], [4, 4, 2]]
P = max(map(len, prompts))
ids = torch.tensor([[PAD] * (P - len(p)) + p for p in prompts])
attn = (torch.arange(P)[None] >= torch.tensor([P - len(p) for p in prompts])[:, None]).long()
print("ids:", ids.tolist(), "\nattn:", attn.tolist())

with torch.no_grad():
    full, past = model(ids, attn)
    print("past:", len(past), tuple(past[0][0].shape), "last logits:", full[:, -1].sum(-1).round(decimals=4).tolist())


def ban_ngrams(seq, scores, n=2):
    if seq.shape[1] < n:
        return scores
    grams = seq.unfold(1, n, 1)
    prefix = seq[:, -(n - 1) :]
    hit = (grams[:, :, :-1] == prefix[:, None, :]).all(-1)
    banned = torch.zeros_like(scores, dtype=torch.bool)
    b, g = hit.nonzero(as_tuple=True)
    banned[b, grams[b, g, -1]] = True
    return scores.masked_fill(banned, float("-inf"))


gen = torch.Generator().manual_seed(42)
seq, mask = ids.clone(), attn.clone()
unfinished = torch.ones(len(prompts), dtype=torch.long)
counts = torch.zeros(len(prompts), V)
with torch.inference_mode():
    logits, past = model(seq, mask)
    for step in range(6):
        scores = logits[:, -1, :] / 0.8
        scores = scores - 0.5 * counts - 0.3 * (counts > 0).float()
        scores = ban_ngrams(seq, scores, n=2)
        probs = F.softmax(scores, dim=-1)
        nxt = torch.multinomial(probs, 1, generator=gen).squeeze(1)
        nxt = nxt * unfinished + PAD * (1 - unfinished)
        counts.scatter_add_(1, nxt[:, None], unfinished[:, None].float())
        seq = torch.cat([seq, nxt[:, None]], dim=-1)
        mask = torch.cat([mask, unfinished[:, None]], dim=-1)
        unfinished = unfinished & (nxt != EOS).long()
        logits, past = model(nxt[:, None], mask, past)
        print(f"step {step}: next {nxt.tolist()} unfinished {unfinished.tolist()} kv {past[0][0].shape[2]}")
    print("inference tensors:", seq.is_inference(), logits.requires_grad)

print("generated:", seq[:, P:].tolist())
print("counts:", counts.sum(1).tolist(), "bincount row0:", torch.bincount(seq[0, P:], minlength=V).tolist())
with torch.no_grad():
    ref_logits, _ = model(seq, mask)
    inc, kv = model(seq[:, :P], mask[:, :P])
    steps = [inc[:, -1]]
    for t in range(P, seq.shape[1] - 1):
        o, kv = model(seq[:, t : t + 1], mask[:, : t + 1], kv)
        steps.append(o[:, -1])
    inc_all = torch.stack(steps, 1)
print("cache == full:", torch.allclose(inc_all, ref_logits[:, P - 1 : -1], atol=1e-5))
resp_mask = mask[:, P:]
logp = torch.log_softmax(ref_logits[:, P - 1 : -1], -1).gather(-1, seq[:, P:, None]).squeeze(-1)
print("response logp:", (logp * resp_mask).sum(-1).round(decimals=4).tolist(), "lens:", resp_mask.sum(-1).tolist())

try:
    seq.unfold(1, 20, 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    with torch.inference_mode():
        t = torch.ones(2)
    t.requires_grad_(True).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
