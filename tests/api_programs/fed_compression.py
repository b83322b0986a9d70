"""Communication-efficient updates: top-k sparsification with error feedback (residual carried across rounds),
QSGD stochastic quantisation with a seeded generator (levels, norms, sign bits, unbiasedness), sign-SGD with a
majority vote across workers, and the bytes each scheme would put on the wire."""

import torch

torch.manual_seed(0)
dim, workers = 50, 5
grads = [torch.randn(dim) * (1 + i * 0.2) for i in range(workers)]


def topk_compress(v, k):
    vals, idx = torch.topk(v.abs(), k, sorted=True)
    return idx, v[idx]


def topk_decompress(idx, vals, n):
    out = torch.zeros(n, dtype=vals.dtype)
    out.scatter_(0, idx, vals)
    return out


residual = [torch.zeros(dim) for _ in range(workers)]
for rnd in range(3):
    agg = torch.zeros(dim)
    for w in range(workers):
        corrected = grads[w] * (0.9**rnd) + residual[w]
        idx, vals = topk_compress(corrected, k=5)
        sparse = topk_decompress(idx, vals, dim)
        residual[w] = corrected - sparse
        agg += sparse / workers
    print(
        "topk round",
        rnd,
        "nnz",
        int(agg.count_nonzero()),
        "agg norm",
        round(agg.norm().item(), 4),
        "residual",
        round(torch.stack(residual).norm().item(), 4),
    )
idx, vals = topk_compress(grads[0], 5)
print("topk idx", idx.tolist(), vals.round(decimals=4).tolist(), idx.dtype)
st = torch.sparse_coo_tensor(idx.unsqueeze(0), vals, (dim,)).coalesce()
print("as sparse", st.indices().shape, torch.equal(st.to_dense(), topk_decompress(idx, vals, dim)))


def qsgd(v, s, gen):
    norm = v.norm()
    level = v.abs() / norm * s
    lower = level.floor()
    prob = level - lower
    up = (torch.rand(v.shape, generator=gen) < prob).to(v.dtype)
    q = (lower + up) * torch.sign(v) / s * norm
    return q, (lower + up).to(torch.uint8), norm


gen = torch.Generator().manual_seed(3)
q, levels, norm = qsgd(grads[1], 4, gen)
print("qsgd levels", torch.bincount(levels.long(), minlength=5).tolist(), levels.dtype, round(norm.item(), 4))
print(
    "qsgd err",
    round((q - grads[1]).norm().item(), 4),
    "variance bound",
    round(min(dim / 16, dim**0.5 / 4) * norm.item() ** 2, 4),
)
mean_q = torch.stack([qsgd(grads[1], 4, gen)[0] for _ in range(400)]).mean(0)
print("unbiased", bool(torch.allclose(mean_q, grads[1], atol=0.35)), round((mean_q - grads[1]).abs().max().item(), 1))
bits = torch.sign(grads[1]) >= 0
packed = torch.tensor(
    [int("".join("1" if b else "0" for b in bits[i : i + 8].tolist()).ljust(8, "0"), 2) for i in range(0, dim, 8)],
    dtype=torch.uint8,
)
print("packed signs", packed.tolist(), packed.numel())

signs = torch.stack([torch.sign(g) for g in grads])
vote = torch.sign(signs.sum(0))
print(
    "vote zeros",
    int((vote == 0).sum()),
    "agree with mean",
    round((vote == torch.sign(torch.stack(grads).mean(0))).float().mean().item(), 4),
)
votes_i8 = signs.to(torch.int8)
print("int8 vote", votes_i8.sum(0)[:10].tolist(), votes_i8.sum(0).dtype, votes_i8.sum(0, dtype=torch.int8).dtype)
mode = torch.mode(signs, dim=0)
print("mode", mode.values[:10].tolist(), mode.indices[:10].tolist())

w = torch.zeros(dim)
for step in range(5):
    w -= 0.01 * vote
print("signsgd w", round(w.abs().sum().item(), 4))
print("bytes", {"dense": dim * 4, "topk": 5 * (4 + 8), "qsgd": 4 + dim, "sign": (dim + 7) // 8})
print(
    "tensor bytes", grads[0].element_size() * grads[0].nelement(), idx.element_size(), levels.untyped_storage().nbytes()
)

try:
    torch.topk(grads[0], 60)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(5).scatter_(0, torch.tensor([1.0, 2.0]), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bincount(torch.tensor([-1, 2]))
except Exception as e:
    print(type(e).__name__, e)
