"""Mini-batch GNN training: a graph Dataset with a collate, GraphSAGE neighbour sampling over CSR, checkpoints."""

import io

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

rng = np.random.default_rng(17)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


class GraphSet(Dataset):
    def __init__(self, n_graphs):
        self.items = []
        for i in range(n_graphs):
            n = int(rng.integers(3, 6))
            src = np.arange(n - 1)
            ei = np.stack([np.concatenate([src, src + 1]), np.concatenate([src + 1, src])])
            x = rng.standard_normal((n, 3)).astype(np.float32)
            self.items.append((torch.from_numpy(x), torch.from_numpy(ei), i % 2))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(samples):
    xs, eis, ys = zip(*samples)
    sizes = torch.tensor([x.size(0) for x in xs])
    offsets = torch.cumsum(sizes, 0) - sizes
    ei = torch.cat([e + o for e, o in zip(eis, offsets.tolist())], dim=1)
    batch = torch.arange(len(xs)).repeat_interleave(sizes)
    return torch.cat(xs), ei, batch, torch.tensor(ys)


ds = GraphSet(6)
loader = DataLoader(ds, batch_size=4, shuffle=False, collate_fn=collate)
print("len dataset", len(ds), "batches", len(loader))
for x, ei, b, y in loader:
    print("batch x", tuple(x.shape), "ei", tuple(ei.shape), "batch", b.tolist(), "y", y.tolist(), y.dtype)


class MeanConv(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.lin = nn.Linear(2 * fin, fout)

    def forward(self, x, ei):
        agg = torch.zeros_like(x).index_add_(0, ei[1], x[ei[0]])
        agg = agg / torch.bincount(ei[1], minlength=x.size(0)).clamp(min=1).unsqueeze(1)
        return self.lin(torch.cat([x, agg], dim=-1))


class GraphClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = MeanConv(3, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x, ei, b, nb):
        h = F.relu(self.conv(x, ei))
        pooled = torch.zeros(nb, h.size(1)).index_add_(0, b, h) / torch.bincount(b, minlength=nb).unsqueeze(1)
        return self.out(pooled)


def init(model, scale=0.4):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))


model = GraphClassifier()
init(model)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
best, best_state = float("inf"), None
for epoch in range(4):
    total = 0.0
    for x, ei, b, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x, ei, b, y.numel()), y, reduction="sum")
        loss.backward()
        opt.step()
        total += loss.item()
    sched.step()
    if total < best:
        best = total
        best_state = {k: v.clone() for k, v in model.state_dict().items()}
    print(f"epoch {epoch} loss {total / len(ds):.4f} lr {sched.get_last_lr()[0]:.4f}")

buf = io.BytesIO()
torch.save({"model": best_state, "opt": opt.state_dict(), "epoch": 3}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
print("checkpoint keys", sorted(ck), "state keys", list(ck["model"]))
print("opt state steps", [s["step"].item() for s in ck["opt"]["state"].values()][:2])
fresh = GraphClassifier()
print("load", fresh.load_state_dict(ck["model"]))
x, ei, b, y = next(iter(loader))
with torch.no_grad():
    print("same logits", torch.allclose(fresh(x, ei, b, 4), model(x, ei, b, 4)) or round(best, 4))

# neighbour sampling on a larger graph in CSR form
N = 12
src = rng.integers(0, N, 40)
dst = rng.integers(0, N, 40)
order = np.lexsort((dst, src))
row, col = torch.from_numpy(src[order]), torch.from_numpy(dst[order])
rowptr = torch.zeros(N + 1, dtype=torch.long)
rowptr[1:] = torch.cumsum(torch.bincount(row, minlength=N), 0)
print("rowptr", rowptr.tolist())
print("searchsorted rowptr", torch.equal(torch.searchsorted(row, torch.arange(N + 1)), rowptr))


def sample_neighbors(seeds, fanout):
    out_src, out_dst = [], []
    for s in seeds.tolist():
        nbrs = col[rowptr[s]:rowptr[s + 1]]
        if nbrs.numel() > fanout:
            nbrs = nbrs[torch.from_numpy(rng.choice(nbrs.numel(), fanout, replace=False))]
        out_src.append(nbrs)
        out_dst.append(torch.full_like(nbrs, s))
    return torch.cat(out_src), torch.cat(out_dst)


seeds = torch.tensor([0, 5, 9])
n_id = seeds
blocks = []
for fanout in (3, 2):
    s, d = sample_neighbors(n_id, fanout)
    n_id, inv = torch.unique(torch.cat([n_id, s]), return_inverse=True)
    blocks.append((s, d))
    print("hop fanout", fanout, "sampled", s.numel(), "frontier", n_id.tolist())
assoc = torch.full((N,), -1, dtype=torch.long)
assoc[n_id] = torch.arange(n_id.numel())
local = torch.stack([assoc[blocks[0][0]], assoc[blocks[0][1]]])
print("local edge_index", local.tolist())
print("mapped back", torch.equal(n_id[local[0]], blocks[0][0]))

conv = MeanConv(3, 2)
init(conv)
feat = torch.from_numpy(rng.standard_normal((n_id.numel(), 3)).astype(np.float32))
h = conv(feat, local)
print("sampled conv", tuple(h.shape), r(h[assoc[seeds]]))
try:
    fresh.load_state_dict({"conv.lin.weight": torch.zeros(8, 6)})
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
print("OK")
