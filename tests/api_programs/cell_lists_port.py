"""a molecular-dynamics cell-list builder ported from numpy to torch: periodic wrapping with remainder/fmod,
integer cell coordinates with floor_divide and div rounding modes, Morton codes from bit shifts, cell starts from
stable sorts and searchsorted, neighbour stencils from cartesian_prod, lattice arithmetic with gcd/lcm, and the
integer-dtype results a numpy user does not expect."""

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(7)

box = torch.tensor([4.0, 4.0, 3.0])
pos = torch.from_numpy(np.round(rng.uniform(-2.0, 6.0, (10, 3)), 3)).float()
print("raw", pos[:2].tolist())

# periodic wrap: numpy's np.mod is torch.remainder (sign of divisor), not fmod (sign of dividend)
wrapped = torch.remainder(pos, box)
print("remainder", wrapped[:3].tolist())
print("fmod", torch.fmod(pos[:3], box).tolist())
print("ranges", bool((wrapped >= 0).all()), bool((wrapped < box).all()), bool((torch.fmod(pos, box) < 0).any()))
a = torch.tensor([-7.5, -0.5, 0.5, 7.5])
print("float mods", torch.remainder(a, 2).tolist(), torch.fmod(a, 2).tolist(), torch.remainder(a, -2).tolist())
print("python-like", (a % 2).tolist(), (a // 2).tolist(), torch.floor_divide(a, -2).tolist())
print(
    "minimum image",
    torch.round(torch.tensor([3.5, -2.5, 1.5]) / 4).tolist(),
    (torch.tensor([3.5, -2.5]) - 4 * torch.round(torch.tensor([3.5, -2.5]) / 4)).tolist(),
)

# integer cell coordinates
cell = 1.0
ncell = (box / cell).long()
ci = torch.floor_divide(wrapped, cell).long()
print("ncell", ncell.tolist(), ncell.dtype, "cells", ci[:4].tolist())
ci_int = torch.div(wrapped, cell, rounding_mode="floor")
print(
    "div floor",
    ci_int.dtype,
    torch.equal(ci_int.long(), ci),
    torch.div(torch.tensor([7, -7]), 2, rounding_mode="trunc").tolist(),
)
print(
    "div int true",
    torch.div(torch.tensor([7, -7]), 2).tolist(),
    torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor").dtype,
)
print(
    "int mods",
    torch.remainder(torch.tensor([-7, 7, -1]), 3).tolist(),
    torch.fmod(torch.tensor([-7, 7, -1]), 3).tolist(),
    torch.remainder(torch.tensor([5, -5]), torch.tensor([-3, -3])).tolist(),
)
flat = (ci[:, 0] * ncell[1] + ci[:, 1]) * ncell[2] + ci[:, 2]
print("flat cell", flat.tolist(), flat.dtype)


# Morton (Z-order) codes by bit interleaving
def spread(v):
    v = v.long() & 0x3FF
    v = (v | (v << 16)) & 0x030000FF
    v = (v | (v << 8)) & 0x0300F00F
    v = (v | (v << 4)) & 0x030C30C3
    v = (v | (v << 2)) & 0x09249249
    return v


morton = spread(ci[:, 0]) | (spread(ci[:, 1]) << 1) | (spread(ci[:, 2]) << 2)
print("morton", morton.tolist())
print(
    "bits",
    torch.bitwise_and(morton, 7).tolist(),
    (morton >> 3).tolist(),
    torch.bitwise_xor(morton, morton.roll(1)).tolist()[:4],
)
print(
    "shift dtypes",
    (torch.tensor([1], dtype=torch.int32) << 3).dtype,
    (torch.tensor([1], dtype=torch.uint8) << torch.tensor([9])).tolist(),
    torch.bitwise_left_shift(torch.tensor([1, 2], dtype=torch.int16), 14).tolist(),
)
print(
    "shift scalar",
    torch.bitwise_right_shift(torch.tensor([-16, 16]), 2).tolist(),
    (1 << torch.tensor([0, 5, 10])).tolist(),
)
print(
    "popcount-ish",
    [bin(v).count("1") for v in morton.tolist()][:5],
    torch.bitwise_not(torch.tensor([0, 5], dtype=torch.uint8)).tolist(),
)

# cell list: stable sort by cell, starts via searchsorted, counts via bincount
order = torch.argsort(flat, stable=True)
sorted_cells = flat[order]
print("order", order.tolist(), sorted_cells.tolist())
ncells = int(ncell.prod())
starts = torch.searchsorted(sorted_cells, torch.arange(ncells))
ends = torch.searchsorted(sorted_cells, torch.arange(ncells), side="right")
counts = torch.bincount(flat, minlength=ncells)
print("starts==", torch.equal(ends - starts, counts), counts.sum().item(), counts.max().item(), counts.dtype)
occ = torch.nonzero(counts).squeeze(1)
print("occupied", occ.tolist(), counts[occ].tolist())
uc, inv, cnt = torch.unique(flat, return_inverse=True, return_counts=True)
print("unique", uc.tolist(), inv.tolist(), cnt.tolist())
print("unique_consecutive", [t.tolist() for t in torch.unique_consecutive(sorted_cells, return_counts=True)])
print(
    "searchsorted sorter",
    torch.searchsorted(flat, torch.tensor([0, 20, 47]), sorter=order).tolist(),
    torch.searchsorted(flat, torch.tensor([20]), side="right", sorter=order).tolist(),
)
print(
    "bucketize",
    torch.bucketize(wrapped[:, 0], torch.tensor([1.0, 2.0, 3.0])).tolist(),
    torch.bucketize(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0]), right=True).tolist(),
)
print("unique rows", torch.unique(ci, dim=0).shape, torch.unique(ci[:, :1], dim=0, return_counts=True)[1].tolist())

