"""Packing low-bit weights as LLM inference kernels store them: two signed int4 values per uint8 with masks and
shifts, sign extension on unpack, eight nibbles in an int32 (GPTQ's layout), 2-bit packing, reinterpreting bytes
with view(dtype), group-wise scales and the round trip against the float weights."""

import torch

torch.manual_seed(0)
W = torch.randn(4, 16)
group = 8
Wg = W.view(4, -1, group)
amax = Wg.abs().amax(dim=-1, keepdim=True)
scale = amax / 7
q = torch.clamp(torch.round(Wg / scale), -8, 7).to(torch.int8).view(4, 16)
print("q row0", q[0].tolist())


def pack_int4(q):
    u = (q & 0x0F).to(torch.uint8)
    return u[..., 0::2] | (u[..., 1::2] << 4)


def unpack_int4(p):
    lo = (p & 0x0F).to(torch.int8)
    hi = (p >> 4).to(torch.int8)
    lo = torch.where(lo > 7, lo - 16, lo)
    hi = torch.where(hi > 7, hi - 16, hi)
    return torch.stack([lo, hi], dim=-1).flatten(-2)


packed = pack_int4(q)
print("packed", packed.dtype, packed.shape, packed[0].tolist())
un = unpack_int4(packed)
print("round trip", torch.equal(un, q))
# sign extension via arithmetic shifts on int8
lo2 = (packed.view(torch.int8) << 4) >> 4
hi2 = packed.view(torch.int8) >> 4
print("shift sign-extend", torch.equal(torch.stack([lo2, hi2], -1).flatten(-2), q))
deq = (un.view(4, -1, group).float() * scale).view(4, 16)
print("max abs err", round((deq - W).abs().max().item(), 4), "bound", round((scale / 2).max().item(), 4))

# GPTQ-style: 8 nibbles per int32, column-major within the word
qu = q.to(torch.int32) + 8  # to unsigned 0..15
shifts = torch.arange(0, 32, 4, dtype=torch.int32)
words = (qu.view(4, 2, 8) << shifts).sum(-1, dtype=torch.int32)
print("int32 words", words.dtype, words.tolist())
back = (words.unsqueeze(-1) >> shifts) & 0xF
print("int32 unpack", torch.equal((back.view(4, 16) - 8), q.to(torch.int32)))
print("bitwise_or reduce", torch.equal(words, (qu.view(4, 2, 8) << shifts).sum(-1).to(torch.int32)))

# 2-bit packing: four values per byte
t = torch.randint(0, 4, (3, 8), dtype=torch.uint8)
p2 = t[:, 0::4] | (t[:, 1::4] << 2) | (t[:, 2::4] << 4) | (t[:, 3::4] << 6)
print("2bit packed", p2.tolist())
s2 = torch.tensor([0, 2, 4, 6], dtype=torch.uint8)
u2 = (p2.unsqueeze(-1) >> s2) & 3
print("2bit round trip", torch.equal(u2.flatten(1), t))

# reinterpreting bytes
f = torch.tensor([1.0, -2.5, 0.1])
b = f.view(torch.uint8)
print("float->bytes", b.shape, b.tolist())
print("bytes->int32", b.view(torch.int32).tolist())
print("int16 view of bf16", torch.tensor([1.0, -1.0], dtype=torch.bfloat16).view(torch.int16).tolist())
print("uint8->float back", torch.equal(b.view(torch.float32), f))
print(
    "2-d view", torch.zeros(2, 4, dtype=torch.uint8).view(torch.int16).shape, torch.zeros(2, 3).view(torch.int8).shape
)
print(
    "bitwise_not",
    torch.bitwise_not(torch.tensor([0, 15, 255], dtype=torch.uint8)).tolist(),
    (~torch.tensor([0, 7], dtype=torch.int8)).tolist(),
)
print("xor", torch.bitwise_xor(torch.tensor([0b1010]), 0b0110).item(), (torch.tensor([5]) ^ 3).item())
print("popcount", sum(((packed[0] >> i) & 1).sum().item() for i in range(8)))
for bad in (
    lambda: torch.zeros(3, dtype=torch.uint8).view(torch.int16),
    lambda: torch.zeros(4, 3).t().view(torch.int8),
    lambda: torch.tensor([1.5]) & 1,
    lambda: torch.tensor([1, 2]) >> torch.tensor([1.0, 1.0]),
):
    try:
        r = bad()
        print("ok", r.shape)
    except Exception as e:
        print(type(e).__name__, e)
