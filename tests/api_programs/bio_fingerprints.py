"""Chemical fingerprints and similarity search: Morgan-like circular hashing of atom environments with int64
wraparound arithmetic, folding into 64-bit words with bitwise shifts and ors, popcount by a byte lookup table over
uint8 views, Tanimoto/Dice similarity on packed bits and on dense bool vectors, bulk similarity with matmul, top-k
neighbours, and the dtype corners of unsigned and shifted integers."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
NBITS = 128
atoms = [
    torch.tensor([6, 6, 8]),
    torch.tensor([6, 6, 6, 6, 6, 6]),
    torch.tensor([6, 6, 8, 7, 6]),
    torch.tensor([17, 6, 6, 17, 16]),
    torch.tensor([6, 6, 8, 7]),
]
edges = [
    [(0, 1), (1, 2)],
    [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)],
    [(0, 1), (1, 2), (1, 3), (3, 4)],
    [(0, 1), (1, 2), (2, 3), (2, 4)],
    [(0, 1), (1, 2), (1, 3)],
]
P1, P2 = 1000003, 2654435761


def morgan(z, e, radius=2):
    n = z.numel()
    A = torch.zeros(n, n, dtype=torch.int64)
    ei = torch.tensor(e).T
    A[ei[0], ei[1]] = 1
    A[ei[1], ei[0]] = 1
    ids = z * P2 + A.sum(1)
    all_ids = [ids]
    for _ in range(radius):
        nb = (A * ids[None, :]).sum(1)
        ids = ids * P1 + nb * 31 + 7
        all_ids.append(ids)
    h = torch.cat(all_ids)
    bits = torch.remainder(h, NBITS)
    fp = torch.zeros(NBITS, dtype=torch.bool)
    fp[bits] = True
    return fp, h


fps, hashes = zip(*(morgan(z, e) for z, e in zip(atoms, edges)))
fps = torch.stack(fps)
print("hash dtype", hashes[0].dtype, "wraps", (hashes[1] < 0).any().item(), hashes[0][-1].item())
print("bits on", fps.sum(1).tolist(), fps.dtype)


def pack(fp):
    words = fp.view(fp.shape[0], -1, 64).to(torch.int64)
    shifts = torch.arange(64, dtype=torch.int64)
    return (words << shifts).sum(-1)


packed = pack(fps)
print("packed", packed.shape, packed.dtype, [hex(v & 0xFFFFFFFFFFFFFFFF)[:10] for v in packed[0].tolist()])
unpacked = ((packed[..., None] >> torch.arange(64)) & 1).bool().flatten(1)
print("roundtrip", torch.equal(unpacked, fps))

POP = torch.tensor([bin(i).count("1") for i in range(256)], dtype=torch.uint8)
as_bytes = packed.contiguous().view(torch.uint8)
print("byte view", as_bytes.shape, as_bytes.dtype, as_bytes[0, :4].tolist())


def popcount(x):
    return POP[x.view(torch.uint8).long()].view(*x.shape, -1).sum(-1, dtype=torch.int64)


print("popcount", popcount(packed).sum(1).tolist())
inter = popcount(packed[:, None] & packed[None]).sum(-1)
union = popcount(packed[:, None] | packed[None]).sum(-1)
tan = inter.double() / union.double()
print("tanimoto packed", tan.round(decimals=4).tolist()[0])
xor = popcount(packed[:, None] ^ packed[None]).sum(-1)
print("hamming", xor[0].tolist(), torch.equal(xor, union - inter))
f = fps.float()
inter_mm = f @ f.T
cnt = f.sum(1)
tan_mm = inter_mm / (cnt[:, None] + cnt[None] - inter_mm)
print(
    "tanimoto matmul equal",
    torch.allclose(tan_mm.double(), tan),
    "dice",
    (2 * inter_mm / (cnt[:, None] + cnt[None]))[0].round(decimals=4).tolist(),
)
tan_mm.fill_diagonal_(-1)
val, idx = tan_mm.topk(2, dim=1)
print("nn", idx.tolist(), val.round(decimals=4).tolist())
print(
    "bool ops",
    (fps[0] & fps[4]).sum().item(),
    (fps[0] ^ fps[4]).sum().item(),
    (~fps[0]).sum().item(),
    torch.logical_xor(fps[0], fps[4]).sum().item(),
)

u8 = torch.tensor([0b10110000, 255, 1], dtype=torch.uint8)
print("uint8 shifts", (u8 << 1).tolist(), (u8 >> 4).tolist(), torch.bitwise_left_shift(u8, 3).tolist(), (~u8).tolist())
print("uint8 sums", u8.sum().dtype, u8.sum().item(), (u8 + 1).tolist(), (u8 * 2).dtype)
i64 = torch.tensor([1, -1, 2**62])
print(
    "int64 shifts",
    (i64 << 1).tolist(),
    (i64 >> 1).tolist(),
    (i64 >> 63).tolist(),
    torch.bitwise_right_shift(i64, torch.tensor([0, 2, 70])).tolist(),
)
print("int64 overflow", (torch.tensor([2**62]) * 4).tolist(), (torch.tensor([2**63 - 1]) + 1).tolist())
print(
    "remainder sign",
    torch.remainder(torch.tensor([-7, 7]), 5).tolist(),
    torch.fmod(torch.tensor([-7, 7]), 5).tolist(),
    (torch.tensor([-7]) // 5).tolist(),
)
u16 = torch.tensor([1, 65535], dtype=torch.uint16)
print(
    "uint16",
    u16.dtype,
    u16.tolist(),
    u16.to(torch.int32).tolist(),
    torch.iinfo(torch.uint16).max,
    torch.iinfo(torch.uint32).bits,
)
raw = torch.frombuffer(bytearray(b"ACGTN"), dtype=torch.uint8)
print("frombuffer", raw.tolist(), raw.dtype, (raw - 65).tolist())
for fn in (
    lambda: fps.float() & fps.float(),
    lambda: packed << 1.5,
    lambda: u16 + u16,
    lambda: torch.tensor([1.0]).bitwise_not(),
):
    try:
        r = fn()
        print("ok", r.dtype, r.tolist())
    except Exception as e:
        print(type(e).__name__, e)
