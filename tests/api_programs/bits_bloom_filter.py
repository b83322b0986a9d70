"""A Bloom filter over int64 keys: multiply-xorshift hashes with int64 wraparound, bits set by scatter,
membership by gather, and the false-positive rate measured against the analytic estimate."""

import math

import torch

torch.manual_seed(0)

M = 1 << 12  # bits in the filter
K = 4  # hash functions
SEEDS = torch.tensor([0x9E3779B97F4A7C15 - (1 << 64), 0x517CC1B727220A95, 0x2545F4914F6CDD1D, 0x27BB2EE687B0B0FD])


def splitmix(x):
    """splitmix64's finaliser, on int64 with wraparound; the logical shift is an arithmetic one masked."""
    x = x ^ ((x >> 30) & ((1 << 34) - 1))
    x = x * -4658895280553007687  # 0xBF58476D1CE4E5B9 as a signed int64
    x = x ^ ((x >> 27) & ((1 << 37) - 1))
    x = x * -7723592293110705685  # 0x94D049BB133111EB
    return x ^ ((x >> 31) & ((1 << 33) - 1))


def positions(keys):
    h = splitmix(keys.unsqueeze(1) * SEEDS)  # (n, K), wraps silently
    return h.remainder(M)  # non-negative even for negative hashes


keys = torch.randint(-(2**62), 2**62, (300,))
pos = positions(keys)
print("hash dtype", pos.dtype, "shape", tuple(pos.shape), "min", pos.min().item(), "max", pos.max().item())
print("first hashes", splitmix(torch.tensor([0, 1, -1, 2**62])).tolist())
print(
    "remainder of negatives",
    torch.tensor([-7, -1, 7]).remainder(5).tolist(),
    torch.tensor([-7, -1, 7]).fmod(5).tolist(),
)

bits = torch.zeros(M, dtype=torch.bool)
bits.scatter_(0, pos.flatten(), torch.ones(pos.numel(), dtype=torch.bool))
print("bits set", bits.sum().item(), "dtype of sum", bits.sum().dtype)

counts = torch.zeros(M, dtype=torch.int16).scatter_add_(0, pos.flatten(), torch.ones(pos.numel(), dtype=torch.int16))
print("counting filter max", counts.max().item(), "histogram", torch.bincount(counts.long()).tolist()[:6])

# packed into uint8 words: bit j of word i is filter bit 8i + j
weights = 1 << torch.arange(8, dtype=torch.uint8)
words = (bits.view(-1, 8).to(torch.uint8) * weights).sum(1, dtype=torch.uint8)
print("packed", words.dtype, words.shape, words[:8].tolist())
unpacked = ((words.unsqueeze(1) >> torch.arange(8, dtype=torch.uint8)) & 1).bool().flatten()
print("roundtrip", torch.equal(unpacked, bits))


def contains(q):
    p = positions(q)
    w = words[p >> 3]
    return ((w >> (p & 7).to(torch.uint8)) & 1).bool().all(1)


print("members found", contains(keys).all().item())
others = torch.randint(-(2**62), 2**62, (5000,))
fp = contains(others).float().mean().item()
expected = (1 - math.exp(-K * keys.numel() / M)) ** K
print(f"false positive rate {fp:.4f} expected {expected:.4f}")

# the same filter as int64 words: no scatter "or", so one bit position at a time through index_fill
w64 = torch.zeros(M // 64, dtype=torch.int64)
flat = pos.flatten()
for i in range(64):
    hit = torch.zeros(M // 64, dtype=torch.bool).index_fill_(0, flat[(flat & 63) == i] >> 6, True)
    w64 |= hit.long() << i
pop = sum(((w64 >> i) & 1).sum() for i in range(64))
print("int64 words", w64.dtype, "popcount", pop.item(), "sign bits", (w64 < 0).sum().item())
print("word sample", w64[:3].tolist())
print("same bits", torch.equal(((w64.unsqueeze(1) >> torch.arange(64)) & 1).bool().flatten(), bits))

try:
    bits.scatter_(0, pos.flatten().int(), True)
except RuntimeError as e:
    print(type(e).__name__, str(e).split("\n")[0])
try:
    torch.zeros(4, dtype=torch.int16).scatter_add_(0, torch.tensor([0]), torch.ones(1, dtype=torch.int64))
except RuntimeError as e:
    print(type(e).__name__, str(e).split("\n")[0])
