"""SPLADE-style learned sparse retrieval: log(1 + relu) max-pooled term weights, the FLOPS regularizer, top-k
pruning into COO/CSR document and query matrices, sparse-sparse scoring (CSR @ CSR, torch.sparse.mm, dsmm/hsmm),
and the layout mistakes of mixing COO with CSR."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

V, H = 12, 6
emb = nn.Embedding(V, H)
mlm = nn.Linear(H, V)
docs = torch.tensor([[1, 4, 4, 7, 0], [2, 9, 3, 0, 0], [5, 5, 8, 1, 6]])
qry = torch.tensor([[4, 9, 0], [5, 1, 0]])


def splade(ids):
    logits = mlm(emb(ids))
    mask = (ids != 0).unsqueeze(-1)
    w = torch.log1p(torch.relu(logits)) * mask
    return w.amax(dim=1)


d_rep, q_rep = splade(docs), splade(qry)
print("doc reps", d_rep.shape, (d_rep > 0).sum(1).tolist())
flops = (d_rep.abs().mean(0) ** 2).sum()
loss = -F.log_softmax(q_rep @ d_rep.T, dim=1)[torch.arange(2), torch.tensor([0, 2])].mean() + 1e-2 * flops
loss.backward()
print("loss", round(loss.item(), 4), "flops", round(flops.item(), 4), "grad", mlm.weight.grad.abs().sum() > 0)

# prune to the top-k terms per document and build sparse matrices
with torch.no_grad():
    k = 4
    v, i = d_rep.topk(k, dim=1)
    keep = v > 0
    rows = torch.arange(3).unsqueeze(1).expand(-1, k)[keep]
    D = torch.sparse_coo_tensor(torch.stack([rows, i[keep]]), v[keep], (3, V)).coalesce()
    qv, qi = q_rep.topk(3, dim=1)
    Q = torch.sparse_coo_tensor(torch.stack([torch.arange(2).repeat_interleave(3), qi.flatten()]), qv.flatten(), (2, V))
print("D nnz", D._nnz(), D.indices()[1].tolist())
print("Q coalesced?", Q.is_coalesced(), Q.coalesce()._nnz())

# COO @ COO stays COO; CSR @ CSR is CSR with unsorted columns
s1 = torch.sparse.mm(Q.coalesce(), D.t().coalesce())
print("coo scores", s1.layout, s1.to_dense())
Qc, Dc = Q.coalesce().to_sparse_csr(), D.t().coalesce().to_sparse_csr()
s2 = Qc @ Dc
print("csr scores", s2.layout, s2.crow_indices().tolist(), s2.col_indices().tolist())
print("csr values", s2.values(), torch.allclose(s2.to_dense(), s1.to_dense()))
print("mm csr csc", torch.mm(Qc, D.t().coalesce().to_dense().to_sparse_csc()).layout)
print("dense scores", torch.dsmm(Q, D.to_dense().T))
h = torch.hsmm(Q.coalesce(), D.to_dense().T)
print("hybrid", h.sparse_dim(), h.dense_dim(), h._indices().tolist(), h._values().shape, h.is_coalesced())
print("top docs", torch.dsmm(Q, D.to_dense().T).argmax(1).tolist())

# the sparse gradient of a scoring product
Dg = torch.sparse_coo_tensor(D.indices(), D.values().clone().requires_grad_(), D.shape)
out = torch.sparse.mm(Dg, torch.ones(V, 1))
out.sum().backward()
print("values grad", out.grad_fn.name(), Dg.grad is None)

for fn in (
    lambda: Q.coalesce() @ Dc,
    lambda: Qc @ D.t().coalesce(),
    lambda: torch.sparse.mm(Q.coalesce(), Dc),
    lambda: torch.mm(Qc, torch.ones(V)),
    lambda: torch.mm(Q, torch.ones(V)),
    lambda: torch.dsmm(Q, 2),
    lambda: torch.hsmm(Qc, torch.ones(V, 2)),
    lambda: Qc @ Dc.to(torch.float64),
):
    try:
        r = fn()
        print("ok", r.layout, r.shape)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:110])
