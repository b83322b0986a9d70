"""int4 weight quantization as LLM inference code packs it: two signed nibbles per uint8/int8 byte,
sign extension by shifts, group-wise scales, int32 accumulation of int8 products, and dequantization."""

import torch

torch.manual_seed(0)
w = torch.randn(4, 8)
group = 4
wg = w.view(4, -1, group)
scale = wg.abs().amax(-1, keepdim=True) / 7
q = torch.round(wg / scale).clamp(-8, 7).to(torch.int8).view(4, 8)
print("q", q.tolist(), q.dtype)

lo, hi = q[:, 0::2], q[:, 1::2]
packed_u8 = ((lo & 0x0F) | ((hi & 0x0F) << 4)).to(torch.uint8)
print("packed uint8", packed_u8.tolist())
packed_i8 = (lo & 0x0F) | (hi << 4)
print("packed int8", packed_i8.tolist(), packed_i8.dtype)

# unpacking: the uint8 route needs manual sign extension, the int8 route gets it from arithmetic shifts
u_lo = (packed_u8 & 0x0F).to(torch.int8)
u_hi = (packed_u8 >> 4).to(torch.int8)
u_lo = torch.where(u_lo > 7, u_lo - 16, u_lo)
u_hi = torch.where(u_hi > 7, u_hi - 16, u_hi)
s_lo = (packed_i8 << 4) >> 4
s_hi = packed_i8 >> 4
print("uint8 route", torch.equal(torch.stack([u_lo, u_hi], -1).view(4, 8), q))
print("int8 route", torch.equal(torch.stack([s_lo, s_hi], -1).view(4, 8), q), s_lo.dtype)
print("wrong: uint8 >> 4 of negative", (packed_u8 >> 4)[0].tolist(), "vs", s_hi[0].tolist())
print("xor sign trick", (((packed_u8 & 0x0F).int() ^ 8) - 8)[0].tolist())

deq = (q.view(4, -1, group).float() * scale).view(4, 8)
print("max abs error", (deq - w).abs().max().item() <= scale.max().item() / 2 + 1e-6)

x = torch.randint(-128, 128, (3, 8), dtype=torch.int8)
acc_wrong = x @ q.t() if False else None
acc = x.int() @ q.int().t()
print("int32 gemm", acc.dtype, acc.tolist())
try:
    print((x @ q.t()).dtype)
except RuntimeError as e:
    print(type(e).__name__, e)
prod8 = (x * q[0]).tolist()
print("int8 products wrap", prod8[0])
print("int8 sum promotes", (x * q[0]).sum(1).dtype, (x * q[0]).sum(1).tolist(), (x.int() * q[0]).sum(1).tolist())
print("matmul via float", torch.equal((x.float() @ q.float().t()).int(), acc))

# uint4 zero-point scheme
mn, mx = w.amin(1, keepdim=True), w.amax(1, keepdim=True)
s = (mx - mn) / 15
zp = torch.round(-mn / s).to(torch.uint8)
qu = torch.clamp(torch.round(w / s) + zp, 0, 15).to(torch.uint8)
print("uint4", qu.tolist(), zp.flatten().tolist())
nib = qu[:, 0::2] | (qu[:, 1::2] << 4)
print("nibbles", nib.tolist(), nib.dtype)
back = torch.stack([nib & 15, nib >> 4], -1).view(4, 8)
print(
    "roundtrip",
    torch.equal(back, qu),
    "deq err",
    ((back.float() - zp.float()) * s - w).abs().max().item() < s.max().item(),
)
print("zp - q underflows in uint8", (zp - qu)[0].tolist(), "as int", (zp.int() - qu.int())[0].tolist())
print("packed to int32 words", nib.view(torch.int32).tolist(), nib.contiguous().view(torch.int16).shape)