# 27-cell neighbour stencil with periodic images
off = torch.cartesian_prod(torch.tensor([-1, 0, 1]), torch.tensor([-1, 0, 1]), torch.tensor([-1, 0, 1]))
print("stencil", off.shape, off[:3].tolist(), off.sum(0).tolist(), off.abs().sum(1).bincount().tolist())
nb = torch.remainder(ci[0] + off, ncell)
print("neighbours of 0", nb[:4].tolist(), torch.unique(nb, dim=0).shape[0])
gi, gj = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")
print("meshgrid ij", gi.tolist(), gj.tolist())
pairs = torch.combinations(torch.arange(4), 2)
print("pairs", pairs.tolist(), torch.combinations(torch.arange(3), 2, with_replacement=True).tolist())

# lattice arithmetic: supercell commensurability with gcd / lcm
na = torch.tensor([4, 6, 0, -4, 12])
nbv = torch.tensor([6, 4, 5, 6, -18])
print("gcd", torch.gcd(na, nbv).tolist(), "lcm", torch.lcm(na, nbv).tolist())
print(
    "gcd dtypes",
    torch.gcd(torch.tensor([4], dtype=torch.int16), torch.tensor([6], dtype=torch.int16)).dtype,
    torch.lcm(torch.tensor([4], dtype=torch.uint8), torch.tensor([6], dtype=torch.uint8)).tolist(),
)
print(
    "int reductions",
    torch.tensor([2, 3, 4]).prod().dtype,
    torch.tensor([True, True, False]).sum().dtype,
    torch.tensor([1, 2], dtype=torch.int8).cumsum(0).dtype,
    torch.tensor([1, 2], dtype=torch.int8).cumsum(0, dtype=torch.int8).dtype,
)
print(
    "int mean-like",
    (torch.tensor([1, 2]).sum() / 2).dtype,
    torch.tensor([1, 2]).float().mean().item(),
    torch.true_divide(torch.tensor([3]), 2).tolist(),
)
print(
    "trace diag",
    torch.trace(torch.arange(9).view(3, 3)).item(),
    torch.diagflat(torch.tensor([1, 2]), -1).tolist(),
    torch.diag_embed(torch.tensor([[1, 2]]), offset=1, dim1=0, dim2=2).shape,
)

for name, bad in [
    ("gcd float", lambda: torch.gcd(torch.tensor([4.0]), torch.tensor([6.0]))),
    ("shift float", lambda: torch.tensor([1.0]) << 2),
    ("bitwise float", lambda: torch.bitwise_and(torch.tensor([1.5]), 1)),
    ("int div zero", lambda: torch.div(torch.tensor([1]), torch.tensor([0]), rounding_mode="floor")),
    ("remainder zero", lambda: torch.remainder(torch.tensor([1]), 0)),
    ("rounding mode", lambda: torch.div(torch.tensor([1.0]), 2, rounding_mode="round")),
    ("bincount float", lambda: torch.bincount(torch.tensor([1.0, 2.0]))),
    ("bincount 2d", lambda: torch.bincount(torch.tensor([[1, 2]]))),
    (
        "searchsorted dtype",
        lambda: (
            torch.searchsorted(
                torch.tensor([1, 2]), torch.tensor([1.5]), out_int32=True, side="left", right=False
            ).dtype
        ),
    ),
    ("sorter bad", lambda: torch.searchsorted(flat, torch.tensor([1]), sorter=order[:3])),
    ("cartesian 2d", lambda: torch.cartesian_prod(torch.ones(2, 2))),
    ("meshgrid indexing", lambda: torch.meshgrid(torch.arange(2), torch.arange(2), indexing="xyz")),
    ("bitwise_not float", lambda: torch.bitwise_not(torch.tensor([1.0]))),
]:
    try:
        print(name, "ok", bad())
    except (RuntimeError, TypeError, ValueError, IndexError, ZeroDivisionError) as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:110])
