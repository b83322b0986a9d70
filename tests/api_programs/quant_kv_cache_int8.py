"""An int8 KV cache for autoregressive decoding as inference engines write it: per-token, per-head asymmetric
quantization with aminmax, uint8 storage written with index_copy_ and slice assignment, dequantization inside the
attention step against scaled_dot_product_attention on float keys, the memory saved, and cache misuse."""

import math

import torch

F = torch.nn.functional
torch.manual_seed(0)
B, H, D, T_max = 2, 3, 8, 12


class QuantKVCache:
    def __init__(self):
        self.k = torch.zeros(B, H, T_max, D, dtype=torch.uint8)
        self.v = torch.zeros(B, H, T_max, D, dtype=torch.uint8)
        self.k_scale = torch.ones(B, H, T_max, 1)
        self.k_zp = torch.zeros(B, H, T_max, 1)
        self.v_scale = torch.ones(B, H, T_max, 1)
        self.v_zp = torch.zeros(B, H, T_max, 1)
        self.len = 0

    @staticmethod
    def quant(x):
        mn, mx = torch.aminmax(x, dim=-1, keepdim=True)
        scale = (mx - mn).clamp(min=1e-6) / 255
        zp = torch.round(-mn / scale)
        q = torch.clamp(torch.round(x / scale) + zp, 0, 255).to(torch.uint8)
        return q, scale, zp

    def append(self, k, v):
        t = k.shape[2]
        if self.len + t > T_max:
            raise RuntimeError(f"cache full: {self.len} + {t} > {T_max}")
        pos = torch.arange(self.len, self.len + t)
        qk, sk, zk = self.quant(k)
        qv, sv, zv = self.quant(v)
        self.k.index_copy_(2, pos, qk)
        self.v[:, :, self.len : self.len + t] = qv
        self.k_scale.index_copy_(2, pos, sk)
        self.k_zp.index_copy_(2, pos, zk)
        self.v_scale[:, :, self.len : self.len + t] = sv
        self.v_zp[:, :, self.len : self.len + t] = zv
        self.len += t

    def get(self):
        n = self.len
        k = (self.k[:, :, :n].float() - self.k_zp[:, :, :n]) * self.k_scale[:, :, :n]
        v = (self.v[:, :, :n].float() - self.v_zp[:, :, :n]) * self.v_scale[:, :, :n]
        return k, v


cache = QuantKVCache()
ks, vs = [], []
prompt_k, prompt_v = torch.randn(B, H, 5, D), torch.randn(B, H, 5, D)
cache.append(prompt_k, prompt_v)
ks.append(prompt_k)
vs.append(prompt_v)
errs = []
for step in range(4):
    q = torch.randn(B, H, 1, D)
    k_new, v_new = torch.randn(B, H, 1, D) * (1 + step), torch.randn(B, H, 1, D)
    cache.append(k_new, v_new)
    ks.append(k_new)
    vs.append(v_new)
    kd, vd = cache.get()
    ref = F.scaled_dot_product_attention(q, torch.cat(ks, 2), torch.cat(vs, 2))
    att = torch.softmax(q @ kd.transpose(-1, -2) / math.sqrt(D), dim=-1) @ vd
    errs.append(round((att - ref).abs().max().item(), 4))
    print("step", step, "len", cache.len, "out", tuple(att.shape), "max err", errs[-1])
kd, vd = cache.get()
full_k = torch.cat(ks, 2)
print(
    "key dequant max err",
    round((kd - full_k).abs().max().item(), 4),
    "bound",
    round((cache.k_scale[:, :, : cache.len] / 2).max().item(), 4),
)
print(
    "per-token scale shape",
    tuple(cache.k_scale.shape),
    "zp range",
    int(cache.k_zp[:, :, : cache.len].min()),
    int(cache.k_zp[:, :, : cache.len].max()),
)
used = cache.len
fp16_bytes = 2 * B * H * used * D * 2
int8_bytes = 2 * B * H * used * D * cache.k.element_size() + 4 * B * H * used * 4
print("bytes fp16", fp16_bytes, "int8+params", int8_bytes, "nbytes total", cache.k.nbytes + cache.v.nbytes)
print("uint8 arithmetic wraps", (cache.k[0, 0, 0, :3] + 250).tolist(), (cache.k[0, 0, 0, :3].int() + 250).tolist())
print(
    "sdpa with mask",
    F.scaled_dot_product_attention(torch.randn(1, 1, 2, D), kd[:1, :1], vd[:1, :1], is_causal=False).shape,
)
try:
    cache.append(torch.randn(B, H, 5, D), torch.randn(B, H, 5, D))
except Exception as e:
    print(type(e).__name__, e)
try:
    cache.k.index_copy_(2, torch.tensor([0]), torch.zeros(B, H, 1, D))
except Exception as e:
    print(type(e).__name__, e)
try:
    cache.k.index_copy_(2, torch.tensor([0.0]), torch.zeros(B, H, 1, D, dtype=torch.uint8))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.scaled_dot_product_attention(q, cache.k[:, :, :3], cache.v[:, :, :3])
except Exception as e:
    print(type(e).__name__, e)
