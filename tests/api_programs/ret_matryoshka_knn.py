"""Matryoshka embeddings with chunked exact kNN: nested-dimension losses over prefix slices with F.normalize,
re-ranking a low-dimension shortlist at full dimension, merging per-chunk top-k results, and float16/bfloat16
search with its ties, NaN rows and k larger than a chunk."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

dims = [4, 8, 16]
model = nn.Sequential(nn.Linear(10, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 16))
x = torch.randn(8, 10)
y = torch.randn(8, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
weights = torch.tensor([1.0, 1.0, 2.0])
for step in range(3):
    ex, ey = model(x), model(y + 0.1 * x)
    losses = []
    for d in dims:
        a, b = F.normalize(ex[:, :d], dim=-1), F.normalize(ey[..., :d], dim=-1)
        losses.append(F.cross_entropy(a @ b.T / 0.05, torch.arange(8)))
    loss = (torch.stack(losses) * weights).sum() / weights.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, [round(l.item(), 4) for l in losses], round(loss.item(), 4))
print("grad of prefix only", model[2].weight.grad[:4].abs().sum().item() > 0, model[2].bias.grad.shape)

# slicing views keep strides; normalize of a non-contiguous slice
with torch.no_grad():
    emb = model(torch.randn(50, 10))
sl = emb[:, :8]
print("slice", sl.stride(), sl.is_contiguous(), F.normalize(sl, dim=1).stride(), F.normalize(sl, dim=1).is_contiguous())
print(
    "p=1",
    F.normalize(sl, p=1, dim=1)[0].abs().sum().item(),
    "p=inf",
    F.normalize(sl, p=float("inf"), dim=1)[0].abs().max().item(),
)
print(
    "zero row", F.normalize(torch.zeros(1, 3), dim=1).tolist(), F.normalize(torch.zeros(1, 3), dim=1, eps=0.0).tolist()
)
print(
    "vector_norm",
    torch.linalg.vector_norm(sl, ord=0, dim=1)[:3].tolist(),
    torch.linalg.vector_norm(sl.half(), dim=1, dtype=torch.float32).dtype,
)

# shortlist at 4 dims, rerank at 16
q = F.normalize(emb[:3] + 0.05, dim=-1)
db = F.normalize(emb, dim=-1)
short = (F.normalize(q[:, :4], dim=-1) @ F.normalize(db[:, :4], dim=-1).T).topk(10, dim=1).indices
full = torch.einsum("qd,qkd->qk", q, db[short])
rer = short.gather(1, full.argsort(dim=1, descending=True)[:, :3])
print("reranked", rer.tolist(), "exact", (q @ db.T).topk(3).indices.tolist())

# chunked exact search: per-chunk topk then a merge; a chunk smaller than k is padded with -inf
k, chunk = 4, 16
vals, idx = [], []
for start in range(0, db.shape[0], chunk):
    s = q @ db[start : start + chunk].T
    kk = min(k, s.shape[1])
    v, i = s.topk(kk, dim=1)
    if kk < k:
        v = F.pad(v, (0, k - kk), value=float("-inf"))
        i = F.pad(i, (0, k - kk), value=-1 - start)
    vals.append(v)
    idx.append(i + start)
allv, alli = torch.cat(vals, 1), torch.cat(idx, 1)
mv, mi = allv.topk(k, dim=1)
print("merged", alli.gather(1, mi).tolist(), torch.equal(alli.gather(1, mi), (q @ db.T).topk(k).indices))
print(
    "chunks",
    [c.shape[0] for c in db.split(chunk)],
    [c.shape[0] for c in db.chunk(3)],
    [c.shape[0] for c in torch.tensor_split(db, 3)],
)

# half and bfloat16 search
for dt in (torch.float16, torch.bfloat16):
    s = q.to(dt) @ db.to(dt).T
    v, i = s.topk(3, dim=1)
    print(dt, v.dtype, i.tolist() == (q @ db.T).topk(3).indices.tolist(), s.max().item() <= 1.01)
print(
    "half ties",
    torch.tensor([0.5, 0.5, 0.25], dtype=torch.float16).topk(2).indices.tolist(),
    torch.tensor([1.0, 1.0001], dtype=torch.bfloat16).tolist(),
)

# NaN rows poison topk; nan_to_num first
bad = db.clone()
bad[7] = float("nan")
print("nan topk", (q @ bad.T).topk(2).indices.tolist(), (q @ bad.T).nan_to_num(nan=-2).topk(2).indices.tolist())
print("isnan rows", torch.isnan(bad).any(1).nonzero().flatten().tolist())

with torch.inference_mode():
    r = model(torch.randn(2, 10))
print("inference", r.requires_grad, r.is_inference(), torch.is_inference_mode_enabled())
for fn in (
    lambda: (q @ db[:3].T).topk(4, dim=1),
    lambda: F.normalize(sl, dim=2),
    lambda: torch.linalg.vector_norm(sl, ord="fro"),
    lambda: r.add_(1) if False else r.requires_grad_(),
    lambda: torch.tensor_split(db, [10, 5]).__len__(),
    lambda: db.split([10, 10]),
):
    try:
        out = fn()
        print("ok", out.shape if hasattr(out, "shape") else out)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
