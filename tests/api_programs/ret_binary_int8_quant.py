"""Binary and int8 embedding quantization as sentence-transformers' quantize_embeddings does: sign bits packed
into uint8 like np.packbits, Hamming distance by XOR and a popcount table, int8 calibration ranges with rounding
and clamping, rescoring with float queries, and the integer overflow and dtype mistakes of such code."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

emb = torch.randn(6, 16)
q = torch.randn(2, 16)

# packbits: MSB first, as numpy's default bitorder
bits = (emb > 0).to(torch.uint8)
weights = 2 ** torch.arange(7, -1, -1, dtype=torch.uint8)
print("weights", weights, weights.dtype)
packed = (bits.view(6, -1, 8) * weights).sum(-1, dtype=torch.uint8)
print("packed", packed, packed.dtype)
packed2 = (bits.view(6, -1, 8).to(torch.int32) << torch.arange(7, -1, -1)).sum(-1).to(torch.uint8)
print("same by shifts", torch.equal(packed, packed2), ((bits.view(6, -1, 8) * weights).sum(-1)).dtype)

# unpack by shifting right and masking
unpacked = (packed.unsqueeze(-1) >> torch.arange(7, -1, -1, dtype=torch.uint8)) & 1
print("roundtrip", torch.equal(unpacked.view(6, 16), bits), unpacked.dtype)

# Hamming distance with a popcount table and with bit tricks
table = torch.tensor([bin(i).count("1") for i in range(256)], dtype=torch.uint8)
qb = ((q > 0).to(torch.uint8).view(2, -1, 8) * weights).sum(-1, dtype=torch.uint8)
x = qb.unsqueeze(1) ^ packed.unsqueeze(0)
ham = table[x.long()].sum(-1)
print("hamming", ham, ham.dtype)
v = x.to(torch.int32)
v = v - ((v >> 1) & 0x55)
v = (v & 0x33) + ((v >> 2) & 0x33)
v = (v + (v >> 4)) & 0x0F
print("swar popcount", torch.equal(v.sum(-1), ham.to(torch.int64)), v.sum(-1).dtype)
print("bitwise_count?", hasattr(torch, "bitwise_count"))
print("bitwise not", (~packed[0]).tolist(), torch.bitwise_not(torch.tensor([0, 255], dtype=torch.uint8)).tolist())
top = ham.float().topk(3, dim=1, largest=False)
print("top by hamming", top.indices.tolist())

# int8 scalar quantization with per-dimension ranges from a calibration set
calib = torch.randn(100, 16)
lo, hi = calib.min(0).values, calib.max(0).values
steps = (hi - lo) / 255
q8 = ((emb - lo) / steps - 128).round().clamp(-128, 127).to(torch.int8)
print("int8", q8[0], q8.dtype)
deq = (q8.float() + 128) * steps + lo
print("max err", round((deq - emb).abs().max().item(), 4) <= round(steps.max().item(), 4))
print("int8 dot (int32 accum)", (q8[:2].to(torch.int32) @ q8[2:4].to(torch.int32).T))
im = torch._int_mm(q8[:3], q8[3:].T)
print("_int_mm", im, im.dtype, torch.equal(im, q8[:3].int() @ q8[3:].int().T))
print("uint8 x int8", torch._int_mm(packed, torch.ones(2, 1, dtype=torch.int8)).flatten().tolist())
print("int8 sum promotes", q8.sum().dtype, q8.sum(dtype=torch.int8).dtype, (q8 * q8).dtype)

# wraparound: casting out-of-range floats and int arithmetic overflow
wide = torch.tensor([127.6, -128.4, 300.0, -300.0])
print("round clamp", wide.round().clamp(-128, 127).to(torch.int8).tolist())
print("int8 add wraps", (torch.tensor([120], dtype=torch.int8) + torch.tensor([10], dtype=torch.int8)).tolist())
print("uint8 sub wraps", (torch.tensor([3], dtype=torch.uint8) - 5).tolist())
print("uint8 neg", (-torch.tensor([1, 200], dtype=torch.uint8)).tolist())
print("round half even", torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5]).round().tolist())
print("round decimals", torch.tensor([1.005, 2.675, -0.125]).round(decimals=2).tolist())

# ubinary / binary rescoring: float query against {-1, 1} docs
signs = torch.where(emb > 0, 1.0, -1.0)
print("rescored", (q @ signs.T).round(decimals=4))
print("sign", torch.sign(torch.tensor([-0.0, 0.0, 2.0, float("nan")])).tolist())
print("signbit", torch.signbit(torch.tensor([-0.0, 0.0, -1.0])).tolist())

# promotion pitfalls of bit ops
for fn in (
    lambda: torch._int_mm(q8[:3], q8[3:]),
    lambda: torch._int_mm(q8[:3].int(), q8[3:].T),
    lambda: torch._int_mm(q8[:3], q8[3:].T, out=torch.empty(3, 3)),
    lambda: packed ^ 1.0,
    lambda: packed.float() >> 1,
    lambda: torch.tensor([1.5]) & 1,
    lambda: packed << -1,
    lambda: packed.view(torch.int8)[0],
    lambda: packed.view(torch.int16),
    lambda: (packed | True).dtype,
    lambda: torch.tensor([True, False]) ^ torch.tensor([True, True]),
    lambda: torch.tensor([1, 2], dtype=torch.uint8) << 7,
    lambda: torch.tensor([200], dtype=torch.uint8) + torch.tensor([100], dtype=torch.int8),
):
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
