"""Chunk-based streaming ASR as WeNet/U2 writes it: subsequent_chunk_mask and its left-chunk limit, dynamic chunk
sizes, masks combined with length padding, scaled_dot_product_attention with boolean and additive masks (a fully
masked query row and what each path returns), MultiheadAttention over a fully padded utterance, a frame-synchronous
front end with stft(center=False, align_to_window=True), and chunk-by-chunk attention with a key/value cache."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def subsequent_chunk_mask(size, chunk, num_left_chunks=-1):
    idx = torch.arange(size)
    chunk_end = (torch.div(idx, chunk, rounding_mode="floor") + 1) * chunk
    chunk_start = torch.div(idx, chunk, rounding_mode="floor") * chunk
    start = (chunk_start - num_left_chunks * chunk).clamp(min=0) if num_left_chunks >= 0 else torch.zeros_like(idx)
    j = idx.unsqueeze(0)
    return (j < chunk_end.clamp(max=size).unsqueeze(1)) & (j >= start.unsqueeze(1))


print("chunk=2", subsequent_chunk_mask(5, 2).int().tolist())
print("chunk=2 left=1", subsequent_chunk_mask(6, 2, 1).int().tolist())
lengths = torch.tensor([6, 4])
pad = torch.arange(6) < lengths[:, None]
mask = subsequent_chunk_mask(6, 3).unsqueeze(0) & pad.unsqueeze(1)
print("with padding", mask.int()[1].tolist(), mask.dtype, tuple(mask.shape))

B, H, T, Dh = 2, 2, 6, 4
q, k, v = (torch.randn(B, H, T, Dh) for _ in range(3))
out_bool = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.unsqueeze(1))
add = torch.zeros(B, 1, T, T).masked_fill(~mask.unsqueeze(1), float("-inf"))
out_add = F.scaled_dot_product_attention(q, k, v, attn_mask=add)
print("bool == additive", torch.allclose(out_bool, out_add, atol=1e-6), round(out_bool.sum().item(), 4))
manual = (q @ k.transpose(-1, -2) / Dh**0.5).masked_fill(~mask.unsqueeze(1), float("-inf")).softmax(-1) @ v
print("manual", torch.allclose(manual, out_bool, atol=1e-5))
dead = torch.ones(T, T, dtype=torch.bool)
dead[2] = False
o = F.scaled_dot_product_attention(q, k, v, attn_mask=dead)
print("fully masked row sdpa", o[0, 0, 2].tolist(), "others finite", bool(torch.isfinite(o).all()))
dead_add = torch.zeros(T, T).masked_fill(~dead, float("-inf"))
o2 = F.scaled_dot_product_attention(q, k, v, attn_mask=dead_add)
print("fully masked additive", o2[0, 0, 2].tolist())
print("softmax of all -inf", torch.softmax(torch.full((3,), float("-inf")), 0).tolist())
print(
    "causal flag",
    torch.allclose(
        F.scaled_dot_product_attention(q, k, v, is_causal=True),
        F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(T, T).tril().bool()),
        atol=1e-6,
    ),
)
print("scale=", round(F.scaled_dot_product_attention(q, k, v, scale=0.1).sum().item(), 4))

mha = nn.MultiheadAttention(8, 2, batch_first=True)
x = torch.randn(2, 4, 8)
kp = torch.tensor([[False, False, True, True], [True, True, True, True]])
y, w = mha(x, x, x, key_padding_mask=kp)
print("mha padded utt nan", bool(y[1].isnan().all()), "weights", w.shape, w[0, 0].round(decimals=4).tolist())
y2, w2 = mha(x, x, x, key_padding_mask=kp, average_attn_weights=False, need_weights=True)
print("per-head weights", tuple(w2.shape), "avg matches", torch.allclose(w2.mean(1)[0], w[0], atol=1e-6))

wave = torch.randn(1600)
hop, win, n_fft = 160, 400, 512
full = torch.stft(
    wave, n_fft, hop, win, torch.hann_window(win), center=False, align_to_window=True, return_complex=True
)
print("aligned frames", tuple(full.shape), "expected", 1 + (1600 - win) // hop)
chunks = []
for start in range(0, 1600 - win + 1, 4 * hop):
    seg = wave[start : start + win + 3 * hop]
    chunks.append(
        torch.stft(
            seg, n_fft, hop, win, torch.hann_window(win), center=False, align_to_window=True, return_complex=True
        )
    )
joined = torch.cat(chunks, -1)
print("chunked stft", tuple(joined.shape), torch.allclose(joined, full[:, : joined.size(-1)], atol=1e-4))
unaligned = torch.stft(
    wave, n_fft, hop, win, torch.hann_window(win), center=False, align_to_window=False, return_complex=True
)
print("unaligned frames", tuple(unaligned.shape))

proj = nn.Linear(8, 24)
feats = torch.randn(1, 6, 8)
qkv = proj(feats).view(1, 6, 3, 2, 4).permute(2, 0, 3, 1, 4)
ref = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=subsequent_chunk_mask(6, 2))
cache_k, cache_v, outs = None, None, []
for s in range(0, 6, 2):
    c = proj(feats[:, s : s + 2]).view(1, 2, 3, 2, 4).permute(2, 0, 3, 1, 4)
    cache_k = c[1] if cache_k is None else torch.cat([cache_k, c[1]], 2)
    cache_v = c[2] if cache_v is None else torch.cat([cache_v, c[2]], 2)
    outs.append(F.scaled_dot_product_attention(c[0], cache_k, cache_v))
print("cached chunks == masked full", torch.allclose(torch.cat(outs, 2), ref, atol=1e-5), tuple(cache_k.shape))
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(5, 5, dtype=torch.bool))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=dead, is_causal=True)
except Exception as e:
    print(type(e).__name__, e)
