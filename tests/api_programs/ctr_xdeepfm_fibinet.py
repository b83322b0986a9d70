"""xDeepFM's CIN through conv1d on outer products, FiBiNET's SENET and bilinear interactions, field pairs."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

B, m, D = 3, 4, 5
E = torch.randn(B, m, D)


class CIN(nn.Module):
    def __init__(self, m, layer_sizes=(6, 4), split_half=True):
        super().__init__()
        self.convs = nn.ModuleList()
        prev, self.split_half, fc_dim = m, split_half, 0
        for i, h in enumerate(layer_sizes):
            self.convs.append(nn.Conv1d(m * prev, h, kernel_size=1, stride=1, dilation=1, bias=True))
            if split_half and i != len(layer_sizes) - 1:
                h //= 2
            prev = h
            fc_dim += h
        self.fc = nn.Linear(fc_dim, 1)

    def forward(self, x):
        xs, x0, h = [], x.unsqueeze(2), x
        for i, conv in enumerate(self.convs):
            z = x0 * h.unsqueeze(1)
            b, f0, fi, d = z.shape
            z = z.view(b, f0 * fi, d)
            z = F.relu(conv(z))
            if self.split_half and i != len(self.convs) - 1:
                z, h = torch.split(z, z.shape[1] // 2, dim=1)
            else:
                h = z
            xs.append(z)
        return self.fc(torch.sum(torch.cat(xs, dim=1), 2))


cin = CIN(m)
print(cin)
out = cin(E)
print("cin", out.shape, out.squeeze(1).round(decimals=4).tolist())
# one CIN layer as an einsum: z[b,h,d] = sum_ij W[h,i,j] x0[b,i,d] xk[b,j,d]
W = cin.convs[0].weight.view(6, m, m)
ein = torch.einsum("hij,bid,bjd->bhd", W, E, E) + cin.convs[0].bias.view(1, -1, 1)
conv_out = cin.convs[0]((E.unsqueeze(2) * E.unsqueeze(1)).view(B, m * m, D))
print("einsum == conv1d", torch.allclose(ein, conv_out, atol=1e-5))
print(
    "split sizes",
    [t.shape[1] for t in torch.split(conv_out, 3, dim=1)],
    [t.shape[1] for t in torch.split(conv_out, [2, 4], dim=1)],
)
print("chunk", [t.shape for t in conv_out.chunk(4, dim=1)])

# field pairs: combinations vs triu_indices
pairs = torch.combinations(torch.arange(m), r=2)
print("combinations", pairs.tolist())
print("with_replacement", torch.combinations(torch.arange(3), r=2, with_replacement=True).tolist())
print("r=3", torch.combinations(torch.tensor([10, 20, 30, 40]), r=3).tolist())
print("same as triu", torch.equal(pairs.t(), torch.triu_indices(m, m, 1)))
print("empty", torch.combinations(torch.arange(1), r=2).shape, torch.combinations(torch.arange(3), r=0).tolist())


# FiBiNET: SENET squeeze-excitation over fields
class SENet(nn.Module):
    def __init__(self, m, reduction=2):
        super().__init__()
        r = max(1, m // reduction)
        self.ex = nn.Sequential(nn.Linear(m, r, bias=False), nn.ReLU(), nn.Linear(r, m, bias=False), nn.ReLU())

    def forward(self, x):
        z = F.adaptive_avg_pool1d(x, 1).squeeze(-1)
        return x * self.ex(z).unsqueeze(-1)


se = SENet(m)
V = se(E)
print("senet", V.shape, torch.allclose(F.adaptive_avg_pool1d(E, 1).squeeze(-1), E.mean(-1), atol=1e-6))

# bilinear interaction, "field-all" (one shared W), "field-each", "field-interaction"
W_all = nn.Linear(D, D, bias=False)
i, j = pairs[:, 0], pairs[:, 1]
p_all = W_all(E[:, i]) * E[:, j]
print("field-all", p_all.shape, round(p_all.sum().item(), 4))
W_each = nn.Parameter(torch.randn(m, D, D) * 0.1)
p_each = torch.matmul(E[:, i].unsqueeze(2), W_each[i]).squeeze(2) * E[:, j]
print("field-each", p_each.shape, round(p_each.sum().item(), 4))
bil = nn.Bilinear(D, D, 2)
print(bil, bil.weight.shape)
pb = bil(E[:, 0], E[:, 1])
print(
    "nn.Bilinear",
    pb.shape,
    torch.allclose(pb, torch.einsum("bi,oij,bj->bo", E[:, 0], bil.weight, E[:, 1]) + bil.bias, atol=1e-5),
)
print("F.bilinear grad_fn", F.bilinear(E[:, 0], E[:, 1], bil.weight, bil.bias).grad_fn.name())

# FFM: one embedding per (feature, other field)
ffm = nn.Parameter(torch.randn(m, m, D) * 0.1)  # ffm[f, g] embedding of field f towards field g
v_ij = ffm[i, j]
v_ji = ffm[j, i]
x_val = torch.rand(B, m)
ffm_term = ((v_ij * v_ji).sum(-1) * x_val[:, i] * x_val[:, j]).sum(-1)
print("ffm", ffm_term.round(decimals=4).tolist())
ffm_term.sum().backward()
print("ffm grad diagonal unused", ffm.grad[torch.arange(m), torch.arange(m)].abs().sum().item())

# outer-product (PNN) kernel and inner-product (IPNN)
ipnn = torch.bmm(E, E.transpose(1, 2))[:, i, j]
print("ipnn", ipnn.shape, torch.allclose(ipnn, (E[:, i] * E[:, j]).sum(-1), atol=1e-6))
opnn = torch.einsum("bi,bj->bij", E.sum(1), E.sum(1))
print("opnn sum-pooled", opnn.shape, torch.allclose(opnn[0], torch.outer(E.sum(1)[0], E.sum(1)[0]), atol=1e-6))
for fn in (
    lambda: torch.combinations(torch.ones(2, 2)),
    lambda: torch.combinations(torch.arange(3), r=-1),
    lambda: bil(E[:, 0], E[:, 1, :3]),
    lambda: cin.convs[0](E),
):
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
