"""Secure aggregation by pairwise masking: each pair of clients derives the same mask from a shared seed with a
torch.Generator, client i adds it and client j subtracts it, so masks cancel in the sum; updates are quantised to
int64 in a finite field, masked modulo 2**32, and dequantised after aggregation, with a dropout recovery."""

import itertools

import torch

torch.manual_seed(0)
n, dim, MOD, SCALE = 4, 10, 2 ** 32, 2 ** 16
updates = [torch.randn(dim) * 0.1 for _ in range(n)]
true_sum = torch.stack(updates).sum(0)
print("true sum", true_sum.round(decimals=4).tolist())


def quantize(u):
    return torch.round(u * SCALE).to(torch.int64) % MOD


def dequantize(q, count):
    q = torch.where(q >= MOD // 2, q - MOD, q)
    return q.to(torch.float64) / SCALE


def pair_seed(i, j):
    return 1000 * min(i, j) + max(i, j)


def pair_mask(i, j):
    g = torch.Generator()
    g.manual_seed(pair_seed(i, j))
    return torch.randint(0, MOD, (dim,), generator=g, dtype=torch.int64)


def self_mask(i):
    g = torch.Generator().manual_seed(77 + i)
    return torch.randint(0, MOD, (dim,), generator=g)


q = [quantize(u) for u in updates]
print("q dtype", q[0].dtype, "range ok", all(bool(((t >= 0) & (t < MOD)).all()) for t in q))
masked = []
for i in range(n):
    m = q[i] + self_mask(i)
    for j in range(n):
        if j == i:
            continue
        m = m + pair_mask(i, j) if i < j else m - pair_mask(i, j)
    masked.append(torch.remainder(m, MOD))
print("masked differ", [bool((masked[i] != q[i]).any()) for i in range(n)])
agg = torch.stack(masked).sum(0) % MOD
agg = (agg - sum(self_mask(i) for i in range(n))) % MOD
recovered = dequantize(agg, n)
print("recovered", recovered.round(decimals=4).tolist())
print("max err", float((recovered - true_sum.double()).abs().max()) < n / SCALE)

# client 3 drops out after masking: survivors reveal their pairwise masks with it
alive = [0, 1, 2]
agg = torch.stack([masked[i] for i in alive]).sum(0)
for i in alive:
    agg = agg - self_mask(i)
    agg = agg - pair_mask(i, 3) if i < 3 else agg + pair_mask(i, 3)
agg = torch.fmod(agg % MOD + MOD, MOD)
rec = dequantize(agg, len(alive))
print("dropout sum", rec.round(decimals=4).tolist())
print("dropout ok", torch.allclose(rec.float(), torch.stack(updates[:3]).sum(0), atol=1e-3))

# masks are reproducible and generator state round-trips
g = torch.Generator().manual_seed(5)
state = g.get_state()
a = torch.randint(0, 100, (5,), generator=g)
g.set_state(state)
b = torch.randint(0, 100, (5,), generator=g)
print("replay", a.tolist(), torch.equal(a, b), state.dtype, state.shape, g.initial_seed())
print("pairs", list(itertools.combinations(range(n), 2))[:3], pair_seed(2, 1))
x = torch.tensor([2 ** 31, -5, 7], dtype=torch.int64)
print("int ops", (x % 7).tolist(), torch.remainder(x, -7).tolist(), torch.fmod(x, 7).tolist(),
      torch.bitwise_xor(x, torch.tensor(0xFF)).tolist(), (x >> 3).tolist(), (x & 0xF).tolist())
print("int32 wrap", (torch.tensor([2 ** 31 - 1], dtype=torch.int32) + 1).tolist())
try:
    torch.randint(0, MOD, (3,), generator=g, dtype=torch.int32)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.Generator().manual_seed(-1)
except Exception as e:
    print(type(e).__name__, e)
try:
    g.set_state(torch.zeros(10))
except Exception as e:
    print(type(e).__name__, e)
