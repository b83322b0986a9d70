"""KV-cache compression from long-context inference code: StreamingLLM's attention sinks plus a recent window
(keys stored un-rotated and re-rotated at their cache positions), H2O heavy-hitter eviction by accumulated attention
(topk + sort + gather/index_select on the cache), SnapKV-style pooled scores with avg_pool1d, and cache quantization
to int8 per token; each compared with full attention where it must agree."""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
H, D, T = 2, 8, 14


def det(shape, a, b=0.0):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * a + b).reshape(shape)


def rope(x, pos):
    inv = 1.0 / (10000 ** (torch.arange(0, D, 2).float() / D))
    ang = pos.float()[:, None] * inv[None]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    x1, x2 = x.chunk(2, -1)
    return x * cos + torch.cat([-x2, x1], -1) * sin


keys = det((H, T, D), 0.41)
values = det((H, T, D), 0.23, 1.0)
queries = det((H, T, D), 0.31, 2.0)

# StreamingLLM: keep 2 sink tokens + the 6 most recent, re-rotate keys at their cache slots
n_sink, window = 2, 6
t = T - 1
keep = torch.cat([torch.arange(n_sink), torch.arange(t - window + 1, t + 1)])
print("kept token ids:", keep.tolist())
k_cache = keys.index_select(1, keep)
cache_pos = torch.arange(keep.numel())
k_rot = rope(k_cache, cache_pos)
q_rot = rope(queries[:, t:t + 1], torch.tensor([keep.numel() - 1]))
out_stream = F.scaled_dot_product_attention(q_rot, k_rot, values.index_select(1, keep))
print("streaming out:", out_stream[:, 0, :4])
w = (q_rot @ k_rot.transpose(-1, -2) / D ** 0.5).softmax(-1)
print("sink attention mass:", w[:, 0, :n_sink].sum(-1))
rel_ok = torch.allclose((rope(queries[:, t:t + 1], torch.tensor([9])) @ rope(k_cache, cache_pos + 2).transpose(-1, -2)),
                        q_rot @ k_rot.transpose(-1, -2), atol=1e-5)
print("scores depend on relative cache positions only:", rel_ok)

# H2O: accumulate attention each key receives, evict the lightest beyond a budget
budget, recent = 8, 3
pos = torch.arange(T)
q_all, k_all = rope(queries, pos), rope(keys, pos)
scores = (q_all @ k_all.transpose(-1, -2)) / D ** 0.5
causal = torch.ones(T, T, dtype=torch.bool).tril()
attn = scores.masked_fill(~causal, float("-inf")).softmax(-1)
acc = attn.sum(1)  # (H, T): attention mass each key received
print("accumulated attention head 0:", acc[0])
heavy = acc[:, : T - recent].topk(budget - recent, dim=-1).indices.sort(-1).values
kept = torch.cat([heavy, torch.arange(T - recent, T).expand(H, -1)], -1)
print("H2O kept per head:", kept.tolist())
k_h2o = k_all.gather(1, kept[..., None].expand(-1, -1, D))
v_h2o = values.gather(1, kept[..., None].expand(-1, -1, D))
full_last = F.scaled_dot_product_attention(q_all[:, -1:], k_all, values)
h2o_last = F.scaled_dot_product_attention(q_all[:, -1:], k_h2o, v_h2o)
print(f"H2O last-token error {(h2o_last - full_last).norm().item():.4f} "
      f"(dropped mass {1 - attn[:, -1].gather(1, kept).sum(-1).min().item():.4f})")
print("gather == advanced indexing:", torch.equal(k_h2o, k_all[torch.arange(H)[:, None], kept]))

# SnapKV: observation window votes, pooled, pick top positions per head
obs = 4
votes = attn[:, -obs:, : T - obs].sum(1)
pooled = F.avg_pool1d(votes[:, None], kernel_size=3, padding=1, stride=1, count_include_pad=False)[:, 0]
print("pooled votes head 1:", pooled[1])
sel = pooled.topk(4, dim=-1).indices.sort(-1).values
print("SnapKV selected:", sel.tolist())
mp = F.max_pool1d(votes[:, None], kernel_size=3, padding=1, stride=1)[:, 0]
print("max-pool variant picks:", mp.topk(4, -1).indices.sort(-1).values.tolist())

# per-token int8 KV quantization
k_scale = k_all.abs().amax(-1, keepdim=True) / 127
k_q = torch.round(k_all / k_scale).to(torch.int8)
k_deq = k_q.float() * k_scale
quant_last = F.scaled_dot_product_attention(q_all[:, -1:], k_deq, values)
print("int8 cache:", k_q.dtype, k_q.element_size() * k_q.numel() + k_scale.numel() * 4, "bytes vs",
      k_all.element_size() * k_all.numel())
print(f"int8 cache error {(quant_last - full_last).abs().max().item():.5f}",
      torch.allclose(quant_last, full_last, atol=1e-2))

# eviction with a boolean keep-mask and compaction via nonzero
keep_mask = torch.zeros(H, T, dtype=torch.bool).scatter_(1, kept, True)
print("keep mask sums:", keep_mask.sum(-1).tolist(), "compacted == kept:",
      all(torch.equal(keep_mask[h].nonzero().squeeze(1), kept[h]) for h in range(H)))
masked_last = F.scaled_dot_product_attention(q_all[:, -1:], k_all, values, attn_mask=keep_mask[:, None, :])
print("mask == compaction:", torch.allclose(masked_last, h2o_last, atol=1e-6))
