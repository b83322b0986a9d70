"""Batching molecular graphs as sparse block-diagonal adjacency: per-molecule COO matrices shifted by cumulative
atom counts and concatenated, torch.cat/stack of sparse tensors, a GCN layer with self-loops and D^-1/2 (A+I)
D^-1/2 built by torch.sparse.sum, index_select of molecules from the batch, a dataset of sparse graphs through
torch.save/load, and unbatching with split sizes."""

import io

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

graphs = [
    (4, [(0, 1), (1, 2), (2, 3)]),
    (3, [(0, 1), (1, 2), (2, 0)]),
    (5, [(0, 1), (0, 2), (0, 3), (0, 4)]),
]
adjs = []
for n, bonds in graphs:
    e = torch.tensor(bonds).T
    e = torch.cat([e, e.flip(0)], dim=1)
    adjs.append(torch.sparse_coo_tensor(e, torch.ones(e.shape[1]), (n, n)).coalesce())
print("nnz", [a._nnz() for a in adjs])

sizes = torch.tensor([n for n, _ in graphs])
offsets = torch.cumsum(sizes, 0) - sizes
N = int(sizes.sum())
idx = torch.cat([a.indices() + off for a, off in zip(adjs, offsets)], dim=1)
val = torch.cat([a.values() for a in adjs])
A = torch.sparse_coo_tensor(idx, val, (N, N)).coalesce()
print("A", A.shape, A._nnz(), A.is_coalesced())
print("block check", torch.equal(A.to_dense(), torch.block_diag(*[a.to_dense() for a in adjs])))

# torch.cat on sparse tensors stacks along rows (no offsets!), stack adds a leading dim
rows = torch.cat([adjs[0], torch.sparse_coo_tensor(adjs[0].indices(), adjs[0].values() * 2, (4, 4))], dim=0)
print("cat", rows.shape, rows.is_sparse, rows._nnz(), rows.to_dense().sum().item())
st = torch.stack([adjs[0], adjs[0]])
print("stack", st.shape, st.sparse_dim(), st._nnz())
print("cat dim1", torch.cat([adjs[1], adjs[1]], dim=1).shape)

# GCN normalisation with self loops
loops = torch.arange(N)
Ahat = (A + torch.sparse_coo_tensor(torch.stack([loops, loops]), torch.ones(N), (N, N))).coalesce()
deg = torch.sparse.sum(Ahat, dim=1).to_dense()
dinv = deg.pow(-0.5)
r, c = Ahat.indices()
An = torch.sparse_coo_tensor(Ahat.indices(), dinv[r] * Ahat.values() * dinv[c], (N, N)).coalesce()
print("deg", deg.tolist())
print("An row sums", torch.sparse.sum(An, dim=1).to_dense().round(decimals=4).tolist())


class GCN(nn.Module):
    def __init__(self, d_in, d_h, d_out):
        super().__init__()
        self.l1, self.l2 = nn.Linear(d_in, d_h), nn.Linear(d_h, d_out)

    def forward(self, A, x):
        h = F.relu(torch.sparse.mm(A, self.l1(x)))
        return torch.sparse.mm(A, self.l2(h))


x = F.one_hot(torch.tensor([0, 1, 1, 0, 2, 2, 2, 1, 0, 0, 0, 0]), 3).float()
batch = torch.repeat_interleave(torch.arange(3), sizes)
model = GCN(3, 8, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
target = torch.tensor([1.0, -1.0, 0.5])
for step in range(5):
    out = model(An, x).squeeze(-1)
    pred = torch.zeros(3).index_add(0, batch, out) / sizes
    loss = F.mse_loss(pred, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))

# unbatch: split node outputs and pick one molecule's block back out
parts = torch.split(out.detach(), sizes.tolist())
print("parts", [tuple(p.shape) for p in parts])
sel = torch.arange(int(offsets[1]), int(offsets[1] + sizes[1]))
sub = A.index_select(0, sel).index_select(1, sel)
print("sub", sub.shape, torch.equal(sub.to_dense(), adjs[1].to_dense()))

# a dataset of sparse graphs through BytesIO
buf = io.BytesIO()
torch.save({"adjs": adjs, "sizes": sizes}, buf)
buf.seek(0)
data = torch.load(buf)
print("loaded", [a.layout for a in data["adjs"]][0], [a._nnz() for a in data["adjs"]], data["sizes"].tolist())
print("equal", all(torch.equal(a.to_dense(), b.to_dense()) for a, b in zip(adjs, data["adjs"])))
for name, fn in {
    "cat mixed": lambda: torch.cat([adjs[0], torch.eye(4)]),
    "cat size": lambda: torch.cat([adjs[0], adjs[1]], dim=0),
}.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:100])
