"""Neural-field encodings and weight reparametrizations: an instant-NGP multiresolution hash grid (int64 wrap-around
hashing, bitwise xor, trilinear corners), a dense feature plane sampled with grid_sample, functional_call/vmap
with hypernetwork-produced parameters, and spectral/weight norm parametrizations with fixed power-iteration vectors."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap
from torch.nn.utils import parametrizations, parametrize

rng = np.random.default_rng(17)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


PRIMES = torch.tensor([1, 2654435761, 805459861], dtype=torch.int64)


def spatial_hash(ix, table_size):
    h = ix * PRIMES[: ix.shape[-1]]
    out = h[..., 0]
    for d in range(1, ix.shape[-1]):
        out = torch.bitwise_xor(out, h[..., d])
    return torch.remainder(out, table_size)


class HashGrid(nn.Module):
    def __init__(self, levels=3, table=64, feat=2, base=2, scale=2.0):
        super().__init__()
        self.res = [int(base * scale ** lvl) for lvl in range(levels)]
        self.table = table
        table_init = rng.uniform(-1e-1, 1e-1, (levels, table, feat)).astype(np.float32)
        self.embeddings = nn.Parameter(torch.from_numpy(table_init))
        corners = torch.tensor([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)], dtype=torch.int64)
        self.register_buffer("corners", corners, persistent=False)

    def forward(self, x):
        feats = []
        for lvl, res in enumerate(self.res):
            pos = x * res
            lo = torch.floor(pos).long()
            frac = pos - lo.to(pos.dtype)
            idx = lo[:, None, :] + self.corners[None]
            if (res + 1) ** 3 <= self.table:
                h = (idx[..., 0] * (res + 1) + idx[..., 1]) * (res + 1) + idx[..., 2]
            else:
                h = spatial_hash(idx, self.table)
            w = torch.where(self.corners[None].bool(), frac[:, None, :], 1 - frac[:, None, :]).prod(-1)
            f = self.embeddings[lvl][h]
            feats.append((w.unsqueeze(-1) * f).sum(1))
        return torch.cat(feats, dim=-1)


big = torch.tensor([[3, 7, 11], [2**40, -5, 123456789]], dtype=torch.int64)
print("products", (big * PRIMES).tolist())
print("hash", spatial_hash(big, 2**19).tolist(), spatial_hash(big, 64).dtype)
print("xor/shift", torch.bitwise_xor(big[:, 0], big[:, 1]).tolist(), (big[:, 2] >> 3).tolist(),
      torch.bitwise_left_shift(big[:, 0], 2).tolist(), (big & 0xFF).tolist())
grid = HashGrid()
pts = torch.from_numpy(rng.random((5, 3)).astype(np.float32))
enc = grid(pts)
print("encoding", tuple(enc.shape), r(enc), grid.res, [n for n, _ in grid.named_buffers()], list(grid.state_dict()))
mlp = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
with torch.no_grad():
    for p in mlp.parameters():
        p.copy_(T(*p.shape) * 0.4)
opt = torch.optim.Adam([{"params": grid.parameters(), "lr": 1e-2, "eps": 1e-15},
                        {"params": mlp.parameters(), "weight_decay": 1e-6}],
                       lr=1e-3, betas=(0.9, 0.99))
target = pts.sum(-1, keepdim=True).sin()
for step in range(3):
    loss = F.smooth_l1_loss(mlp(grid(pts)), target, beta=0.1)
    opt.zero_grad()
    loss.backward()
    touched = (grid.embeddings.grad.abs().sum(-1) > 0).sum(-1)
    opt.step()
    print("ngp", step, round(loss.item(), 4), touched.tolist(), round(grid.embeddings.grad.abs().max().item(), 4))
print("param groups", [g["lr"] for g in opt.param_groups], opt.param_groups[0]["eps"],
      opt.param_groups[1]["weight_decay"])

# a feature plane queried with grid_sample (tri-plane style)
plane = T(1, 4, 6, 6).requires_grad_(True)
uv = pts[:, :2] * 2 - 1
for align in (True, False):
    s = F.grid_sample(plane, uv.view(1, 1, -1, 2), mode="bilinear", padding_mode="border", align_corners=align)
    print("grid_sample", align, tuple(s.shape), r(s))
s.squeeze(0).squeeze(1).pow(2).sum().backward()
print("plane grad", round(plane.grad.abs().sum().item(), 4), int((plane.grad != 0).sum()))
nearest = F.grid_sample(plane.detach(), uv.view(1, -1, 1, 2), mode="nearest", align_corners=False)
print("nearest", r(nearest))

# hypernetwork parameters used through functional_call, batched with vmap
target_net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
names = [n for n, _ in target_net.named_parameters()]
shapes = [p.shape for p in target_net.parameters()]
sizes = [p.numel() for p in target_net.parameters()]
hyper = nn.Linear(2, sum(sizes))
with torch.no_grad():
    hyper.weight.copy_(T(*hyper.weight.shape) * 0.5)
    hyper.bias.zero_()
codes = T(3, 2)
flat = hyper(codes)


def run_one(theta, x):
    params = {n: t.view(s) for n, t, s in zip(names, torch.split(theta, sizes), shapes)}
    return functional_call(target_net, params, (x,))


xs = T(3, 7, 3)
batched = vmap(run_one)(flat, xs)
looped = torch.stack([run_one(flat[i], xs[i]) for i in range(3)])
print("vmap functional_call", tuple(batched.shape), torch.allclose(batched, looped, atol=1e-6), r(batched))
batched.mean().backward()
print("hyper grad", r(hyper.weight.grad), target_net[0].weight.grad)
vec = nn.utils.parameters_to_vector(target_net.parameters())
nn.utils.vector_to_parameters(flat[0].detach(), target_net.parameters())
print("vector_to_parameters", vec.shape, torch.allclose(target_net(xs[0]), looped[0], atol=1e-6))

# spectral and weight normalisation as parametrizations
lin = nn.Linear(5, 4)
with torch.no_grad():
    lin.weight.copy_(T(4, 5))
sn = parametrizations.spectral_norm(lin, n_power_iterations=1)
pm = sn.parametrizations.weight[0]
with torch.no_grad():
    pm._u.copy_(F.normalize(torch.ones(4), dim=0))
    pm._v.copy_(F.normalize(torch.ones(5), dim=0))
    for _ in range(30):
        pm._power_method(sn.parametrizations.weight.original, 1)
sigma = torch.linalg.matrix_norm(sn.parametrizations.weight.original, ord=2)
sn.eval()
print("spectral", round(torch.linalg.matrix_norm(sn.weight, ord=2).item(), 4), round(sigma.item(), 4),
      parametrize.is_parametrized(sn, "weight"), sorted(sn.state_dict()))
conv = nn.Conv2d(2, 3, 3)
with torch.no_grad():
    conv.weight.copy_(T(3, 2, 3, 3))
wn = parametrizations.weight_norm(conv, name="weight", dim=0)
g, v = wn.parametrizations.weight.original0, wn.parametrizations.weight.original1
print("weight_norm", tuple(g.shape), tuple(v.shape), r(g), torch.allclose(wn.weight, conv.weight))
with torch.no_grad():
    g.mul_(2)
print("scaled norms", r(wn.weight.flatten(1).norm(dim=1)), r(v.flatten(1).norm(dim=1) * 2))
parametrize.remove_parametrizations(wn, "weight")
print("removed", type(wn.weight).__name__, hasattr(wn, "parametrizations"))
try:
    spatial_hash(torch.tensor([[0.5, 1.0, 2.0]]), 64)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    F.grid_sample(plane, uv.view(1, -1, 2))
except RuntimeError as e:
    print("RuntimeError", e)
