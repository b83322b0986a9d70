"""Link prediction with negative sampling and an edge-conditioned MPNN (NNConv + GRU) on a molecule-like batch."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(5)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def arr(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


N, FIN, D = 10, 4, 6
und = np.array([[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 2, 5], [1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 7, 9]])
pos_all = torch.from_numpy(np.concatenate([und, und[::-1]], axis=1))
x = arr(N, FIN)

# edge dropout mask drawn with numpy, applied to the undirected pairs
keep = torch.from_numpy(rng.random(und.shape[1]) > 0.25)
print("kept pairs", keep.tolist())
kept = torch.from_numpy(und)[:, keep]
train_ei = torch.cat([kept, kept.flip(0)], dim=1)
print("train edges", tuple(train_ei.shape))

# adjacency as sparse, CSR and the existing-edge set
A = torch.sparse_coo_tensor(train_ei, torch.ones(train_ei.size(1)), (N, N)).coalesce()
csr = A.to_sparse_csr()
print("csr crow", csr.crow_indices().tolist())
print("csr col", csr.col_indices().tolist())
print("csr @ x agrees", torch.allclose(csr @ x, A @ x), "A.t() symmetric", torch.equal(A.t().to_dense(), A.to_dense()))
print("sparse.addmm", r(torch.sparse.addmm(torch.ones(N, 2), A, torch.ones(N, 2), beta=0.5, alpha=2.0), 6))
print("softmax rows", r(torch.sparse.softmax(A, dim=1).to_dense()[0], 10))

# negative sampling: pairs that are not edges, drawn with numpy
adj = A.to_dense().bool() | torch.eye(N, dtype=torch.bool)
cand = (~adj).nonzero()
cand = cand[cand[:, 0] < cand[:, 1]]
sel = torch.from_numpy(rng.choice(cand.size(0), size=kept.size(1), replace=False))
neg = cand[sel].t()
print("negatives", tuple(neg.shape), "any positive", bool(adj[neg[0], neg[1]].any()))


class NNConv(nn.Module):
    """Edge-conditioned convolution: an edge network maps edge features to D x D weights."""

    def __init__(self, d, edge_dim):
        super().__init__()
        self.d = d
        self.edge_net = nn.Sequential(nn.Linear(edge_dim, 16), nn.ReLU(), nn.Linear(16, d * d))
        self.root = nn.Linear(d, d)

    def forward(self, h, ei, ea):
        W = self.edge_net(ea).view(-1, self.d, self.d)
        msg = torch.bmm(h[ei[0]].unsqueeze(1), W).squeeze(1)
        agg = torch.zeros_like(h).index_add_(0, ei[1], msg)
        deg = torch.bincount(ei[1], minlength=h.size(0)).clamp(min=1).unsqueeze(1)
        return agg / deg + self.root(h)


class MPNN(nn.Module):
    def __init__(self, steps=3):
        super().__init__()
        self.lin0 = nn.Linear(FIN, D)
        self.conv = NNConv(D, 2)
        self.gru = nn.GRU(D, D)
        self.steps = steps

    def forward(self, x, ei, ea):
        out = F.relu(self.lin0(x))
        h = out.unsqueeze(0)
        for _ in range(self.steps):
            m = F.relu(self.conv(out, ei, ea))
            out, h = self.gru(m.unsqueeze(0), h)
            out = out.squeeze(0)
        return out


model = MPNN()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(arr(*p.shape, scale=0.3))
print("gru", model.gru, "weights", [tuple(w.shape) for w in model.gru.all_weights[0]])
edge_attr = torch.stack([torch.ones(train_ei.size(1)), (train_ei[0] - train_ei[1]).abs().float() / N], dim=1)


def score(z, pairs):
    return (z[pairs[0]] * z[pairs[1]]).sum(-1)


opt = torch.optim.AdamW(model.parameters(), lr=0.02)
crit = nn.BCEWithLogitsLoss()
for epoch in range(6):
    opt.zero_grad()
    z = model(x, train_ei, edge_attr)
    logits = torch.cat([score(z, kept), score(z, neg)])
    target = torch.cat([torch.ones(kept.size(1)), torch.zeros(neg.size(1))])
    loss = crit(logits, target)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    if epoch == 0:
        print("z", tuple(z.shape), r(z, 6))
        print("grad edge_net", r(model.conv.edge_net[2].weight.grad, 6), "grad norm", round(gn.item(), 4))
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")


def auc(pos, neg):
    s = torch.cat([pos, neg])
    ranks = torch.empty_like(s).scatter_(0, s.argsort(), torch.arange(1, s.numel() + 1, dtype=s.dtype))
    n_p, n_n = pos.numel(), neg.numel()
    return ((ranks[:n_p].sum() - n_p * (n_p + 1) / 2) / (n_p * n_n)).item()


with torch.no_grad():
    z = model(x, train_ei, edge_attr)
    held = torch.from_numpy(und)[:, ~keep]
    ps, ns = torch.sigmoid(score(z, held)), torch.sigmoid(score(z, neg))
print("held-out pos", r(ps), "neg", r(ns, 4))
print("auc", round(auc(ps, ns), 4))
top = torch.topk(torch.sigmoid(z @ z.t()).masked_fill(adj, -1.0).flatten(), 3)
print("top new links", [(i // N, i % N) for i in top.indices.tolist()], r(top.values))
print("BCE manual", round(F.binary_cross_entropy(torch.sigmoid(logits), target).item(), 4),
      "pos_weight", round(F.binary_cross_entropy_with_logits(logits, target, pos_weight=torch.tensor(2.0)).item(), 4))

# gradient w.r.t. the sparse matrix values through sparse.mm
vals = torch.ones(train_ei.size(1), requires_grad=True)
S = torch.sparse_coo_tensor(train_ei, vals, (N, N))
y = torch.sparse.mm(S, x)
y.sum().backward()
print("grad vals", r(vals.grad, 10))

try:
    crit(logits, target.long())
except (RuntimeError, ValueError) as e:
    print(type(e).__name__ + ":", e)
try:
    crit(logits, target[:-1])
except ValueError as e:
    print("ValueError:", e)
print("OK")
