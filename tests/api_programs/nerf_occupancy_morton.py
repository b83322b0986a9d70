"""Instant-NGP's occupancy grid: Morton (Z-order) codes by bit interleaving with shifts and masks and their
inverse, an EMA density grid updated at jittered cell centres, the occupancy threshold from the mean, bitfield
packing of eight cells per uint8, ray marching that skips empty cells, and deduplicating visited voxels with unique."""

import torch

torch.manual_seed(0)


def r(t, n=8):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


def split_by_3(v):
    v = v.long() & 0x3FF
    v = (v | (v << 16)) & 0x030000FF
    v = (v | (v << 8)) & 0x0300F00F
    v = (v | (v << 4)) & 0x030C30C3
    v = (v | (v << 2)) & 0x09249249
    return v


def compact_by_3(v):
    v = v & 0x09249249
    v = (v | (v >> 2)) & 0x030C30C3
    v = (v | (v >> 4)) & 0x0300F00F
    v = (v | (v >> 8)) & 0x030000FF
    v = (v | (v >> 16)) & 0x3FF
    return v


def morton3d(ijk):
    return split_by_3(ijk[..., 0]) | (split_by_3(ijk[..., 1]) << 1) | (split_by_3(ijk[..., 2]) << 2)


def morton3d_invert(code):
    return torch.stack([compact_by_3(code), compact_by_3(code >> 1), compact_by_3(code >> 2)], -1)


R = 8
ijk = torch.stack(torch.meshgrid(torch.arange(R), torch.arange(R), torch.arange(R), indexing="ij"), -1).view(-1, 3)
codes = morton3d(ijk)
print("codes", codes[:10].tolist(), codes.dtype, int(codes.max()), torch.equal(codes.sort().values, torch.arange(R**3)))
print("invert", torch.equal(morton3d_invert(codes), ijk), morton3d_invert(torch.tensor([0, 1, 7, 8, 511])).tolist())
big = torch.tensor([[1023, 0, 512], [5, 1000, 77]])
print("big", morton3d(big).tolist(), morton3d_invert(morton3d(big)).tolist())
i32 = morton3d(ijk.int())
print("int32_in", i32.dtype, torch.equal(i32, codes))


def density_fn(x):
    return 20.0 * torch.exp(-((x - torch.tensor([0.2, -0.1, 0.0])) ** 2).sum(-1) / 0.05)


density_grid = torch.zeros(R**3)
for it in range(3):
    coords = morton3d_invert(torch.arange(R**3))
    xyz = ((coords.float() + torch.rand(R**3, 3)) / R) * 2 - 1
    new = density_fn(xyz)
    density_grid = torch.where(density_grid < 0, density_grid, torch.maximum(density_grid * 0.95, new))
    thresh = min(density_grid.clamp(min=0).mean().item(), 0.01 * 1000 / 100)
    print("ema", it, round(density_grid.sum().item(), 2), round(thresh, 4))
occ = density_grid > thresh
print("occupied", int(occ.sum()), round(occ.float().mean().item(), 4))
bits = occ.view(-1, 8).to(torch.uint8)
weights = (2 ** torch.arange(8, dtype=torch.uint8))
bitfield = (bits * weights).sum(-1, dtype=torch.uint8)
print("bitfield", tuple(bitfield.shape), bitfield.dtype, bitfield.nonzero().flatten().tolist()[:8],
      bitfield[bitfield > 0][:6].tolist())
unpacked = ((bitfield[:, None] >> torch.arange(8, dtype=torch.uint8)) & 1).bool().view(-1)
print("unpack", torch.equal(unpacked, occ), (bitfield[:4] & 0x0F).tolist(), bitfield.bitwise_and(3).sum().item())
print("popcount", int(sum(((bitfield >> k) & 1).sum() for k in range(8))), int(occ.sum()))

rays_o = torch.tensor([[-1.5, -0.1, 0.0], [-1.5, 0.9, 0.9], [0.2, -0.1, -1.5]])
rays_d = torch.nn.functional.normalize(torch.tensor([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]), dim=-1)
t = torch.linspace(0.0, 3.0, 64)
pts = rays_o[:, None] + t[None, :, None] * rays_d[:, None]
inside = ((pts > -1) & (pts < 1)).all(-1)
cell = ((pts.clamp(-1, 1 - 1e-6) + 1) / 2 * R).floor().long()
hit = occ[morton3d(cell)] & inside
print("march", hit.sum(-1).tolist(), [int(h.nonzero()[0]) if h.any() else -1 for h in hit])
visited = morton3d(cell[hit])
uniq, inv, counts = torch.unique(visited, return_inverse=True, return_counts=True)
print("voxels", uniq.tolist(), counts.tolist(), inv[:6].tolist())
uc, cc = torch.unique_consecutive(visited, return_counts=True)
print("consecutive", uc.tolist(), cc.tolist())
first = hit.int().argmax(-1)
print("first_hit_t", r(torch.where(hit.any(-1), t[first], t.new_full((3,), -1.0))), first.tolist())
samples_per_cell = torch.bincount(visited - visited.min(), minlength=4)
print("bincount", len(samples_per_cell), samples_per_cell.nonzero().flatten().tolist())
print("morton_of_float", morton3d(torch.tensor([[0.5, 1.9, 3.0]]).double()).tolist())
try:
    torch.tensor([1, 2], dtype=torch.uint8) << torch.tensor([1.0, 2.0])
except Exception as e:
    print(type(e).__name__, e)
