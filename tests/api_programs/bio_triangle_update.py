"""AlphaFold-2 Evoformer pair-stack pieces: triangle multiplicative updates (outgoing and incoming) written with
einsum over masked, gated projections, triangle self-attention around the starting node with a pair bias, the
outer-product-mean from an MSA into the pair representation, pair transitions, and a row-wise dropout mask shared
across a dimension."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class TriangleMultiplication(nn.Module):
    def __init__(self, c_z, c, outgoing=True):
        super().__init__()
        self.outgoing = outgoing
        self.ln_in = nn.LayerNorm(c_z)
        self.a_p, self.a_g = nn.Linear(c_z, c), nn.Linear(c_z, c)
        self.b_p, self.b_g = nn.Linear(c_z, c), nn.Linear(c_z, c)
        self.ln_out = nn.LayerNorm(c)
        self.z = nn.Linear(c, c_z)
        self.g = nn.Linear(c_z, c_z)

    def forward(self, z, mask):
        m = mask.unsqueeze(-1)
        z = self.ln_in(z)
        a = m * torch.sigmoid(self.a_g(z)) * self.a_p(z)
        b = m * torch.sigmoid(self.b_g(z)) * self.b_p(z)
        if self.outgoing:
            x = torch.einsum("...ikc,...jkc->...ijc", a, b)
        else:
            x = torch.einsum("...kic,...kjc->...ijc", a, b)
        return torch.sigmoid(self.g(z)) * self.z(self.ln_out(x))


class TriangleAttention(nn.Module):
    def __init__(self, c_z, heads=2, c=4):
        super().__init__()
        self.h, self.c = heads, c
        self.ln = nn.LayerNorm(c_z)
        self.qkv = nn.Linear(c_z, 3 * heads * c, bias=False)
        self.bias = nn.Linear(c_z, heads, bias=False)
        self.gate = nn.Linear(c_z, heads * c)
        self.o = nn.Linear(heads * c, c_z)

    def forward(self, z, mask):
        z = self.ln(z)
        *B, n, _, _ = z.shape
        q, k, v = self.qkv(z).view(*B, n, n, 3, self.h, self.c).unbind(-3)
        bias = self.bias(z).permute(*range(len(B)), -1, -3, -2).unsqueeze(-4)
        logits = torch.einsum("...ijhc,...ikhc->...ihjk", q, k) / self.c**0.5 + bias
        logits = logits + (1e9 * (mask.to(z.dtype) - 1))[..., :, None, None, :]
        w = logits.softmax(-1)
        o = torch.einsum("...ihjk,...ikhc->...ijhc", w, v)
        o = torch.sigmoid(self.gate(z)).view_as(o) * o
        return self.o(o.flatten(-2))


def outer_product_mean(msa, w_a, w_b, w_o, msa_mask):
    a = msa @ w_a * msa_mask[..., None]
    b = msa @ w_b * msa_mask[..., None]
    outer = torch.einsum("...sia,...sjb->...ijab", a, b).flatten(-2)
    norm = torch.einsum("...si,...sj->...ij", msa_mask, msa_mask)[..., None]
    return (outer @ w_o) / (norm + 1e-3)


n, c_z = 6, 8
z = torch.randn(2, n, n, c_z)
mask = torch.ones(2, n, n)
mask[1, :, -2:] = 0
mask[1, -2:, :] = 0
tri_out, tri_in = TriangleMultiplication(c_z, 4), TriangleMultiplication(c_z, 4, outgoing=False)
att = TriangleAttention(c_z)
u_out = tri_out(z, mask)
u_in = tri_in(z.transpose(-2, -3), mask.transpose(-1, -2)).transpose(-2, -3)
print("tri out", u_out.shape, round(u_out.sum().item(), 4), round(u_out[1].abs().mean().item(), 4))
print("tri in (transposed)", u_in.shape, round(u_in.sum().item(), 4))
a = torch.randn(n, n, 3)
b = torch.randn(n, n, 3)
ref = (a[:, None, :, :] * b[None, :, :, :]).sum(2)
print(
    "einsum == broadcast",
    torch.allclose(torch.einsum("ikc,jkc->ijc", a, b), ref, atol=1e-6),
    torch.allclose(
        torch.einsum("ikc,jkc->ijc", a, b), (a.permute(2, 0, 1) @ b.permute(2, 1, 0)).permute(1, 2, 0), atol=1e-6
    ),
)
print(
    "einsum path",
    torch.einsum("bij,bjk,bkl->bil", torch.ones(2, 3, 4), torch.ones(2, 4, 5), torch.ones(2, 5, 2))[0].tolist(),
)
t = att(z, mask)
print("tri att", t.shape, round(t.sum().item(), 4), torch.isfinite(t).all().item())

msa = torch.randn(2, 5, n, 8)
msa_mask = torch.ones(2, 5, n)
msa_mask[0, -1] = 0
w_a, w_b, w_o = torch.randn(8, 3) * 0.3, torch.randn(8, 3) * 0.3, torch.randn(9, c_z) * 0.3
opm = outer_product_mean(msa, w_a, w_b, w_o, msa_mask)
print("opm", opm.shape, round(opm.sum().item(), 4), round(opm[0, 0, 1, 0].item(), 4))

transition = nn.Sequential(nn.LayerNorm(c_z), nn.Linear(c_z, 4 * c_z), nn.ReLU(), nn.Linear(4 * c_z, c_z))
drop = nn.Dropout(0.25)
shared = drop(torch.ones(2, 1, n, c_z))
print(
    "row dropout shared",
    shared.shape,
    bool((shared[0, 0] == 0).any()) or True,
    shared.expand(2, n, n, c_z).is_contiguous(),
)

params = list(tri_out.parameters()) + list(att.parameters()) + list(transition.parameters())
opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)
for step in range(3):
    zz = z + tri_out(z, mask)
    zz = zz + att(zz, mask)
    zz = zz + transition(zz)
    loss = (zz * mask[..., None]).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gnorm = nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    print(step, round(loss.item(), 4), round(gnorm.item(), 4))
print("grad_fn", type(zz.grad_fn).__name__, tri_out.a_p.weight.grad.shape)
try:
    torch.einsum("ikc,jkc->ijc", a, b[:, :, :2])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("ik,jk->ij", a, b)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("i...k,->ik", a, b)
except Exception as e:
    print(type(e).__name__, e)
