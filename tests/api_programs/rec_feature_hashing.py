"""The hashing trick for categorical ids: modular and bitwise hashes, collisions, QR embeddings, multi-hash tables."""

import torch
from torch import nn

torch.manual_seed(11)
torch.set_printoptions(precision=4)

raw_ids = torch.tensor([0, 1, 17, 1023, 123456789, 987654321012, -5, 2**40 + 3, 77, 17])
print("raw", raw_ids.dtype, raw_ids.tolist())

# modular hashing: remainder follows the divisor's sign, fmod the dividend's
n_buckets = 16
print("remainder", torch.remainder(raw_ids, n_buckets).tolist())
print("fmod     ", torch.fmod(raw_ids, n_buckets).tolist())
print("% op     ", (raw_ids % n_buckets).tolist())
print("floor_divide", torch.div(raw_ids, n_buckets, rounding_mode="floor").tolist())
print("trunc_divide", torch.div(raw_ids, n_buckets, rounding_mode="trunc").tolist())

# power-of-two buckets with a bitwise mask (the same as remainder for non-negative ids)
mask = n_buckets - 1
print("mask", (raw_ids & mask).tolist(), "eq remainder", torch.equal(raw_ids & mask, raw_ids % n_buckets))

# multiplicative (Knuth-style) hashing in int64: the product wraps around
golden = 0x61C8864680B583EB
mixed = raw_ids * golden
print("wrapped products", mixed[:4].tolist())
h = (mixed >> 20) & 0xFFFF
print("mul-shift hash", h.tolist())
print("shift ops", (raw_ids << 3)[:4].tolist(), torch.bitwise_right_shift(raw_ids, 2)[-4:].tolist())
print("negative >> (arithmetic)", (torch.tensor([-5, -16, -1]) >> 1).tolist())


def murmur_mix(x):
    """A 64-bit finaliser written with xor-shifts and wrapping multiplies."""
    x = x ^ ((x >> 33) & 0x7FFFFFFF)
    x = x * 0x7F4A7C15F39CC060
    x = x ^ ((x >> 29) & 0x7FFFFFFFF)
    x = x * 0x1CE4E5B9BF58476D
    return x ^ ((x >> 32) & 0xFFFFFFFF)


hashed = murmur_mix(raw_ids)
print("murmur", hashed[:3].tolist())
buckets = torch.remainder(hashed, 1000)
print("buckets", buckets.tolist())
print("xor", torch.bitwise_xor(raw_ids, torch.tensor(0x5BD1E995)).tolist()[:4])
print("not", torch.bitwise_not(torch.tensor([0, 7, -1], dtype=torch.int32)).tolist())


def str_hash(s, mod):
    """Polynomial rolling hash of a string's code points."""
    h = torch.tensor(0, dtype=torch.int64)
    for ch in s:
        h = (h * 31 + ord(ch)) % mod
    return int(h)


words = ["action", "comedy", "drama", "horror", "sci-fi", "romance", "documentary", "thriller"]
codes = torch.tensor([str_hash(w, 2**31 - 1) for w in words])
print("string codes", codes.tolist())
genre_bucket = codes % 5
print("genre buckets", genre_bucket.tolist())
vals, counts = torch.unique(genre_bucket, return_counts=True)
print("bucket occupancy", vals.tolist(), counts.tolist(), "collisions", int((counts - 1).clamp(min=0).sum()))

# collision rate of a big id stream into a small table
torch.manual_seed(12)
stream = torch.randint(0, 10**9, (5000,))
for size in [64, 512, 4096]:
    b = murmur_mix(stream) % size
    u, c = torch.unique(b, return_counts=True)
    uniq_ids = torch.unique(stream).numel()
    print(f"table {size:4d}: used {u.numel():4d} max load {int(c.max()):3d} "
          f"collided ids {uniq_ids - u.numel():4d} load std {c.float().std().item():.4f}")


# quotient-remainder trick: two small tables give every id a unique (q, r) pair
class QREmbedding(nn.Module):
    def __init__(self, num, dim, buckets):
        super().__init__()
        self.buckets = buckets
        self.q = nn.Embedding((num + buckets - 1) // buckets, dim)
        self.r = nn.Embedding(buckets, dim)

    def forward(self, x):
        return self.q(torch.div(x, self.buckets, rounding_mode="floor")) * self.r(torch.remainder(x, self.buckets))


qr = QREmbedding(1000, 4, 32)
ids = torch.tensor([0, 31, 32, 999, 517])
print("qr tables", qr.q.weight.shape, qr.r.weight.shape, "params", sum(p.numel() for p in qr.parameters()))
print("qr pairs", torch.stack([ids // 32, ids % 32]).tolist())
print("qr out", qr(ids).shape, qr(ids)[1])


# multi-hash embedding: k hashes into one shared table, summed
class MultiHashEmbedding(nn.Module):
    def __init__(self, buckets, dim, seeds):
        super().__init__()
        self.table = nn.Embedding(buckets, dim)
        self.register_buffer("seeds", torch.tensor(seeds))
        self.buckets = buckets

    def forward(self, x):
        hx = murmur_mix(x.unsqueeze(-1) ^ self.seeds) % self.buckets
        return self.table(hx).sum(-2), hx


mh = MultiHashEmbedding(50, 3, [0x1234, 0x9ABC, 0x7777])
out, hx = mh(raw_ids[:5])
print("multi-hash idx", hx.tolist())
print("multi-hash out", out.shape, out[0])
print("buffers", [(n, b.tolist()) for n, b in mh.named_buffers()])
both = torch.equal(hx[2], mh(torch.tensor([17]))[1][0])
print("deterministic", both)

# int32 ids hash differently: the wrap happens at 32 bits
ids32 = torch.tensor([123456789, 2**31 - 1], dtype=torch.int32)
print("int32 mul", (ids32 * 31).tolist(), (ids32 * 31).dtype)
print("widened + 2**33", (ids32.long() + 2**33).tolist())
try:
    print("int32 + 2**33", (ids32 + 2**33).tolist())
except RuntimeError as e:
    print("RuntimeError:", e)
print("int32 sum dtype", ids32.sum().dtype, ids32.sum().item(), "cumsum", ids32.cumsum(0).dtype)
print("uint8 wrap", (torch.tensor([250, 5], dtype=torch.uint8) + 10).tolist())
