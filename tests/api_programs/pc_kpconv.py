"""KPConv-style kernel point convolution as its PyTorch port writes it: kernel points on a sphere from a Fibonacci
lattice, neighbourhoods by radius with a shadow point at index N (F.pad on points and features), linear influence
clamp(1 - d / sigma, min=0), an einsum over kernel points, a deformable offset head, azimuth features wrapped with
remainder/fmod and signed by copysign, and the grad_fn names of those ops."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
K = 7
i = torch.arange(K - 1, dtype=torch.float32)
phi = torch.acos(1 - 2 * (i + 0.5) / (K - 1))
theta = math.pi * (1 + 5**0.5) * i
kp = torch.cat([torch.zeros(1, 3), torch.stack([torch.sin(phi) * torch.cos(theta), torch.sin(phi) * torch.sin(theta),
                                                torch.cos(phi)], -1) * 0.6])
print("kernel points", kp.shape, kp.norm(dim=1).round(decimals=4).tolist())

N, C = 40, 4
pts = torch.rand(N, 3) * 2 - 1
feats = torch.randn(N, C)
radius, max_nb = 0.7, 10
d = torch.cdist(pts, pts)
d_masked = torch.where(d <= radius, d, torch.full_like(d, float("inf")))
nb_d, nb_idx = d_masked.topk(max_nb, dim=1, largest=False)
nb_idx = torch.where(torch.isinf(nb_d), torch.full_like(nb_idx, N), nb_idx)
print("neighbours", nb_idx.shape, (nb_idx == N).sum().item(), nb_idx[0].tolist())
pts_pad = F.pad(pts, (0, 0, 0, 1), value=1e6)
feat_pad = F.pad(feats, (0, 0, 0, 1))
print("shadow", pts_pad.shape, pts_pad[-1].tolist(), feat_pad[-1].tolist())


class KPConv(nn.Module):
    def __init__(self, kp, cin, cout, sigma=0.4, deformable=False):
        super().__init__()
        self.register_buffer("kp", kp)
        self.sigma = sigma
        self.weight = nn.Parameter(torch.randn(kp.shape[0], cin, cout) * 0.2)
        self.offset = nn.Linear(cin, kp.shape[0] * 3) if deformable else None
        if self.offset is not None:
            nn.init.zeros_(self.offset.weight)
            nn.init.constant_(self.offset.bias, 0.01)

    def forward(self, q, pts_pad, feat_pad, nb_idx):
        rel = pts_pad[nb_idx] - q.unsqueeze(1)
        kpts = self.kp.unsqueeze(0)
        if self.offset is not None:
            kpts = kpts + self.offset(feat_pad[:-1]).view(-1, self.kp.shape[0], 3) * self.sigma
        dist = torch.linalg.vector_norm(rel.unsqueeze(2) - kpts.unsqueeze(1), dim=-1)
        infl = torch.clamp(1 - dist / self.sigma, min=0.0)
        nf = feat_pad[nb_idx]
        weighted = torch.einsum("nmk,nmc->nkc", infl, nf)
        out = torch.einsum("nkc,kcd->nd", weighted, self.weight)
        count = (nb_idx < pts_pad.shape[0] - 1).sum(1, keepdim=True).clamp_min(1)
        return out / count, infl


conv = KPConv(kp, C, 8)
out, infl = conv(pts, pts_pad, feat_pad, nb_idx)
print("kpconv", out.shape, round(out.sum().item(), 4), out.grad_fn.name())
print("influence", infl.shape, round(infl.max().item(), 4), (infl > 0).sum().item())
dconv = KPConv(kp, C, 8, deformable=True)
dout, dinfl = dconv(pts, pts_pad, feat_pad, nb_idx)
print("deformable", dout.shape, round(dout.abs().mean().item(), 4), (dinfl > 0).sum().item())

rel = pts_pad[nb_idx[:, :4]] - pts.unsqueeze(1)
az = torch.atan2(rel[..., 1], rel[..., 0])
wrapped = torch.remainder(az + 0.5, 2 * math.pi)
centred = torch.fmod(az + 3 * math.pi, 2 * math.pi) - math.pi
print("remainder range", bool((wrapped >= 0).all() and (wrapped < 2 * math.pi).all()))
print("fmod centred", round(centred[1:3].abs().max().item(), 4) <= math.pi + 1e-6)
signed = torch.copysign(rel[..., 2].abs().clamp(max=1.0), rel[..., 0])
print("copysign", signed[1].round(decimals=4).tolist(), torch.signbit(signed[1]).tolist())
x = rel[1:3, :3, 0].clone().requires_grad_()
print("grad_fns", torch.copysign(x, -1.0).grad_fn.name(), torch.copysign(x, x).grad_fn.name(),
      torch.remainder(x, 0.5).grad_fn.name(), torch.remainder(x, x.detach() + 2).grad_fn.name(),
      torch.fmod(x, 0.5).grad_fn.name(), (x % torch.tensor(0.5)).grad_fn.name(), (x // 0.5).grad_fn.name())
g, = torch.autograd.grad((torch.remainder(x, 0.5) * torch.copysign(x, -1.0)).sum(), x)
print("grad", g.round(decimals=4).tolist())
try:
    torch.remainder(1.0, x).sum().backward()
except Exception as e:
    print(type(e).__name__, e)

head = nn.Sequential(nn.LeakyReLU(0.1), nn.Linear(8, 3))
opt = torch.optim.SGD(list(dconv.parameters()) + list(head.parameters()), lr=0.05, momentum=0.9, nesterov=True)
labels = (pts[:, 2] > 0).long() + (pts[:, 0] > 0.5).long()
for step in range(4):
    o, _ = dconv(pts, pts_pad, feat_pad, nb_idx)
    loss = F.cross_entropy(head(o), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), round(dconv.offset.bias.grad.abs().sum().item(), 5))
for call in [lambda: torch.einsum("nmk,nmc->nkc", infl, feats), lambda: F.pad(pts, (0, 1), mode="reflect"),
             lambda: torch.fmod(x, torch.ones(4))]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
