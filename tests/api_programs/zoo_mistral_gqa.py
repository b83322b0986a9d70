"""A Mistral-style decoder as its reference implementation writes it: nn.RMSNorm, SwiGLU, grouped-query attention
through scaled_dot_product_attention(enable_gqa=True) checked against repeat_interleave, sliding-window masks, a
rolling-buffer KV cache for generation under torch.inference_mode (and the errors inference tensors raise), ALiBi
slopes for a head count that is not a power of two, sdpa_kernel backend selection, and a few training steps."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

rng = np.random.default_rng(7)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def get_alibi_slopes(n):
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + get_alibi_slopes(2 * closest)[0::2][: n - closest]


print("alibi 6 heads", [round(s, 4) for s in get_alibi_slopes(6)])
slopes = torch.tensor(get_alibi_slopes(4))
pos = torch.arange(5)
alibi = slopes[:, None, None] * (pos[None, None, :] - pos[None, :, None]).clamp(max=0)
print("alibi bias", tuple(alibi.shape), alibi[1].tolist())


def sliding_window_mask(seqlen, window, start=0):
    i = torch.arange(seqlen)[:, None] + start
    j = torch.arange(seqlen + start)[None, :]
    return (j <= i) & (j > i - window)


print("window mask", sliding_window_mask(5, 3).int().tolist())


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, window, cache_size=4):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
        self.window = window
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        self.cache_size = cache_size
        self.cache_k = nn.Buffer(torch.zeros(1, n_kv_heads, cache_size, self.head_dim), persistent=False)
        self.cache_v = nn.Buffer(torch.zeros(1, n_kv_heads, cache_size, self.head_dim), persistent=False)

    def forward(self, x, mask, repeat=False):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        if repeat:
            rep = self.n_heads // self.n_kv_heads
            k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        return self.wo(out.transpose(1, 2).reshape(b, t, -1))

    def step(self, x, pos):
        q = self.wq(x).view(1, 1, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(1, 1, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(1, 1, self.n_kv_heads, self.head_dim).transpose(1, 2)
        slot = pos % self.cache_size
        self.cache_k[:, :, slot] = k[:, :, 0]
        self.cache_v[:, :, slot] = v[:, :, 0]
        n = min(pos + 1, self.window)
        idx = torch.tensor([(pos - i) % self.cache_size for i in range(n - 1, -1, -1)])
        out = F.scaled_dot_product_attention(q, self.cache_k[:, :, idx], self.cache_v[:, :, idx], enable_gqa=True)
        return self.wo(out.transpose(1, 2).reshape(1, 1, -1))


class Block(nn.Module):
    def __init__(self, dim=8, n_heads=4, n_kv_heads=2, window=3):
        super().__init__()
        self.attention_norm = nn.RMSNorm(dim, eps=1e-5)
        self.attention = Attention(dim, n_heads, n_kv_heads, window)
        self.ffn_norm = nn.RMSNorm(dim, eps=1e-5)
        self.w1, self.w3 = nn.Linear(dim, 16, bias=False), nn.Linear(dim, 16, bias=False)
        self.w2 = nn.Linear(16, dim, bias=False)

    def ffn(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))

    def forward(self, x, mask, repeat=False):
        h = x + self.attention(self.attention_norm(x), mask, repeat)
        return h + self.ffn(self.ffn_norm(h))

    def step(self, x, pos):
        h = x + self.attention.step(self.attention_norm(x), pos)
        return h + self.ffn(self.ffn_norm(h))


emb = nn.Embedding(10, 8)
block = Block()
out_head = nn.Linear(8, 10, bias=False)
with torch.no_grad():
    for m in (emb, block, out_head):
        for name, p in m.named_parameters():
            base = 1.0 if "norm" in name else 0.0
            p.copy_(torch.from_numpy((base + 0.4 * rng.standard_normal(p.shape)).astype(np.float32)))
print(block.attention_norm, "buffers", [n for n, _ in block.named_buffers()], "state", len(block.state_dict()))
x = torch.from_numpy(rng.standard_normal((2, 6, 8)).astype(np.float32))
xn = block.attention_norm(x)
print("rmsnorm == F.rms_norm", torch.allclose(xn, F.rms_norm(x, (8,), block.attention_norm.weight, 1e-5), atol=1e-6),
      r(xn, 4))
mask = sliding_window_mask(6, 3)
a = block(x, mask)
b = block(x, mask, repeat=True)
print("gqa == repeat_interleave", torch.allclose(a, b, atol=1e-5), r(a, 6))
with sdpa_kernel(SDPBackend.MATH):
    print("math backend", torch.allclose(block(x, mask), a, atol=1e-6), SDPBackend.MATH)
try:
    F.scaled_dot_product_attention(torch.zeros(1, 4, 2, 2), torch.zeros(1, 3, 2, 2), torch.zeros(1, 3, 2, 2),
                                   enable_gqa=True)
except RuntimeError as e:
    print("RuntimeError", str(e)[:60])

tokens = torch.tensor([[3, 1, 4, 1, 5, 9]])
with torch.inference_mode():
    full = out_head(block(emb(tokens), sliding_window_mask(6, 3)))
    steps = [out_head(block.step(emb(tokens[:, i:i + 1]), i)) for i in range(6)]
    cached = torch.cat(steps, dim=1)
    print("cache == full", torch.allclose(full, cached, atol=1e-5), "inference", cached.is_inference(),
          cached.requires_grad, torch.is_inference_mode_enabled())
    gen = tokens[:, :2].clone()
    for m in block.modules():
        if isinstance(m, Attention):
            m.cache_k.zero_()
            m.cache_v.zero_()
    logits = None
    for i in range(7):
        logits = out_head(block.step(emb(gen[:, i:i + 1]), i))
        if i >= 1:
            gen = torch.cat([gen, logits.argmax(-1)], dim=1)
print("greedy", gen.tolist(), "cache slot 0", r(block.attention.cache_k[0, :, 0], 4))
try:
    full.mul_(2)
except RuntimeError as e:
    print("RuntimeError", str(e).split(".")[0])
w = torch.ones(10, requires_grad=True)
try:
    (full * w).sum().backward()
except RuntimeError as e:
    print("RuntimeError", str(e).split(".")[0])
print("clone is normal", full.clone().is_inference())

params = list(emb.parameters()) + list(block.parameters()) + list(out_head.parameters())
opt = torch.optim.AdamW(params, lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1, fused=False)
seqs = torch.from_numpy(rng.integers(0, 10, size=(3, 7)))
for step in range(4):
    opt.zero_grad(set_to_none=True)
    logits = out_head(block(emb(seqs[:, :-1]), sliding_window_mask(6, 3)))
    loss = F.cross_entropy(logits.flatten(0, 1), seqs[:, 1:].flatten())
    loss.backward()
    if step == 0:
        print("grads", round(block.attention.wk.weight.grad.norm().item(), 4),
              r(block.attention_norm.weight.grad, 3))
    opt.step()
    print("step", step, round(loss.item(), 4))
