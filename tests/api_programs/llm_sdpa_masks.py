"""F.scaled_dot_product_attention as LLM code calls it: is_causal, boolean and additive float masks, grouped-query
attention through enable_gqa and through repeat_interleave, custom scale, sliding-window (Mistral) and ALiBi (BLOOM)
biases, padding masks from attention_mask, fully masked rows, and the errors PyTorch raises for bad calls."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def det(shape, scale=0.1, phase=0.0):
    n = math.prod(shape)
    return torch.sin(torch.arange(n, dtype=torch.float32) * scale + phase).reshape(shape)


def manual_attention(q, k, v, mask=None, scale=None):
    scale = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    att = (q @ k.transpose(-2, -1)) * scale
    if mask is not None:
        if mask.dtype == torch.bool:
            att = att.masked_fill(~mask, float("-inf"))
        else:
            att = att + mask
    att = F.softmax(att, dim=-1)
    return att @ v, att


B, Hq, Hkv, S, D = 2, 4, 2, 6, 8
q = det((B, Hq, S, D), 0.13)
k = det((B, Hkv, S, D), 0.07, 1.0)
v = det((B, Hkv, S, D), 0.05, 2.0)

# causal, via is_causal and via an explicit lower-triangular bool mask
kk = k.repeat_interleave(Hq // Hkv, dim=1)
vv = v.repeat_interleave(Hq // Hkv, dim=1)
y_causal = F.scaled_dot_product_attention(q, kk, vv, is_causal=True)
tril = torch.ones(S, S, dtype=torch.bool).tril()
y_bool = F.scaled_dot_product_attention(q, kk, vv, attn_mask=tril)
y_ref, att = manual_attention(q, kk, vv, tril)
print("causal out:", tuple(y_causal.shape), y_causal[0, 1, -1, :4])
print("is_causal == bool mask:", torch.allclose(y_causal, y_bool, atol=1e-6),
      "== manual:", torch.allclose(y_causal, y_ref, atol=1e-5))
print("attention row 2:", att[0, 0, 2])

# enable_gqa lets k/v keep Hkv heads
y_gqa = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
print("enable_gqa == repeat_interleave:", torch.allclose(y_gqa, y_causal, atol=1e-6))
try:
    F.scaled_dot_product_attention(q, k, v, is_causal=True)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])

# additive float mask equals bool mask; custom scale
float_mask = torch.zeros(S, S).masked_fill(~tril, float("-inf"))
y_float = F.scaled_dot_product_attention(q, kk, vv, attn_mask=float_mask)
print("float mask == bool mask:", torch.allclose(y_float, y_bool, atol=1e-6))
y_scaled = F.scaled_dot_product_attention(q, kk, vv, attn_mask=tril, scale=0.5)
print("scale=0.5:", y_scaled[1, 3, 4, :4], torch.allclose(y_scaled, manual_attention(q, kk, vv, tril, 0.5)[0],
                                                           atol=1e-5))

# sliding window (Mistral): key j visible from query i iff i - window < j <= i
window = 3
i = torch.arange(S).unsqueeze(1)
j = torch.arange(S).unsqueeze(0)
sw = (j <= i) & (j > i - window)
print("sliding-window mask:\n", sw.int())
y_sw = F.scaled_dot_product_attention(q, kk, vv, attn_mask=sw)
print("sliding window out[0,0,:,0]:", y_sw[0, 0, :, 0])
alt = torch.full((S, S), float("-inf")).triu(1)
alt = alt + torch.full((S, S), float("-inf")).tril(-window)
print("triu/tril window == bool:", torch.allclose(F.scaled_dot_product_attention(q, kk, vv, attn_mask=alt), y_sw,
                                                   atol=1e-6))


# ALiBi slopes for a power-of-two and a non-power-of-two head count
def get_slopes(n):
    def pow2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return pow2(n)
    closest = 2 ** math.floor(math.log2(n))
    return pow2(closest) + get_slopes(2 * closest)[0::2][: n - closest]


print("slopes(4):", [round(s, 4) for s in get_slopes(4)])
print("slopes(6):", [round(s, 4) for s in get_slopes(6)])
slopes = torch.tensor(get_slopes(Hq))
rel = (j - i).float()
alibi = slopes[:, None, None] * rel[None]
alibi = alibi.masked_fill(~tril, float("-inf"))
print("alibi head 0:\n", alibi[0])
y_alibi = F.scaled_dot_product_attention(q, kk, vv, attn_mask=alibi.unsqueeze(0))
print("alibi out:", y_alibi[0, 3, 5, :4], torch.allclose(y_alibi, manual_attention(q, kk, vv, alibi)[0], atol=1e-5))

# padding mask from a tokenizer's attention_mask (left padding), broadcast (B, 1, 1, S) & causal
attention_mask = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
pad = attention_mask[:, None, None, :].bool()
full = pad & tril
print("combined mask shape:", tuple(full.shape), full.dtype)
y_pad = F.scaled_dot_product_attention(q, kk, vv, attn_mask=full)
print("row of all-masked query is nan:", torch.isnan(y_pad[0, 0, 0]).all().item(),
      "valid rows finite:", torch.isfinite(y_pad[0, :, 2:]).all().item())
min_mask = torch.zeros(B, 1, S, S).masked_fill(~full, torch.finfo(torch.float32).min)
y_min = F.scaled_dot_product_attention(q, kk, vv, attn_mask=min_mask)
print("finfo.min mask keeps rows finite:", torch.isfinite(y_min).all().item(),
      "padded row = mean of v:", torch.allclose(y_min[0, 0, 0], vv[0, 0].mean(0), atol=1e-5))
print("valid rows agree:", torch.allclose(y_min[:, :, 2:], y_pad[:, :, 2:], atol=1e-5))

# gradients flow through the masked attention
qg = q.clone().requires_grad_()
out = F.scaled_dot_product_attention(qg, k, v, attn_mask=sw, enable_gqa=True)
out.pow(2).sum().backward()
print("grad norm:", round(qg.grad.norm().item(), 4), out.grad_fn is not None)

# dropout_p=0.0 in eval is deterministic; errors for bad calls
print("dropout 0:", torch.equal(F.scaled_dot_product_attention(q, kk, vv, dropout_p=0.0, is_causal=True), y_causal))
for name, fn in [
    ("mask dtype", lambda: F.scaled_dot_product_attention(q, kk, vv, attn_mask=tril.long())),
    ("q/k dtype", lambda: F.scaled_dot_product_attention(q, kk.double(), vv)),
    ("head dim", lambda: F.scaled_dot_product_attention(q, kk[..., :4], vv)),
]:
    try:
        fn()
        print(name, "no error")
    except (RuntimeError, ValueError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0][:90])
