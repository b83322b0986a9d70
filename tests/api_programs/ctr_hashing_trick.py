"""Feature hashing on int64 ids: multiplicative hashes that wrap, xor-shift mixing, remainder vs fmod, QR embeddings."""

import torch
from torch import nn

torch.manual_seed(0)

ids = torch.tensor([0, 1, 2, 12345, 2**31 - 1, 2**40 + 7, -5, -(2**33), 9_007_199_254_740_993], dtype=torch.int64)
print("ids", ids.tolist(), ids.dtype)

# Knuth multiplicative hash: the product wraps around in int64 like C
golden = 0x9E3779B97F4A7C15 - 2**64  # as a signed int64
h = ids * golden
print("wrapped product", h.tolist())
print("python check", [((int(i) * golden + 2**63) % 2**64) - 2**63 for i in ids.tolist()] == h.tolist())


# xor-shift mixing (splitmix64 finaliser); >> on negative int64 is arithmetic, so mask after shifting
def splitmix(x):
    x = x ^ ((x >> 30) & ((1 << 34) - 1))
    x = x * (0xBF58476D1CE4E5B9 - 2**64)
    x = x ^ ((x >> 27) & ((1 << 37) - 1))
    x = x * (0x94D049BB133111EB - 2**64)
    return x ^ ((x >> 31) & ((1 << 33) - 1))


mixed = splitmix(ids)
print("splitmix", mixed.tolist())
print("arith shift", (torch.tensor([-16, 16]) >> 2).tolist(), torch.tensor([-16]).bitwise_right_shift(2).tolist())
print(
    "left shift wraps", (torch.tensor([1, 3]) << 62).tolist(), torch.bitwise_left_shift(torch.tensor([5]), 63).tolist()
)

# bucketing: remainder is non-negative for a positive divisor, fmod keeps the sign
B = 1000
print("remainder", torch.remainder(mixed, B).tolist())
print("fmod", torch.fmod(mixed, B).tolist())
print("% operator", (mixed % B).tolist() == torch.remainder(mixed, B).tolist())
print(
    "floor_divide",
    torch.floor_divide(torch.tensor([-7, 7]), 2).tolist(),
    torch.div(torch.tensor([-7, 7]), 2, rounding_mode="trunc").tolist(),
)
print("bitwise_and bucket", (mixed & (1024 - 1)).tolist())
print("abs min int64", torch.tensor([-(2**63)]).abs().tolist())

# cross features: hash of a pair (a * P + b) into buckets
a = torch.tensor([3, 3, 7, 11])
b = torch.tensor([5, 6, 5, 5])
cross = torch.remainder(splitmix(a * 1_000_003 + b), 97)
print("cross buckets", cross.tolist(), cross.dtype)

# string features hashed in Python, then tensorised
cats = ["US", "DE", "US", "FR", "JP"]
vocab = {c: i for i, c in enumerate(sorted(set(cats)))}
cat_ids = torch.tensor([vocab[c] for c in cats])
print("cat ids", cat_ids.tolist(), torch.bincount(cat_ids).tolist(), torch.bincount(cat_ids, minlength=6).tolist())

# quotient-remainder compositional embedding (Shi et al. 2020)
num_buckets, q_size = 50, 8
emb_q = nn.Embedding((num_buckets + q_size - 1) // q_size, 4)
emb_r = nn.Embedding(q_size, 4)
bucket = torch.remainder(mixed, num_buckets)
qr = emb_q(torch.div(bucket, q_size, rounding_mode="floor")) * emb_r(torch.remainder(bucket, q_size))
print("qr", qr.shape, round(qr.sum().item(), 4))
print("q/r", torch.div(bucket, q_size, rounding_mode="floor").tolist(), torch.remainder(bucket, q_size).tolist())

# uniqueness after hashing: collisions counted with unique(return_counts)
many = torch.arange(0, 5000, 7)
hb = torch.remainder(splitmix(many), 128)
u, inv, counts = torch.unique(hb, return_inverse=True, return_counts=True)
print("unique buckets", u.numel(), "max load", counts.max().item(), "inverse ok", torch.equal(u[inv], hb))
print("sorted?", torch.equal(u, u.sort().values), u[:5].tolist())

# dtypes: int32 ids promote with an int64 constant; uint8 bit tricks
i32 = torch.tensor([1, 2, 3], dtype=torch.int32)
print((i32 * 2654435761).dtype, (i32 * 2654435761).tolist())
print((i32 * 3).dtype, (i32 << 30).tolist())
u8 = torch.tensor([200, 100], dtype=torch.uint8)
print((u8 + u8).tolist(), (u8 ^ 255).tolist(), (~u8).tolist(), (u8 >> 1).tolist())
print(
    torch.bitwise_xor(torch.tensor([12]), 10).tolist(),
    torch.bitwise_or(torch.tensor([True]), torch.tensor([False])).tolist(),
)

for fn in (
    lambda: torch.tensor([1.5]) & 1,
    lambda: torch.remainder(torch.tensor([3]), 0),
    lambda: torch.fmod(torch.tensor([3]), 0),
    lambda: torch.tensor([1]) >> torch.tensor([1.0]),
    lambda: torch.bitwise_xor(torch.tensor([1.0]), torch.tensor([2.0])),
):
    try:
        print("no error", fn().tolist())
    except Exception as e:
        print(type(e).__name__, e)
