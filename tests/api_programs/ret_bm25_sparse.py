"""BM25 and TF-IDF scoring over a sparse term-document matrix: COO construction with duplicate entries, coalesce,
CSR conversion, scatter_add document frequencies, sparse-dense products, and the idf variants of Lucene/Okapi."""

import math

import torch

torch.set_printoptions(precision=4)

docs = [[1, 4, 4, 7], [2, 4, 9], [1, 1, 1, 3, 5, 8], [7, 9], [0, 4, 6, 6, 9, 2, 3]]
V, N = 10, len(docs)
rows = torch.cat([torch.full((len(d),), i) for i, d in enumerate(docs)])
cols = torch.tensor([t for d in docs for t in d])
vals = torch.ones(len(cols))
tf = torch.sparse_coo_tensor(torch.stack([rows, cols]), vals, (N, V))
print("coalesced?", tf.is_coalesced(), tf._nnz())
tf = tf.coalesce()
print("coalesced", tf.is_coalesced(), tf._nnz(), tf.indices()[:, :6].tolist(), tf.values()[:6].tolist())
print(tf.dtype, tf.layout, tf.shape, tf.sparse_dim(), tf.dense_dim())

dense = tf.to_dense()
print("dense\n", dense)
doc_len = torch.sparse.sum(tf, dim=1).to_dense()
print("doc_len", doc_len, doc_len.dtype)

# document frequency by scatter_add over the coalesced column indices
df = torch.zeros(V).scatter_add_(0, tf.indices()[1], torch.ones(tf._nnz()))
print("df", df)
print("df bincount", torch.bincount(tf.indices()[1], minlength=V).tolist())
idf_okapi = torch.log((N - df + 0.5) / (df + 0.5))
idf_lucene = torch.log1p((N - df + 0.5) / (df + 0.5))
print("okapi idf", idf_okapi)
print("lucene idf", idf_lucene)

k1, b = 1.5, 0.75
avgdl = doc_len.mean()
r, c = tf.indices()
t = tf.values()
w = t * (k1 + 1) / (t + k1 * (1 - b + b * doc_len[r] / avgdl)) * idf_lucene[c]
bm25 = torch.sparse_coo_tensor(tf.indices(), w, tf.shape)
queries = torch.zeros(3, V)
queries[0, [4, 9]] = 1
queries[1, [1, 3]] = 1
queries[2, 6] = 2
scores = torch.sparse.mm(bm25, queries.T).T
print("bm25 scores\n", scores)
print("top", scores.topk(2, dim=1))
print("mm dense agrees", torch.allclose(bm25.to_dense() @ queries.T, scores.T))

# CSR layout and its compressed rows
csr = bm25.to_sparse_csr()
print("csr", csr.layout, csr.crow_indices().tolist(), csr.col_indices().tolist()[:6])
print("csr values", csr.values()[:4])
print("csr @ dense", (csr @ queries.T).T.allclose(scores))
print("csr nnz", csr._nnz(), csr.shape)

# tf-idf with l2-normalised rows, cosine between docs
tfidf = dense * torch.log(torch.tensor(N) / df.clamp(min=1))
tfidf = torch.nn.functional.normalize(tfidf, dim=1)
print("cos\n", tfidf @ tfidf.T)

# sparse arithmetic
s2 = tf * 2
print("scaled", isinstance(s2, torch.Tensor), s2.is_sparse, s2.coalesce().values()[:4].tolist())
added = (tf + tf).coalesce()
print("add", added.values()[:4].tolist(), added._nnz())
print("t()", tf.t().shape, tf.t().coalesce().indices()[:, :4].tolist())
print("sum", torch.sparse.sum(tf).item(), torch.sparse.sum(tf, dim=0).to_dense().tolist())
print("to_sparse", dense.to_sparse().indices().shape, dense.to_sparse(1).values().shape)
print("softmax", torch.sparse.softmax(tf.coalesce(), dim=1).to_dense()[0])

# uncoalesced duplicates sum on to_dense and in mm
dup = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [2, 2, 0]]), torch.tensor([1.0, 2.0, 5.0]), (2, 3))
print("dup dense", dup.to_dense().tolist(), dup._values().tolist())
print("dup mm", torch.sparse.mm(dup, torch.ones(3, 1)).tolist())
print(dup)
print(dup.coalesce())

for fn in (
    lambda: torch.sparse_coo_tensor(torch.tensor([[0, 5]]), torch.tensor([1.0, 2.0]), (3,), check_invariants=True),
    lambda: tf.values(),
    lambda: torch.sparse.mm(bm25, torch.ones(3, 2)),
    lambda: csr.indices(),
):
    try:
        print("ok", fn().shape)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
print("idf sanity", round(math.log(1 + (5 - 1 + 0.5) / 1.5), 4))
