"""nn.MultiheadAttention over padded token batches: key_padding_mask as bool and float, causal attn_mask
(bool, float, and per-head 3-D), need_weights with average_attn_weights on and off, batch_first against
sequence-first, kdim/vdim cross-attention, fully-masked rows, the in_proj parameters, and a check against
attention written out by hand with masked_fill and softmax."""

import math

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

B, T, E, H = 2, 5, 8, 2
lengths = torch.tensor([5, 3])
x = torch.randn(B, T, E)
pad = torch.arange(T).expand(B, T) >= lengths.unsqueeze(1)
print("key_padding_mask")
print(pad)

mha = nn.MultiheadAttention(E, H, batch_first=True)
mha.eval()
print(mha)
print([(n, tuple(p.shape)) for n, p in mha.named_parameters()])
print("_qkv_same_embed_dim", mha._qkv_same_embed_dim, "head_dim", mha.head_dim)

out, w = mha(x, x, x, key_padding_mask=pad)
print("out", tuple(out.shape), "weights", tuple(w.shape))
print(w[1])
print("masked keys get zero weight", bool(w[1, :, 3:].eq(0).all()))
print("rows sum to one", torch.allclose(w.sum(-1), torch.ones(B, T)))

_, w_heads = mha(x, x, x, key_padding_mask=pad, average_attn_weights=False)
print("per-head", tuple(w_heads.shape), torch.allclose(w_heads.mean(1), w, atol=1e-6))
out_nw, none_w = mha(x, x, x, key_padding_mask=pad, need_weights=False)
print("need_weights=False", none_w, torch.allclose(out_nw, out, atol=1e-5))

# the same attention by hand
q, k, v = F.linear(x, mha.in_proj_weight, mha.in_proj_bias).chunk(3, dim=-1)


def heads(t):
    return t.view(B, T, H, E // H).transpose(1, 2)


scores = heads(q) @ heads(k).transpose(-2, -1) / math.sqrt(E // H)
scores = scores.masked_fill(pad[:, None, None, :], float("-inf"))
attn = scores.softmax(-1)
ctx = (attn @ heads(v)).transpose(1, 2).reshape(B, T, E)
manual = mha.out_proj(ctx)
print("manual matches", torch.allclose(manual, out, atol=1e-5), torch.allclose(attn.mean(1), w, atol=1e-6))

# float key_padding_mask (additive) equals the bool one
fpad = torch.zeros(B, T).masked_fill(pad, float("-inf"))
out_f, _ = mha(x, x, x, key_padding_mask=fpad)
print("float kpm matches", torch.allclose(out_f, out, atol=1e-5))

# causal masks: bool, float from generate_square_subsequent_mask, and per-head 3-D
causal_bool = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
causal_f = nn.Transformer.generate_square_subsequent_mask(T)
print(causal_f)
o1, w1 = mha(x, x, x, attn_mask=causal_bool)
o2, w2 = mha(x, x, x, attn_mask=causal_f)
print("bool == float causal", torch.allclose(o1, o2, atol=1e-5))
print(w1[0])
mask3 = causal_f.expand(B * H, T, T).clone()
mask3[1::2, :, 0] = float("-inf")
mask3[1::2, 0, 0] = 0.0
o3, w3 = mha(x, x, x, attn_mask=mask3, average_attn_weights=False)
print("3-D mask head 1 ignores key 0", bool(w3[:, 1, 1:, 0].eq(0).all()), tuple(w3.shape))

# both masks together; is_causal as a hint
o4, w4 = mha(x, x, x, attn_mask=causal_bool, key_padding_mask=pad)
print("combined row sums", [round(v, 4) for v in w4[1].sum(-1).tolist()])
print(w4[1])
o5, _ = mha(x, x, x, attn_mask=causal_bool, is_causal=True, key_padding_mask=pad)
print("is_causal hint same", torch.allclose(o4, o5, atol=1e-5))

# sequence-first layout with the same parameters
mha_sf = nn.MultiheadAttention(E, H)
mha_sf.load_state_dict(mha.state_dict())
mha_sf.eval()
out_sf, w_sf = mha_sf(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), key_padding_mask=pad)
print("seq-first", tuple(out_sf.shape), torch.allclose(out_sf.transpose(0, 1), out, atol=1e-5))

# cross-attention with different key/value sizes
torch.manual_seed(1)
cross = nn.MultiheadAttention(E, 4, kdim=6, vdim=3, batch_first=True, bias=False)
print(cross, cross._qkv_same_embed_dim, cross.in_proj_weight)
print([(n, tuple(p.shape)) for n, p in cross.named_parameters()])
mem = torch.randn(B, 7, 6)
val = torch.randn(B, 7, 3)
mem_pad = torch.zeros(B, 7, dtype=torch.bool)
mem_pad[0, 5:] = True
co, cw = cross(x, mem, val, key_padding_mask=mem_pad)
print("cross", tuple(co.shape), tuple(cw.shape), round(cw[0, :, 5:].abs().sum().item(), 4))
print(co[0, :2])

# a fully padded query row: PyTorch returns NaN there
allpad = torch.ones(B, T, dtype=torch.bool)
allpad[0] = False
on, wn = mha(x, x, x, key_padding_mask=allpad)
print("fully masked nan", bool(on[1].isnan().all()), bool(on[0].isnan().any()))

# gradients flow through the projections, not through masked keys
xg = x.clone().requires_grad_()
o, _ = mha(xg, xg, xg, key_padding_mask=pad)
o[:, 0].sum().backward()
print("grad on padded positions (key/value only via query)", xg.grad[1, 3:].abs().sum().item() == 0)
print("in_proj grad norm", round(mha.in_proj_weight.grad.norm().item(), 4))

# dropout in training mode
torch.manual_seed(2)
drop = nn.MultiheadAttention(E, H, dropout=0.5, batch_first=True)
drop.train()
_, wd = drop(x, x, x)
print("dropped weights", wd[0, 0])

for kwargs in (dict(attn_mask=torch.zeros(3, 3)), dict(key_padding_mask=torch.zeros(B, 4, dtype=torch.bool))):
    try:
        mha(x, x, x, **kwargs)
    except Exception as err:
        print(type(err).__name__, str(err)[:110])
try:
    nn.MultiheadAttention(10, 3)
except Exception as err:
    print(type(err).__name__, err)
