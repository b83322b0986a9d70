"""LightGCN on a user-item graph: a normalised sparse adjacency, layer-averaged propagation, BPR with L2 on ego rows."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(111)
torch.set_printoptions(precision=4)

n_users, n_items = 7, 9
R = (torch.rand(n_users, n_items) < 0.3).float()
R[R.sum(1) == 0, 0] = 1.0
u_idx, i_idx = R.nonzero(as_tuple=True)
print("edges", u_idx.numel(), "user degree", R.sum(1).long().tolist())

# bipartite adjacency [[0, R], [R^T, 0]] as COO, symmetric normalisation D^-1/2 A D^-1/2
N = n_users + n_items
rows = torch.cat([u_idx, i_idx + n_users])
cols = torch.cat([i_idx + n_users, u_idx])
A = torch.sparse_coo_tensor(torch.stack([rows, cols]), torch.ones(rows.numel()), (N, N)).coalesce()
deg = torch.sparse.sum(A, dim=1).to_dense()
print("A", A.shape, A._nnz(), "deg", deg.long().tolist())
d_inv_sqrt = deg.pow(-0.5)
d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.0
ai = A.indices()
norm_vals = d_inv_sqrt[ai[0]] * A.values() * d_inv_sqrt[ai[1]]
A_hat = torch.sparse_coo_tensor(ai, norm_vals, (N, N)).coalesce()
print("A_hat values head", A_hat.values()[:5])
dense_check = torch.diag(d_inv_sqrt) @ A.to_dense() @ torch.diag(d_inv_sqrt)
print("normalisation matches dense", torch.allclose(A_hat.to_dense(), dense_check, atol=1e-6))
print("symmetric", torch.allclose(A_hat.to_dense(), A_hat.to_dense().T))
eig = torch.linalg.eigvalsh(A_hat.to_dense().double())
print("spectrum in [-1, 1]", bool((eig.abs() <= 1 + 1e-9).all()), "top eig", round(eig[-1].item(), 4))
A_csr = A_hat.to_sparse_csr()
print("csr", A_csr.layout, A_csr.crow_indices()[:6].tolist(), A_csr.col_indices().shape)


class LightGCN(nn.Module):
    def __init__(self, d=8, n_layers=3):
        super().__init__()
        self.emb = nn.Embedding(N, d)
        nn.init.normal_(self.emb.weight, std=0.1)
        self.n_layers = n_layers
        self.register_buffer("alpha", torch.full((n_layers + 1,), 1.0 / (n_layers + 1)))

    def propagate(self, adj):
        e = self.emb.weight
        layers = [e]
        for _ in range(self.n_layers):
            e = torch.sparse.mm(adj, e)
            layers.append(e)
        stacked = torch.stack(layers, dim=1)
        return (stacked * self.alpha.view(1, -1, 1)).sum(1), stacked

    def forward(self, adj):
        out, _ = self.propagate(adj)
        return torch.split(out, [n_users, n_items])


model = LightGCN()
users_e, items_e = model(A_hat)
print("final", users_e.shape, items_e.shape)
_, stacked = model.propagate(A_hat)
print("layer norms", stacked.norm(dim=(0, 2)))
csr_out = torch.sparse.mm(A_csr, model.emb.weight)
print("csr product agrees", torch.allclose(csr_out, torch.sparse.mm(A_hat, model.emb.weight), atol=1e-6))
print("A_hat @ dense agrees", torch.allclose(A_hat @ model.emb.weight, A_hat.to_dense() @ model.emb.weight, atol=1e-6))

# gradient flows through the sparse products back to the embedding table
users_e, items_e = model(A_hat)
(users_e[0] * items_e[1]).sum().backward()
g = model.emb.weight.grad
print("grad rows touched", int((g.abs().sum(1) > 0).sum()), "of", N, "grad norm", round(g.norm().item(), 4))
model.zero_grad()

opt = torch.optim.Adam(model.parameters(), lr=0.05)
gen = torch.Generator().manual_seed(2)
for epoch in range(40):
    users_e, items_e = model(A_hat)
    pick = torch.randint(0, u_idx.numel(), (16,), generator=gen)
    bu, bp = u_idx[pick], i_idx[pick]
    bn = torch.randint(0, n_items, (16,), generator=gen)
    pos_s = (users_e[bu] * items_e[bp]).sum(1)
    neg_s = (users_e[bu] * items_e[bn]).sum(1)
    ego = model.emb.weight
    reg = 1e-3 * (ego[bu].pow(2).sum() + ego[bp + n_users].pow(2).sum() + ego[bn + n_users].pow(2).sum()) / 16
    loss = F.softplus(neg_s - pos_s).mean() + reg
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0 or epoch == 39:
        print(f"epoch {epoch:2d} loss {loss.item():.4f} reg {reg.item():.6f}")

with torch.no_grad():
    users_e, items_e = model(A_hat)
    scores = users_e @ items_e.T
train_auc = []
for u in range(n_users):
    pos = scores[u][R[u] > 0]
    neg = scores[u][R[u] == 0]
    if len(neg):
        train_auc.append((pos.unsqueeze(1) > neg.unsqueeze(0)).float().mean())
print("train auc per user", torch.stack(train_auc))
print("top-3 per user", scores.topk(3, dim=1).indices.tolist())
print("alpha buffer", model.alpha, "state keys", list(model.state_dict()))
