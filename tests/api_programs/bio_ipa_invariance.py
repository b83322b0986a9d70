"""Invariant point attention (AlphaFold's structure module) with its symmetry checks: query/key/value points
generated in local frames and moved to the global frame, squared point distances with learned softplus head
weights, pair bias, outputs mapped back to local frames, a backbone update from a quaternion, torch.utils.checkpoint
over the block, and invariance to a global rotation/translation checked numerically in float64."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
checkpoint = torch.utils.checkpoint.checkpoint

torch.manual_seed(0)
f64 = torch.float64


def quat_to_rot(q):
    q = q / q.norm(dim=-1, keepdim=True)
    a, b, c, d = q.unbind(-1)
    return torch.stack(
        [
            a * a + b * b - c * c - d * d,
            2 * (b * c - a * d),
            2 * (b * d + a * c),
            2 * (b * c + a * d),
            a * a - b * b + c * c - d * d,
            2 * (c * d - a * b),
            2 * (b * d - a * c),
            2 * (c * d + a * b),
            a * a - b * b - c * c + d * d,
        ],
        -1,
    ).unflatten(-1, (3, 3))


class IPA(nn.Module):
    def __init__(self, c_s=16, c_z=8, heads=2, c=4, pq=3, pv=2):
        super().__init__()
        self.h, self.c, self.pq, self.pv = heads, c, pq, pv
        self.q = nn.Linear(c_s, heads * c, bias=False)
        self.kv = nn.Linear(c_s, 2 * heads * c, bias=False)
        self.q_pts = nn.Linear(c_s, heads * pq * 3)
        self.kv_pts = nn.Linear(c_s, heads * (pq + pv) * 3)
        self.b = nn.Linear(c_z, heads)
        self.head_w = nn.Parameter(torch.full((heads,), math.log(math.e - 1)))
        self.out = nn.Linear(heads * (c_z + c + pv * 4), c_s)

    def forward(self, s, z, R, t, mask):
        n = s.shape[-2]
        q = self.q(s).view(n, self.h, self.c)
        k, v = self.kv(s).view(n, self.h, 2 * self.c).split(self.c, dim=-1)

        def to_global(p):
            return torch.einsum("nij,nhpj->nhpi", R, p) + t[:, None, None, :]

        qp = to_global(self.q_pts(s).view(n, self.h, self.pq, 3))
        kvp = to_global(self.kv_pts(s).view(n, self.h, self.pq + self.pv, 3))
        kp, vp = kvp.split([self.pq, self.pv], dim=-2)
        wc = math.sqrt(2 / (9 * self.pq))
        wl = math.sqrt(1 / 3)
        logits = torch.einsum("ihc,jhc->hij", q, k) / math.sqrt(self.c) + self.b(z).permute(2, 0, 1)
        d2 = ((qp[:, None] - kp[None]) ** 2).sum((-1, -2)).permute(2, 0, 1)
        logits = wl * (logits - 0.5 * wc * F.softplus(self.head_w)[:, None, None] * d2)
        logits = logits.masked_fill(~(mask[:, None] & mask[None, :]), -1e9)
        a = logits.softmax(-1)
        o = torch.einsum("hij,jhc->ihc", a, v)
        o_pair = torch.einsum("hij,ijc->ihc", a, z)
        o_pt = torch.einsum("hij,jhpx->ihpx", a, vp)
        o_pt_local = torch.einsum("nji,nhpj->nhpi", R, o_pt - t[:, None, None, :])
        o_pt_norm = o_pt_local.norm(dim=-1)
        feats = torch.cat([o.flatten(1), o_pair.flatten(1), o_pt_local.flatten(1), o_pt_norm.flatten(1)], -1)
        return self.out(feats)


n = 6
ipa = IPA().double()
s = torch.randn(n, 16, dtype=f64)
z = torch.randn(n, n, 8, dtype=f64)
R = quat_to_rot(torch.randn(n, 4, dtype=f64))
t = torch.randn(n, 3, dtype=f64) * 3
mask = torch.tensor([True] * 5 + [False])
out = ipa(s, z, R, t, mask)
print("ipa", out.shape, out.dtype, round(out.sum().item(), 6))
G = quat_to_rot(torch.tensor([0.3, -0.5, 0.7, 0.2], dtype=f64))
shift = torch.tensor([5.0, -1.0, 2.0], dtype=f64)
out_g = ipa(s, z, G @ R, t @ G.T + shift, mask)
print("SE(3) invariant", torch.allclose(out, out_g, atol=1e-10), (out - out_g).abs().max().item() < 1e-10)
print("rotation det", round(torch.linalg.det(G).item(), 8), torch.allclose(G @ G.mT, torch.eye(3, dtype=f64)))

bb = nn.Linear(16, 6).double()
upd = bb(out)
dR = quat_to_rot(torch.cat([torch.ones(n, 1, dtype=f64), upd[:, :3]], -1))
R2, t2 = R @ dR, t + torch.einsum("nij,nj->ni", R, upd[:, 3:])
print("frame update", R2.shape, torch.allclose(R2.mT @ R2, torch.eye(3, dtype=f64).expand(n, 3, 3)), t2.shape)

s_req = s.clone().requires_grad_(True)
y1 = checkpoint(ipa, s_req, z, R, t, mask, use_reentrant=False)
(g1,) = torch.autograd.grad(y1.pow(2).sum(), s_req)
y2 = ipa(s_req, z, R, t, mask)
(g2,) = torch.autograd.grad(y2.pow(2).sum(), s_req)
print("checkpoint grads equal", torch.allclose(g1, g2), round(g1.norm().item(), 6), y1.grad_fn is not None)
print(
    "masked residue grad",
    g2[-1].abs().sum().item() > 0,
    "head weights",
    F.softplus(ipa.head_w).round(decimals=4).tolist(),
)

ipa32 = IPA()
opt = torch.optim.Adam(ipa32.parameters(), lr=1e-3)
target = torch.randn(n, 16)
for step in range(3):
    y = ipa32(s.float(), z.float(), R.float(), t.float(), mask)
    loss = F.smooth_l1_loss(y[mask], target[mask], beta=0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), y.dtype)
print("head_w grad", ipa32.head_w.grad.shape, ipa32.head_w.grad.abs().sum().item() > 0)
try:
    checkpoint(ipa, s_req, z, R, t, mask)
except Exception as e:
    print(type(e).__name__, e)
try:
    ipa(s.float(), z, R, t, mask)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("nij,nhpj->nhpi", R, torch.zeros(n, 2, 3, 4, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
