"""GCN (Kipf & Welling) with a symmetric-normalized sparse adjacency, trained on a toy node-classification task."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(7)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


N, F_IN, HID, C = 12, 5, 8, 3
# a ring plus a few chords, undirected
ring = np.stack([np.arange(N), (np.arange(N) + 1) % N])
chords = np.array([[0, 3, 5, 8], [6, 9, 11, 2]])
ei = np.concatenate([ring, chords], axis=1)
ei = np.concatenate([ei, ei[::-1]], axis=1)
edge_index = torch.from_numpy(ei).long()
print("edge_index", tuple(edge_index.shape), edge_index.dtype)

x = torch.from_numpy(rng.standard_normal((N, F_IN)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, C, N))


def normalized_adjacency(edge_index, n):
    loops = torch.arange(n).unsqueeze(0).repeat(2, 1)
    ei = torch.cat([edge_index, loops], dim=1)
    w = torch.ones(ei.size(1))
    A = torch.sparse_coo_tensor(ei, w, (n, n))
    print("is_coalesced before", A.is_coalesced(), "nnz", A._nnz())
    A = A.coalesce()
    print("is_coalesced after", A.is_coalesced(), "nnz", A._nnz(), "layout", A.layout)
    deg = torch.sparse.sum(A, dim=1).to_dense()
    dinv = deg.pow(-0.5)
    dinv[torch.isinf(dinv)] = 0.0
    idx = A.indices()
    vals = dinv[idx[0]] * A.values() * dinv[idx[1]]
    return torch.sparse_coo_tensor(idx, vals, (n, n)).coalesce(), deg


A_hat, deg = normalized_adjacency(edge_index, N)
print("deg", deg.tolist())
print("A_hat values", r(A_hat.values(), 6))
dense = A_hat.to_dense()
print("dense sym", torch.allclose(dense, dense.t()), "row sums", r(dense.sum(1), 4))
print("A_hat repr head", repr(A_hat).splitlines()[0])


class GCNLayer(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(fin, fout))
        self.bias = nn.Parameter(torch.zeros(fout))

    def forward(self, x, adj):
        support = x @ self.weight
        return torch.sparse.mm(adj, support) + self.bias


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.gc1 = GCNLayer(F_IN, HID)
        self.gc2 = GCNLayer(HID, C)
        self.dropout = 0.5

    def forward(self, x, adj):
        h = F.relu(self.gc1(x, adj))
        h = F.dropout(h, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(h, adj), dim=1)


model = GCN()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() == 2:
            p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
print(model)
print("params", [(n, tuple(p.shape)) for n, p in model.named_parameters()])

train_mask = torch.zeros(N, dtype=torch.bool)
train_mask[:6] = True
val_mask = ~train_mask
print("masks", train_mask.sum().item(), val_mask.sum().item(), train_mask.dtype)

opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
model.eval()  # deterministic: no dropout
for epoch in range(30):
    opt.zero_grad()
    out = model(x, A_hat)
    loss = F.nll_loss(out[train_mask], y[train_mask])
    loss.backward()
    if epoch == 0:
        print("grad gc1", r(model.gc1.weight.grad, 6))
        print("grad gc2 bias", r(model.gc2.bias.grad))
    opt.step()
    if epoch % 10 == 9:
        with torch.no_grad():
            pred = model(x, A_hat).argmax(dim=1)
            acc_tr = (pred[train_mask] == y[train_mask]).float().mean().item()
            acc_va = (pred[val_mask] == y[val_mask]).sum().item() / int(val_mask.sum())
        print(f"epoch {epoch + 1} loss {loss.item():.4f} train {acc_tr:.4f} val {acc_va:.4f}")

with torch.no_grad():
    logp = model(x, A_hat)
print("log_softmax exp sums", r(logp.exp().sum(1), 4))
print("pred", logp.argmax(1).tolist())

# sparse vs dense agree, and gradient flows through sparse.mm into the dense operand
h = torch.from_numpy(rng.standard_normal((N, 2)).astype(np.float32)).requires_grad_()
out_s = torch.sparse.mm(A_hat, h)
out_d = dense @ h
print("sparse==dense", torch.allclose(out_s, out_d, atol=1e-6))
out_s.pow(2).sum().backward()
print("h.grad", r(h.grad, 6))

# two-hop propagation (SGC): A^2 X computed by repeated sparse products
sgc = torch.sparse.mm(A_hat, torch.sparse.mm(A_hat, x))
print("sgc", tuple(sgc.shape), r(sgc, 6))

# coalesce sums duplicate entries
dup = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [1, 1, 0]]), torch.tensor([1.0, 2.0, 3.0]), (2, 2))
print("dup coalesced", dup.coalesce().values().tolist(), dup.to_dense().tolist())

# a typical mistake: shape mismatch in sparse.mm
try:
    torch.sparse.mm(A_hat, torch.ones(N + 1, 2))
except RuntimeError as e:
    print("RuntimeError", type(e).__name__)
print("OK")
