"""Counter-based and xorshift random number generators written with tensor integer ops (as in
reproducible data augmentation and GPU-style hashing): int64 wraparound, logical shifts by masking,
uniform floats made from mantissa bits, and an LCG."""

import torch

MASK32 = 0xFFFFFFFF


def xorshift32(s):
    """xorshift32 on int64 lanes holding uint32 values."""
    s = s ^ ((s << 13) & MASK32)
    s = s ^ (s >> 17)
    return s ^ ((s << 5) & MASK32)


def xorshift64star(s):
    """xorshift64* on int64 with wraparound; a logical right shift is an arithmetic one masked."""
    s = s ^ ((s >> 12) & ((1 << 52) - 1))
    s = s ^ (s << 25)
    s = s ^ ((s >> 27) & ((1 << 37) - 1))
    return s * 0x2545F4914F6CDD1D


def pcg_hash(x):
    """PCG hash on uint32 values kept in int64."""
    state = (x * 747796405 + 2891336453) & MASK32
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & MASK32
    return (word >> 22) ^ word


s = torch.tensor([1, 2, 0xDEADBEEF, 123456789])
seq = []
for _ in range(4):
    s = xorshift32(s)
    seq.append(s[0].item())
print("xorshift32", seq, s.tolist())
print("range ok", bool(((s >= 0) & (s <= MASK32)).all()))

t = torch.tensor([1, -1, 88172645463325252])
for _ in range(3):
    t = xorshift64star(t)
print("xorshift64*", t.tolist(), t.dtype)

h = pcg_hash(torch.arange(8))
print("pcg", h.tolist())
print("uniform from 24 bits", ((h >> 8).double() / 2**24).round(decimals=6).tolist())
mant = ((h.int() >> 9) & 0x7FFFFF) | 0x3F800000
u = mant.view(torch.float32) - 1.0
print("uniform via mantissa", u.tolist(), u.dtype, bool(((u >= 0) & (u < 1)).all()))

d = torch.tensor([0x123456789ABCDEF, -1, 2**62])
u53 = ((d >> 11) & ((1 << 53) - 1)).double() * 2.0**-53
print("53-bit doubles", u53.tolist())

a, c = 6364136223846793005, 1442695040888963407
state = torch.tensor([42])
outs = []
for _ in range(3):
    state = state * a + c
    outs.append(state.item())
print("lcg64", outs)
print("lcg high bits", [(v >> 33) & 0x7FFFFFFF for v in outs])
x32 = torch.tensor([42], dtype=torch.int32)
for _ in range(3):
    x32 = x32 * 1103515245 + 12345
print("lcg int32 wraps", x32.item(), x32.dtype, (x32 & 0x7FFFFFFF).item())

counter = torch.arange(6, dtype=torch.int64)
key = 0x9E3779B9
mixed = pcg_hash(counter ^ key)
print("counter-based", mixed.tolist())
perm = torch.argsort(pcg_hash(torch.arange(10) + 1000))
print("hash permutation", perm.tolist(), torch.equal(torch.sort(perm).values, torch.arange(10)))
coin = (pcg_hash(torch.arange(1000)) & 1).sum().item()
print("coin heads", coin)
print("bits balance", [int(((pcg_hash(torch.arange(256)) >> b) & 1).sum()) for b in range(0, 32, 8)])
g = torch.Generator().manual_seed(7)
print("torch randint int16", torch.randint(-5, 5, (6,), generator=g, dtype=torch.int16).tolist())
print("random_ uint8", torch.empty(5, dtype=torch.uint8).random_(generator=g).tolist())
print("random_ int8 range", torch.empty(5, dtype=torch.int8).random_(-3, 3, generator=g).tolist())
print("random_ bool", torch.empty(5, dtype=torch.bool).random_(generator=g).tolist())
print("random_ int64 to", torch.empty(3, dtype=torch.int64).random_(100, generator=g).tolist())
