"""Mini-batching graphs as sparse block-diagonal adjacencies (torch.cat/stack of COO), sparse_mask and
function-form ops on sparse tensors, as GNN code without PyG writes them."""

import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def adjacency(edges, n):
    e = torch.tensor(edges).t()
    e = torch.cat([e, e.flip(0)], dim=1)
    return torch.sparse_coo_tensor(e, torch.ones(e.size(1)), (n, n)).coalesce()


graphs = [adjacency([(0, 1), (1, 2)], 3), adjacency([(0, 1), (1, 2), (2, 3), (3, 0)], 4), adjacency([(0, 1)], 2)]
sizes = [g.shape[0] for g in graphs]
print("graph sizes", sizes, "nnz", [g._nnz() for g in graphs])

# block-diagonal batch: shift each graph's indices by the nodes before it
offsets = torch.cumsum(torch.tensor([0] + sizes[:-1]), 0)
idx = torch.cat([g.indices() + o for g, o in zip(graphs, offsets)], dim=1)
val = torch.cat([g.values() for g in graphs])
N = sum(sizes)
A = torch.sparse_coo_tensor(idx, val, (N, N)).coalesce()
print("batched", tuple(A.shape), A._nnz())
batch = torch.repeat_interleave(torch.arange(len(graphs)), torch.tensor(sizes))
print("batch vector", batch.tolist())

# torch.cat of sparse tensors: rows stacked, columns side by side
rows = torch.cat(graphs[:1] + [torch.sparse_coo_tensor(torch.tensor([[0], [2]]), torch.tensor([5.0]), (1, 3))])
print("cat rows", rows.layout, tuple(rows.shape), rows.is_coalesced(), rows._indices().tolist())
cols = torch.cat([graphs[0], graphs[0]], dim=1)
print("cat cols", tuple(cols.shape), cols._nnz(), cols.to_dense().tolist())
st = torch.stack([graphs[2], graphs[2].t()])
print("stack", tuple(st.shape), st.sparse_dim(), st._indices().tolist())
try:
    torch.cat([graphs[0], torch.eye(3)])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.cat([graphs[0], graphs[1]])
except RuntimeError as e:
    print("RuntimeError:", e)

# symmetric normalization with self-loops, then a two-layer GCN over the batch
I = torch.sparse_coo_tensor(torch.arange(N).repeat(2, 1), torch.ones(N), (N, N))
Ah = (A + I).coalesce()
deg = torch.sparse.sum(Ah, dim=1).to_dense()
r, c = Ah.indices()
An = torch.sparse_coo_tensor(Ah.indices(), Ah.values() / (deg[r] * deg[c]).sqrt(), (N, N)).coalesce()
print("normalized diag", [round(v, 4) for v in An.to_dense().diagonal().tolist()])


class GraphClassifier(nn.Module):
    def __init__(self, fin, hid, ncls):
        super().__init__()
        self.l1 = nn.Linear(fin, hid)
        self.l2 = nn.Linear(hid, hid)
        self.head = nn.Linear(hid, ncls)

    def forward(self, x, adj, batch, n_graphs):
        h = F.relu(torch.sparse.mm(adj, self.l1(x)))
        h = F.relu(torch.sparse.mm(adj, self.l2(h)))
        pooled = torch.zeros(n_graphs, h.size(1)).index_add_(0, batch, h)
        counts = torch.bincount(batch, minlength=n_graphs).unsqueeze(1)
        return self.head(pooled / counts)


x = torch.randn(N, 4)
y = torch.tensor([0, 1, 0])
model = GraphClassifier(4, 8, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(30):
    opt.zero_grad()
    loss = F.cross_entropy(model(x, An, batch, len(graphs)), y)
    loss.backward()
    opt.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d} loss {loss.item():.4f}")
print("graph logits", [[round(v, 4) for v in row] for row in model(x, An, batch, len(graphs)).tolist()])

# sparse_mask: read a dense score matrix only at the edges (e.g. edge attention or link scores)
scores = x @ x.t()
edge_scores = scores.sparse_mask(A)
print("sparse_mask", edge_scores.layout, edge_scores.is_coalesced(), edge_scores._nnz())
print("edge scores", [round(v, 4) for v in edge_scores.values()[:6].tolist()])
att = torch.sparse.softmax(edge_scores, dim=1)
print("attention row sums", [round(v, 4) for v in torch.sparse.sum(att, dim=1).to_dense().tolist()])
xs = x.clone().requires_grad_(True)
torch.sparse.sum((xs @ xs.t()).sparse_mask(A)).backward()
print("sparse_mask grad", [round(v, 4) for v in xs.grad[0].tolist()])

# function forms of zero-preserving ops answer sparse tensors as the methods do
signed = torch.sparse_coo_tensor(A.indices(), torch.randn(A._nnz()), A.shape).coalesce()
for name, fn in [("torch.abs", torch.abs), ("torch.neg", torch.neg), ("F.relu", F.relu), ("sqrt(abs)",
                 lambda t: torch.sqrt(torch.abs(t))), ("torch.tanh", torch.tanh), ("torch.sign", torch.sign)]:
    out = fn(signed)
    print(f"{name:15s}", out.layout, [round(v, 4) for v in out.values()[:4].tolist()])
print("relu == method", torch.equal(F.relu(signed).to_dense(), signed.relu().to_dense()))
try:
    torch.exp(signed)
except NotImplementedError as e:
    print("NotImplementedError:", str(e).split(" with ")[0])
