"""Instant-NGP multiresolution hash encoding by hand: per-level resolutions from a growth factor, corner offsets
from bit arithmetic, the spatial hash with int64 primes and bitwise_xor (wrapping overflow), dense indexing for
coarse levels, trilinear weights, gradients scattered into the tables, and the int32/uint8 dtype corners."""

import math

import torch
nn = torch.nn

torch.manual_seed(0)

PRIMES = torch.tensor([1, 2654435761, 805459861], dtype=torch.int64)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


class HashGrid(nn.Module):
    def __init__(self, n_levels=4, log2_T=6, F_dim=2, base_res=4, finest_res=32):
        super().__init__()
        self.n_levels, self.T, self.F = n_levels, 2**log2_T, F_dim
        b = math.exp((math.log(finest_res) - math.log(base_res)) / (n_levels - 1))
        self.register_buffer("res", torch.floor(base_res * b ** torch.arange(n_levels, dtype=torch.float64)).long())
        self.tables = nn.Parameter(torch.empty(n_levels, self.T, F_dim).uniform_(-1e-4, 1e-4))
        offs = torch.arange(8)
        self.register_buffer("corners", torch.stack([(offs >> i) & 1 for i in range(3)], -1))

    def index(self, cell, level):
        res = int(self.res[level]) + 1
        if res**3 <= self.T:
            return cell[..., 0] + res * (cell[..., 1] + res * cell[..., 2])
        h = cell * PRIMES
        return torch.bitwise_xor(torch.bitwise_xor(h[..., 0], h[..., 1]), h[..., 2]) & (self.T - 1)

    def forward(self, x):
        feats = []
        for lv in range(self.n_levels):
            pos = x * self.res[lv].to(x.dtype)
            cell0 = torch.floor(pos).long()
            frac = pos - cell0.to(pos.dtype)
            cells = cell0[:, None, :] + self.corners[None]
            w = torch.where(self.corners[None].bool(), frac[:, None, :], 1 - frac[:, None, :]).prod(-1)
            idx = self.index(cells, lv)
            feats.append((self.tables[lv][idx] * w[..., None]).sum(1))
        return torch.cat(feats, -1)


enc = HashGrid()
print("res", enc.res.tolist(), enc.res.dtype, enc.corners.tolist())
print("table", tuple(enc.tables.shape), bool(enc.tables.abs().max() <= 1e-4))
with torch.no_grad():
    enc.tables.copy_(torch.linspace(-1, 1, enc.tables.numel()).reshape(enc.tables.shape))
x = torch.tensor([[0.1, 0.2, 0.3], [0.5, 0.5, 0.5], [0.99, 0.01, 0.7], [0.0, 0.0, 0.0]])
out = enc(x)
print("enc", tuple(out.shape), r(out[0], 8), r(out[2], 8))

cells = torch.tensor([[3, 7, 11], [100, 200, 300], [2**20, 2**20 + 1, 7]])
h = cells * PRIMES
print("hash_prod", h.tolist())
print("xor", torch.bitwise_xor(torch.bitwise_xor(h[:, 0], h[:, 1]), h[:, 2]).tolist())
print("ops", (h[:, 1] ^ h[:, 2]).tolist(), (h[:, 1] & 0xFFFF).tolist(), (h[:, 1] | 1).tolist(),
      (h[:, 1] >> 13).tolist(), (cells[:, 0] << 3).tolist())
big = torch.tensor([2**62, -(2**62)], dtype=torch.int64)
print("wrap", (big * 4).tolist(), (big + big).tolist(), torch.iinfo(torch.int64).max)
i32 = torch.tensor([2654435761 & 0x7FFFFFFF, 123456], dtype=torch.int32)
print("int32", (i32 * 7).tolist(), (i32 * 7).dtype, (i32.long() * 7).tolist(), torch.remainder(i32 * 7, 64).tolist())
u8 = torch.tensor([250, 7], dtype=torch.uint8)
print("uint8", (u8 + 10).tolist(), (u8 ^ 255).tolist(), (~u8).tolist(), (u8 >> 1).tolist(), (-u8).tolist())
print("bitwise_fn", torch.bitwise_and(cells, 0xF).tolist(), torch.bitwise_or(cells[0], 16).tolist(),
      torch.bitwise_not(cells[0]).tolist(), torch.bitwise_right_shift(cells[1], 2).tolist())

# Backprop: every corner gathers, so the tables' grad is a scatter-add of trilinear weights.
loss = out.pow(2).sum()
loss.backward()
g = enc.tables.grad
print("grad", tuple(g.shape), int((g != 0).sum()), r(g.sum((1, 2))), round(g.abs().sum().item(), 4))
wsum = torch.zeros(enc.T, dtype=torch.float64)
pos = x.double() * 4
cell0 = pos.floor().long()
frac = pos - cell0
cs = cell0[:, None] + enc.corners[None]
w = torch.where(enc.corners[None].bool(), frac[:, None], 1 - frac[:, None]).prod(-1)
wsum.index_add_(0, enc.index(cs, 0).flatten(), w.flatten())
print("weights_per_entry", round(wsum.sum().item(), 4), int((wsum > 0).sum()), r(wsum[wsum > 0], 8))

opt = torch.optim.Adam(enc.parameters(), lr=1e-2, betas=(0.9, 0.99), eps=1e-15)
target = torch.tensor([[0.5, -0.5] * 4]).expand(4, 8)
for step in range(5):
    opt.zero_grad()
    l = torch.nn.functional.mse_loss(enc(x), target)
    l.backward()
    opt.step()
    print("step", step, round(l.item(), 5))
for bad in (lambda: torch.bitwise_xor(torch.ones(2), torch.ones(2)),
            lambda: torch.ones(2, dtype=torch.long) << 1.5,
            lambda: enc.tables[0][torch.tensor([enc.T])],
            lambda: torch.tensor([1.0]) & 1):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
