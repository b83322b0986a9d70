"""An inverted index stored as CSR with int32 offsets, as PISA/pyserini-style exports load it: postings lists
from crow/col indices, sparse_compressed_tensor, impact scoring by CSR @ dense and CSR @ CSR, CSC for term-at-a-time
traversal, and the index dtype every operation keeps or widens."""

import warnings

import torch

torch.set_printoptions(precision=4)
warnings.simplefilter("ignore")

# term -> postings (doc ids ascending) with impacts, exported as int32 offsets
postings = {0: [(1, 2.0), (4, 1.0)], 1: [(0, 1.5)], 2: [], 3: [(0, 0.5), (2, 3.0), (3, 1.0)], 4: [(4, 2.5)]}
offsets = torch.tensor([0] + [len(p) for p in postings.values()], dtype=torch.int32).cumsum(0, dtype=torch.int32)
docs = torch.tensor([d for p in postings.values() for d, _ in p], dtype=torch.int32)
imp = torch.tensor([w for p in postings.values() for _, w in p])
print("offsets", offsets, offsets.dtype)
index = torch.sparse_csr_tensor(offsets, docs, imp, (5, 5))
print(index)
print("dtypes", index.crow_indices().dtype, index.col_indices().dtype, index.values().dtype)
same = torch.sparse_compressed_tensor(offsets, docs, imp, (5, 5), layout=torch.sparse_csr)
print("compressed", same.layout, torch.equal(same.to_dense(), index.to_dense()))
print("postings of term 3", index.col_indices()[offsets[3] : offsets[4]].tolist())
print("doc freq", (index.crow_indices()[1:] - index.crow_indices()[:-1]).tolist())

# query-at-a-time scoring: a bag-of-terms query times the term-doc index
q = torch.tensor([[1.0, 0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0, 2.0]])
scores = (index.t() @ q.T).T
print("scores", scores)
print("top", scores.topk(2, dim=1).indices.tolist())
print("index.t()", index.t().layout, index.t().row_indices().dtype)

# term-at-a-time over CSC (doc-major), the layout change keeps int32
csc = index.to_sparse_csc()
print("csc", csc.ccol_indices().tolist(), csc.row_indices().dtype, csc.to_sparse_csr().crow_indices().dtype)
coo = index.to_sparse_coo()
print("coo", coo.indices().dtype, coo.indices()[:, :4].tolist())

# operations that keep or widen the index dtype
for name, t in (
    ("scaled", index * 0.5),
    ("neg", -index),
    ("sum", index + index),
    ("double", index.double()),
    ("row sums", index.sum(dim=1, keepdim=True)),
    ("masked", index * torch.ones(5, 5)),
    ("product", index @ index.t().to_sparse_csr()),
    ("dense->csr", index.to_dense().to_sparse_csr()),
):
    print(name, t.layout, t.crow_indices().dtype, t.values().dtype)
print("product", (index @ index.t().to_sparse_csr()).col_indices().tolist())

# a query as CSR times the index: sparse scores
qs = q.to_sparse_csr()
s = qs @ index
print("sparse scores", s.layout, s.crow_indices().tolist(), s.col_indices().tolist(), s.values())

for fn in (
    lambda: torch.sparse_compressed_tensor(offsets, docs, imp, (5, 5)),
    lambda: torch.sparse_compressed_tensor(offsets, docs, imp, (5, 5), layout=torch.sparse_coo),
    lambda: torch.sparse_csr_tensor(offsets, docs, imp, (4, 5), check_invariants=True),
    lambda: torch.sparse_csr_tensor(offsets, docs + 5, imp, (5, 5), check_invariants=True),
    lambda: torch.sparse_csr_tensor(offsets.float(), docs, imp, (5, 5)),
    lambda: index @ coo,
    lambda: index.indices(),
):
    try:
        r = fn()
        print("ok", r.layout)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:110])
