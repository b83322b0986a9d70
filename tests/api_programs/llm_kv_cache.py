"""KV caches as inference code keeps them: a dynamic cache grown with torch.cat, a static preallocated cache written
with index_copy_ / slice assignment at cache_position, prefill then token-by-token decode matching the full forward,
cache cropping for beam rollback, a sliding-window rolling cache, and the buffers' bookkeeping (persistent=False)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def init_deterministic(module):
    for i, (name, p) in enumerate(sorted(module.named_parameters())):
        with torch.no_grad():
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (0.31 + 0.07 * i)).view_as(p) * 0.3)


class DynamicCache:
    def __init__(self):
        self.key_cache, self.value_cache = [], []

    def update(self, k, v, layer_idx):
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(k)
            self.value_cache.append(v)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], k], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], v], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx=0):
        return 0 if len(self.key_cache) <= layer_idx else self.key_cache[layer_idx].shape[-2]

    def crop(self, max_length):
        self.key_cache = [k[..., :max_length, :] for k in self.key_cache]
        self.value_cache = [v[..., :max_length, :] for v in self.value_cache]


class StaticCache(nn.Module):
    def __init__(self, n_layers, batch, n_kv_heads, max_len, head_dim):
        super().__init__()
        for i in range(n_layers):
            self.register_buffer(f"k{i}", torch.zeros(batch, n_kv_heads, max_len, head_dim), persistent=False)
            self.register_buffer(f"v{i}", torch.zeros(batch, n_kv_heads, max_len, head_dim), persistent=False)

    def update(self, k, v, layer_idx, cache_position):
        kc, vc = getattr(self, f"k{layer_idx}"), getattr(self, f"v{layer_idx}")
        kc.index_copy_(2, cache_position, k)
        vc[:, :, cache_position] = v
        return kc, vc


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, layer_idx):
        super().__init__()
        self.h, self.kv, self.hd, self.layer_idx = n_heads, n_kv_heads, dim // n_heads, layer_idx
        self.wq = nn.Linear(dim, n_heads * self.hd, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(n_heads * self.hd, dim, bias=False)

    def forward(self, x, cache=None, cache_position=None, mask=None):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.h, self.hd).transpose(1, 2)
        k = self.wk(x).view(B, T, self.kv, self.hd).transpose(1, 2)
        v = self.wv(x).view(B, T, self.kv, self.hd).transpose(1, 2)
        if isinstance(cache, DynamicCache):
            k, v = cache.update(k, v, self.layer_idx)
        elif cache is not None:
            k, v = cache.update(k, v, self.layer_idx, cache_position)
        k = k.repeat_interleave(self.h // self.kv, dim=1)
        v = v.repeat_interleave(self.h // self.kv, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.wo(y.transpose(1, 2).reshape(B, T, -1))


class Model(nn.Module):
    def __init__(self, vocab=32, dim=16, n_layers=2, n_heads=4, n_kv_heads=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(64, dim)
        self.layers = nn.ModuleList(Attention(dim, n_heads, n_kv_heads, i) for i in range(n_layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx, cache=None, start=0, max_len=None):
        B, T = idx.shape
        pos = torch.arange(start, start + T)
        x = self.emb(idx) + self.pos(pos)
        if isinstance(cache, StaticCache):
            kv_len = max_len
            mask = pos[:, None] >= torch.arange(kv_len)[None, :]
        else:
            kv_len = start + T
            mask = torch.ones(T, kv_len, dtype=torch.bool).tril(diagonal=start)
        for layer in self.layers:
            x = x + layer(x, cache, pos, mask)
        return self.head(self.norm(x))


model = Model().eval()
init_deterministic(model)
tokens = torch.tensor([[3, 7, 1, 9, 4, 4, 2, 8, 5, 0], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
with torch.no_grad():
    full = model(tokens)
print("full logits:", tuple(full.shape), full[0, -1, :5])

# prefill 6 tokens, then decode one at a time
with torch.inference_mode():
    cache = DynamicCache()
    pre = model(tokens[:, :6], cache)
    steps = [pre[:, -1]]
    for t in range(6, 10):
        steps.append(model(tokens[:, t:t + 1], cache, start=t)[:, -1])
print("cache length:", cache.get_seq_length(), "layers:", len(cache.key_cache), tuple(cache.key_cache[0].shape))
print("incremental == full:", torch.allclose(torch.stack(steps[1:], 1), full[:, 6:], atol=1e-5),
      torch.allclose(steps[0], full[:, 5], atol=1e-5))
print("inference tensors:", cache.key_cache[0].is_inference(), pre.requires_grad)

# static cache with index_copy_ and advanced-index assignment
static = StaticCache(2, 2, 2, 12, 4)
print("static buffers:", [n for n, _ in static.named_buffers()][:3], "state_dict:", len(static.state_dict()))
with torch.no_grad():
    out = model(tokens[:, :6], static, start=0, max_len=12)
    outs = [out[:, -1]]
    for t in range(6, 10):
        outs.append(model(tokens[:, t:t + 1], static, start=t, max_len=12)[:, -1])
print("static == full:", torch.allclose(torch.stack(outs[1:], 1), full[:, 6:], atol=1e-5))
print("untouched slots zero:", static.k0[:, :, 10:].abs().sum().item(), "filled slot norm:",
      round(static.k0[:, :, 9].norm().item(), 4))

# greedy decode with the dynamic cache, then roll back two steps and continue (crop)
with torch.no_grad():
    cache = DynamicCache()
    logits = model(tokens[:1, :4], cache)
    generated = tokens[:1, :4]
    for _ in range(5):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        generated = torch.cat([generated, nxt], dim=1)
        logits = model(nxt, cache, start=generated.shape[1] - 1)
    print("greedy:", generated.tolist())
    cache.crop(7)
    print("after crop:", cache.get_seq_length())
    again = model(generated[:, 7:8], cache, start=7)
    ref = model(generated[:, :8])
    print("crop-and-continue == full:", torch.allclose(again[:, -1], ref[:, -1], atol=1e-5))


# sliding-window rolling buffer (Mistral): slot = pos % W
W = 4
roll_k = torch.zeros(1, 1, W, 2)
for p in range(7):
    new = torch.full((1, 1, 1, 2), float(p))
    roll_k[:, :, p % W] = new[:, :, 0]
print("rolling buffer:", roll_k[0, 0, :, 0].tolist())
order = torch.arange(7 - W, 7) % W
print("unrolled order:", order.tolist(), roll_k[0, 0, order, 0].tolist())
print("torch.roll equivalent:", torch.roll(roll_k, shifts=-(7 % W), dims=2)[0, 0, :, 0].tolist())

# memory accounting
n_bytes = sum(b.numel() * b.element_size() for b in static.buffers())
print("static cache bytes:", n_bytes, "bf16:", n_bytes // 2)
kv_per_token = 2 * 2 * 2 * 4 * 4
print("bytes per token:", kv_per_token, "for 4096 tokens: %.2f MiB" % (kv_per_token * 4096 / 2 ** 20))
print("index_copy_ errors:")
try:
    static.k0.index_copy_(2, torch.tensor([0, 1]), torch.zeros(2, 2, 3, 4))
except (RuntimeError, IndexError) as e:
    print(" ", type(e).__name__, str(e)[:100])
try:
    static.k0.index_copy_(2, torch.tensor([12]), torch.zeros(2, 2, 1, 4))
except (RuntimeError, IndexError) as e:
    print(" ", type(e).__name__, str(e)[:100])
print(math.isclose(full.softmax(-1).sum(-1).mean().item(), 1.0, rel_tol=1e-6))
