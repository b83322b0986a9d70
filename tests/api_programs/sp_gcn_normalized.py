"""A Kipf-Welling GCN with a normalized sparse adjacency built by scatter/index ops, trained full-batch."""

import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=4)
torch.manual_seed(0)

# a small graph: two communities joined by one edge
edges = torch.tensor([[0, 1], [0, 2], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [4, 6], [6, 7], [5, 7]]).t()
N = 8
edge_index = torch.cat([edges, edges.flip(0)], dim=1)
print("edge_index", tuple(edge_index.shape))

# add self loops, then degree by scatter_add and D^-1/2 A D^-1/2 on the edge list
loops = torch.arange(N).unsqueeze(0).repeat(2, 1)
ei = torch.cat([edge_index, loops], dim=1)
row, col = ei
w = torch.ones(ei.size(1))
deg = torch.zeros(N).scatter_add_(0, row, w)
print("deg", deg.tolist())
deg_inv_sqrt = deg.pow(-0.5)
deg_inv_sqrt[torch.isinf(deg_inv_sqrt)] = 0
norm = deg_inv_sqrt[row] * w * deg_inv_sqrt[col]
A_hat = torch.sparse_coo_tensor(ei, norm, (N, N)).coalesce()
print("A_hat nnz", A_hat._nnz(), "row sums", [round(x, 4) for x in torch.sparse.sum(A_hat, dim=1).to_dense().tolist()])

# the same normalization with index_add_ and bincount, and a dense check
deg2 = torch.zeros(N).index_add_(0, row, w)
print("index_add deg equal", torch.equal(deg, deg2), "bincount", torch.bincount(row, minlength=N).tolist())
Ad = torch.zeros(N, N)
Ad[row, col] = 1.0
Dm = torch.diag(Ad.sum(1).pow(-0.5))
print("dense norm equal", torch.allclose(A_hat.to_dense(), Dm @ Ad @ Dm, atol=1e-6))

# torch.sparse.sum over dims
print("sparse.sum all", round(torch.sparse.sum(A_hat).item(), 4))
s0 = torch.sparse.sum(A_hat, dim=0)
print("sparse.sum dim0", s0.layout, s0._nnz(), [round(x, 4) for x in s0.to_dense().tolist()])
print("sparse.sum dims", round(torch.sparse.sum(A_hat, dim=(0, 1)).item(), 4))


class GCNConv(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.lin = nn.Linear(fin, fout, bias=False)
        self.bias = nn.Parameter(torch.zeros(fout))
        nn.init.xavier_uniform_(self.lin.weight)

    def forward(self, x, adj):
        return torch.sparse.mm(adj, self.lin(x)) + self.bias


class GCN(nn.Module):
    def __init__(self, fin, hid, nclass, p=0.5):
        super().__init__()
        self.c1 = GCNConv(fin, hid)
        self.c2 = GCNConv(hid, nclass)
        self.p = p

    def forward(self, x, adj):
        h = F.relu(self.c1(x, adj))
        h = F.dropout(h, self.p, self.training)
        return F.log_softmax(self.c2(h, adj), dim=1)


x = torch.eye(N)
y = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
train_mask = torch.tensor([True, False, False, False, False, False, False, True])
model = GCN(N, 4, 2)
print(model)
opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
for epoch in range(40):
    model.train()
    opt.zero_grad()
    out = model(x, A_hat)
    loss = F.nll_loss(out[train_mask], y[train_mask])
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch:2d} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    out = model(x, A_hat)
pred = out.argmax(1)
print("pred", pred.tolist(), "acc", (pred == y).float().mean().item())
print("log-probs row0", [round(v, 4) for v in out[0].tolist()])
print("grad c1 lin", [round(v, 4) for v in model.c1.lin.weight.grad.flatten()[:6].tolist()])

# sparse softmax / log_softmax over each row's stored entries (attention-like scores on edges)
scores = torch.sparse_coo_tensor(ei, torch.randn(ei.size(1)), (N, N)).coalesce()
att = torch.sparse.softmax(scores, dim=1)
print("softmax layout", att.layout, "nnz", att._nnz())
print("softmax row sums", [round(v, 4) for v in torch.sparse.sum(att, dim=1).to_dense().tolist()])
print("softmax row0", [round(v, 4) for v in att.to_dense()[0].tolist()])
latt = torch.sparse.log_softmax(scores, dim=1)
print("log_softmax exp equal", torch.allclose(latt.coalesce().values().exp(), att.coalesce().values(), atol=1e-6))
dense_scores = scores.to_dense().masked_fill(scores.to_dense() == 0, float("-inf"))
print("matches masked dense", torch.allclose(att.to_dense(), torch.softmax(dense_scores, 1), atol=1e-6))
print("softmax dim0 col0", [round(v, 4) for v in torch.sparse.softmax(scores, 0).to_dense()[:, 0].tolist()])

# gradient through the sparse softmax to the edge scores
sv = scores.values().clone().requires_grad_(True)
S = torch.sparse_coo_tensor(scores.indices(), sv, (N, N))
h = torch.sparse.mm(torch.sparse.softmax(S, dim=1), torch.arange(float(N)).unsqueeze(1))
h.sum().backward()
print("score grads", [round(v, 4) for v in sv.grad[:8].tolist()])
