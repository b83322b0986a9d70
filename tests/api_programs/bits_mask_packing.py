"""Packing boolean masks into uint8 bytes and back (numpy.packbits by hand), popcount by lookup table
and by SWAR on int64, and Hamming distances between packed binary codes for retrieval."""

import torch

torch.manual_seed(0)

mask = torch.rand(3, 20) > 0.5
pad = (-mask.shape[1]) % 8
padded = torch.nn.functional.pad(mask, (0, pad))
print("padded", padded.dtype, tuple(padded.shape))

big_endian = torch.tensor([128, 64, 32, 16, 8, 4, 2, 1], dtype=torch.uint8)
packed = (padded.view(3, -1, 8).to(torch.uint8) * big_endian).sum(-1, dtype=torch.uint8)
print("packed", packed)
print("sum without dtype", (padded.view(3, -1, 8).to(torch.uint8) * big_endian).sum(-1).dtype)

shifts = torch.arange(7, -1, -1, dtype=torch.uint8)
unpacked = (packed.unsqueeze(-1) >> shifts) & 1
print("unpacked", unpacked.dtype, unpacked.shape)
print("roundtrip", torch.equal(unpacked.flatten(1)[:, :20].bool(), mask))

# bitwise_or fold instead of sum
folded = torch.zeros(3, packed.shape[1], dtype=torch.uint8)
for k in range(8):
    folded |= padded.view(3, -1, 8)[..., k].to(torch.uint8) << (7 - k)
print("or-fold equal", torch.equal(folded, packed))

table = torch.tensor([bin(v).count("1") for v in range(256)], dtype=torch.uint8)
pc = table[packed.long()].sum(-1)
print("popcount by table", pc.tolist(), pc.dtype, "true", mask.sum(-1).tolist())
try:
    table[packed]
except IndexError as e:
    print("uint8 as index:", type(e).__name__, str(e)[:80])


def popcount64(x):
    """SWAR popcount on int64; the shifts are arithmetic, so each is masked."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


words = torch.tensor([0, 1, -1, 2**62, -(2**63), 0x0F0F0F0F, 12345678901234])
print("swar", popcount64(words).tolist())
print("check", [bin(w & (2**64 - 1)).count("1") for w in words.tolist()])

codes = torch.randint(-(2**62), 2**62, (6, 2))  # 128-bit binary codes
query = codes[2] ^ torch.tensor([0b1011, 1 << 40])
dist = popcount64(codes ^ query).sum(-1)
print("hamming", dist.tolist(), "nearest", dist.argmin().item())
order = torch.sort(dist, stable=True)
print("ranked", order.indices.tolist())

signs = torch.randn(4, 16)
bits16 = ((signs > 0).to(torch.int16) << torch.arange(16, dtype=torch.int16)).sum(-1, dtype=torch.int16)
print("int16 codes", bits16.tolist(), bits16.dtype)
print("low nibble", (bits16 & 0xF).tolist(), "sign", (bits16 < 0).tolist())
u16 = bits16.view(torch.uint16)
print("as uint16", u16.tolist(), u16.dtype)
print("uint16 and", (u16 & 0xF000).tolist(), "widened shift", (u16.to(torch.int32) >> 12).tolist())
try:
    u16 >> 12
except NotImplementedError as e:
    print(type(e).__name__, e)

m2 = torch.tensor([[True, False], [False, False]])
print("any/all", m2.any(1).tolist(), m2.all(0).tolist(), m2.sum(0, dtype=torch.uint8))
print("cumsum of bool", m2.flatten().cumsum(0), torch.tensor([True, True]).cumsum(0, dtype=torch.int8))
print("nonzero", torch.tensor([[0, 3], [5, 0]], dtype=torch.uint8).nonzero().tolist())
