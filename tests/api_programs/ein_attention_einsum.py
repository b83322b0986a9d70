"""Attention written with einsum as research code writes it: multi-head with a relative-position bias, grouped-query
heads by ellipsis, causal linear attention through cumsum, rotary embeddings, and gradients against the matmul form."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

B, L, D, H = 2, 5, 8, 2
dh = D // H
x = torch.randn(B, L, D)
Wq = torch.randn(D, H, dh, requires_grad=True)
Wk = torch.randn(D, H, dh, requires_grad=True)
Wv = torch.randn(D, H, dh, requires_grad=True)
Wo = torch.randn(H, dh, D, requires_grad=True)

q = torch.einsum("bld,dhe->bhle", x, Wq)
k = torch.einsum("bld,dhe->bhle", x, Wk)
v = torch.einsum("bld,dhe->bhle", x, Wv)
print("q k v", tuple(q.shape), tuple(k.shape), tuple(v.shape))
scores = torch.einsum("bhqe,bhke->bhqk", q, k) / math.sqrt(dh)
# relative-position bias: one scalar per head and clipped distance
max_rel = 2
pos = torch.arange(L)
rel = (pos[None, :] - pos[:, None]).clamp(-max_rel, max_rel) + max_rel
print("relative buckets\n", rel)
bias_table = torch.randn(2 * max_rel + 1, H)
bias = bias_table[rel].permute(2, 0, 1)
print("bias", tuple(bias.shape))
causal = torch.ones(L, L, dtype=torch.bool).tril()
scores = scores + bias
scores = scores.masked_fill(~causal, float("-inf"))
attn = scores.softmax(-1)
print("attn row sums", attn.sum(-1)[0, 0])
print("attn[0, 1]\n", attn[0, 1])
ctx = torch.einsum("bhqk,bhke->bhqe", attn, v)
out = torch.einsum("bhqe,hed->bqd", ctx, Wo)
print("out", tuple(out.shape))
print(out[0, :2])

# the same with matmul / reshape, as nn.MultiheadAttention-style code writes it
q2 = (x @ Wq.reshape(D, D)).view(B, L, H, dh).transpose(1, 2)
k2 = (x @ Wk.reshape(D, D)).view(B, L, H, dh).transpose(1, 2)
v2 = (x @ Wv.reshape(D, D)).view(B, L, H, dh).transpose(1, 2)
ctx2 = F.scaled_dot_product_attention(q2, k2, v2, attn_mask=bias.masked_fill(~causal, float("-inf")))
out2 = ctx2.transpose(1, 2).reshape(B, L, D) @ Wo.reshape(D, D)
print("matches matmul + sdpa:", torch.allclose(out, out2, atol=1e-4))
loss = out.pow(2).mean()
loss.backward()
print("loss", round(loss.item(), 4))
print("grad norms", [round(w.grad.norm().item(), 4) for w in (Wq, Wk, Wv, Wo)])
gq = Wq.grad.clone()
for w in (Wq, Wk, Wv, Wo):
    w.grad = None
out2.pow(2).mean().backward()
print("same grads:", torch.allclose(gq, Wq.grad, atol=1e-4))

# grouped-query attention: 4 query heads share 2 key/value heads, via a group axis
Hq, Hkv = 4, 2
g = Hq // Hkv
qg = torch.randn(B, Hkv, g, L, dh)
kg = torch.randn(B, Hkv, L, dh)
vg = torch.randn(B, Hkv, L, dh)
s = torch.einsum("bhgqe,bhke->bhgqk", qg, kg) / math.sqrt(dh)
og = torch.einsum("bhgqk,bhke->bhgqe", s.softmax(-1), vg)
ref = F.scaled_dot_product_attention(qg.reshape(B, Hq, L, dh), kg.repeat_interleave(g, 1), vg.repeat_interleave(g, 1))
print("GQA matches repeat_interleave:", torch.allclose(og.reshape(B, Hq, L, dh), ref, atol=1e-5))
# ellipsis form: works for any number of leading dims
s_ell = torch.einsum("...qe,...ke->...qk", qg, kg.unsqueeze(2))
print("ellipsis broadcast", tuple(s_ell.shape), torch.allclose(s_ell / math.sqrt(dh), s, atol=1e-5))

# causal linear attention (Katharopoulos et al.): phi(q) . cumsum(phi(k) v^T)
phi = lambda t: F.elu(t) + 1  # noqa: E731
ql, kl, vl = phi(q.detach()), phi(k.detach()), v.detach()
kv = torch.einsum("bhle,bhlf->bhlef", kl, vl).cumsum(2)
z = kl.cumsum(2)
num = torch.einsum("bhle,bhlef->bhlf", ql, kv)
den = torch.einsum("bhle,bhle->bhl", ql, z).unsqueeze(-1)
lin = num / den
# quadratic reference with a causal mask
A = torch.einsum("bhqe,bhke->bhqk", ql, kl) * causal
ref_lin = torch.einsum("bhqk,bhke->bhqe", A / A.sum(-1, keepdim=True), vl)
print("linear attention matches masked form:", torch.allclose(lin, ref_lin, atol=1e-5))
print("linear attention[0, 0, -1]", lin[0, 0, -1])

# rotary position embeddings applied with einsum-free complex math and checked with rotation matrices
theta = 1.0 / (10000 ** (torch.arange(0, dh, 2).float() / dh))
angles = torch.outer(torch.arange(L).float(), theta)
print("angles", tuple(angles.shape))
qc = torch.view_as_complex(q.detach().reshape(B, H, L, dh // 2, 2))
rot = torch.polar(torch.ones_like(angles), angles)
q_rot = torch.view_as_real(qc * rot).flatten(-2)
cos, sin = angles.cos(), angles.sin()
R = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)
print("rotation matrices", tuple(R.shape))
q_rot2 = torch.einsum("lpij,bhlpj->bhlpi", R, q.detach().reshape(B, H, L, dh // 2, 2)).flatten(-2)
print("rotary matches rotation matrices:", torch.allclose(q_rot, q_rot2, atol=1e-5))
print("norms preserved:", torch.allclose(q_rot.norm(dim=-1), q.detach().norm(dim=-1), atol=1e-4))
# relative property: <R_m q, R_n k> depends on m - n only
qv = torch.randn(dh)
kvv = torch.randn(dh)


def rope(vec, pos_):
    c = torch.view_as_complex(vec.reshape(dh // 2, 2))
    return torch.view_as_real(c * torch.polar(torch.ones(dh // 2), pos_ * theta)).flatten()


d1 = torch.dot(rope(qv, 3.0), rope(kvv, 1.0))
d2 = torch.dot(rope(qv, 7.0), rope(kvv, 5.0))
print("relative invariance:", round(d1.item(), 4), round(d2.item(), 4), torch.allclose(d1, d2, atol=1e-4))

# attention entropy and head agreement, as analysis code prints
ent = -(attn.detach().clamp_min(1e-12).log() * attn.detach()).sum(-1)
print("entropy per head", ent.mean((0, 2)))
agree = torch.einsum("bhqk,bgqk->hg", attn.detach(), attn.detach()) / (B * L)
print("head agreement\n", agree)
