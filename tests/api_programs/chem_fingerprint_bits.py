"""Molecular fingerprints as bit vectors: Morgan-style environment hashing in int64 with wraparound multiply,
xor and shifts, folding into 2048 bits, packing bits into uint8 bytes and int64 words by view(), popcounts by
lookup table and by shift-and-mask, Tanimoto/Dice/Tversky similarities over a small library, bitwise and/or/xor/not
on uint8 and bool, and the dtype rules of mixing uint8 with int64 and Python ints."""

import torch

torch.manual_seed(0)
NBITS = 2048

# toy molecules: atom invariants and adjacency lists
mols = {
    "ethanol": ([6, 6, 8], [(0, 1), (1, 2)]),
    "propanol": ([6, 6, 6, 8], [(0, 1), (1, 2), (2, 3)]),
    "acetic": ([6, 6, 8, 8], [(0, 1), (1, 2), (1, 3)]),
    "dme": ([6, 8, 6], [(0, 1), (1, 2)]),
}
M1 = 0x9E3779B97F4A7C15 - (1 << 64)  # golden-ratio multiplier as a signed int64
M2 = 0x5BD1E995


def mix(h, v):
    h = h ^ v
    h = h * M2                         # wraps modulo 2**64
    return h ^ (h >> 15)


def morgan(atoms, bonds, radius=2):
    z = torch.tensor(atoms, dtype=torch.int64)
    n = len(atoms)
    src = torch.tensor([a for a, b in bonds] + [b for a, b in bonds])
    dst = torch.tensor([b for a, b in bonds] + [a for a, b in bonds])
    deg = torch.bincount(src, minlength=n)
    h = mix(z * M1, deg)
    ids = [h]
    for _ in range(radius):
        nb = torch.zeros(n, dtype=torch.int64).index_add_(0, dst, mix(h[src], torch.ones_like(src)))
        h = mix(h, nb)
        ids.append(h)
    allids = torch.cat(ids)
    bits = torch.zeros(NBITS, dtype=torch.bool)
    bits[torch.remainder(allids, NBITS)] = True
    return bits, allids


fps, names = [], list(mols)
for name in names:
    bits, ids = morgan(*mols[name])
    fps.append(bits)
    print(name, "ids", ids[:3].tolist(), "on", int(bits.sum()), ids.dtype)
fp = torch.stack(fps)
print("fp", fp.shape, fp.dtype)

# pack to bytes: little-endian bit order within each byte
weights = (2 ** torch.arange(8, dtype=torch.uint8))
packed = (fp.view(4, -1, 8).to(torch.uint8) * weights).sum(-1, dtype=torch.uint8)
print("packed", packed.shape, packed.dtype, packed[0, :8].tolist())
words = packed.view(torch.int64)
print("words", words.shape, words[0, :2].tolist())
unpacked = ((packed.unsqueeze(-1) >> torch.arange(8, dtype=torch.uint8)) & 1).bool().view(4, -1)
print("roundtrip", torch.equal(unpacked, fp))

# popcount: table lookup vs SWAR on int64 words
lut = torch.tensor([bin(i).count("1") for i in range(256)], dtype=torch.uint8)


def popcount_words(w):
    w = w - ((w >> 1) & 0x5555555555555555)
    w = (w & 0x3333333333333333) + ((w >> 2) & 0x3333333333333333)
    w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (w * 0x0101010101010101) >> 56


def logical_rshift(w, k):
    return (w >> k) & ((1 << (64 - k)) - 1)


pc_lut = lut[packed.long()].sum(-1)
pc_swar = (popcount_words(words) & 0xFF).sum(-1)
print("popcount", pc_lut.tolist(), pc_swar.tolist(), fp.sum(-1).tolist(), pc_lut.dtype)
print("logical shift", logical_rshift(torch.tensor([-1, -8, 5]), 60).tolist(),
      (torch.tensor([-1, -8, 5]) >> 60).tolist())

# similarities from byte-wise and/or
both = lut[(packed[:, None, :] & packed[None, :, :]).long()].sum(-1).double()
either = lut[(packed[:, None, :] | packed[None, :, :]).long()].sum(-1).double()
tani = both / either
print("tanimoto", tani.round(decimals=4).tolist())
dice = 2 * both / (pc_lut[:, None] + pc_lut[None, :])
print("dice", dice.round(decimals=4)[0].tolist())
a_only = lut[(packed[:, None, :] & ~packed[None, :, :]).long()].sum(-1).double()
tversky = both / (both + 0.7 * a_only + 0.3 * a_only.T)
print("tversky", tversky.round(decimals=4)[1].tolist())
print("nearest", tani.fill_diagonal_(-1).argmax(1).tolist())
print("xor distance", (fp[0] ^ fp[1]).sum().item(), torch.logical_xor(fp[0], fp[2]).sum().item())

# dtype rules around uint8
u = torch.cat([packed[0][packed[0] > 0][:3], torch.tensor([255], dtype=torch.uint8)])
print("u8 + 1", (u + 1).dtype, "u8 + int64 tensor", (u + torch.tensor([1])).dtype, "u8 & 0-dim",
      (u & torch.tensor(3)).dtype)
print("u8 overflow", (u + 250).tolist(), (u - 10).tolist(), (u * 3).tolist())
print("~u8", (~u).tolist(), "neg i64 not", (~torch.tensor([0, 5])).tolist())
print("bitwise ops", torch.bitwise_and(u, 0x0F).tolist(), torch.bitwise_or(u, 1).tolist(),
      torch.bitwise_xor(u, u).tolist())
print("shift u8", (u << 4).tolist(), torch.bitwise_right_shift(u, 2).tolist())
print("bool arith", (fp[0].sum()).dtype, fp[0].to(torch.uint8).sum().dtype, fp.any(1).tolist(), fp.all(1).tolist())
print("count_nonzero", torch.count_nonzero(packed, dim=1).tolist())

for name, fn in {
    "float and": lambda: torch.tensor([1.5]) & 1,
    "bool shift": lambda: fp[0] << 1,
    "view bad": lambda: packed[:, :3].view(torch.int64),
    "lshift float": lambda: torch.bitwise_left_shift(torch.tensor([1.0]), 1),
}.items():
    try:
        r = fn()
        print(name, "ok", r.dtype)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
