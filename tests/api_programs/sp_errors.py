"""What PyTorch refuses on sparse tensors, caught and printed as users debug them (type and message)."""

import torch

torch.set_printoptions(precision=4)

A = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1], [1, 0, 2]]), torch.tensor([1.0, 2.0, 3.0]), (2, 3))
D = torch.ones(2, 3)
C = D.to_sparse_csr()
H = torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), (2, 2))


def attempt(label, fn, first_sentence=False):
    try:
        out = fn()
    except (RuntimeError, NotImplementedError, ValueError, TypeError) as e:
        msg = str(e)
        if first_sentence:
            msg = msg.split(". ")[0].split(": ember")[0]
        print(f"{label}: {type(e).__name__}: {msg}")
    else:
        if isinstance(out, torch.Tensor):
            print(f"{label}: ok {out.layout} {tuple(out.shape)}")
        else:
            print(f"{label}: ok {out}")


# dense kernels refuse the sparse layout (the first sentence names op and backend)
attempt("view", lambda: A.view(6), True)
attempt("exp", lambda: torch.exp(A), True)
attempt("clamp", lambda: A.clamp(0, 1), True)

# addition rules: sparse + dense is refused, dense + sparse must match in size exactly
attempt("sparse + dense", lambda: A + D)
attempt("dense + sparse", lambda: D + A)
attempt("dense(3) + sparse", lambda: torch.ones(3) + A)
attempt("sparse + sparse sizes", lambda: A + torch.sparse_coo_tensor(torch.tensor([[0], [0]]), torch.ones(1), (3, 3)))
attempt("dense.add_(sparse) sizes", lambda: torch.ones(3, 3).add_(A))
attempt("long.add_(float sparse)", lambda: torch.ones(2, 3, dtype=torch.long).add_(A))
acc = torch.zeros(2, 3)
acc.add_(A, alpha=2.0)
acc.sub_(A)
print("dense accumulate", acc.tolist())
print("dense.mul_(sparse)", torch.full((2, 3), 2.0).mul_(A).tolist())
out = torch.empty(2, 3)
torch.add(D, A, out=out)
print("add out=", out.tolist())

# division only by a scalar or a 0-dim dense tensor
attempt("sparse / 2", lambda: A / 2)
attempt("sparse / 0-dim", lambda: A / torch.tensor(4.0))
attempt("sparse / vector", lambda: A / torch.tensor([1.0, 2.0, 3.0]))
attempt("sparse / sparse", lambda: A / A)
attempt("dense / sparse", lambda: D / A)
attempt("csr / 2", lambda: C / 2)
attempt("csr * 2", lambda: C * 2)

# elementwise product of sparse tensors of different sizes
attempt("sparse * sparse sizes", lambda: A * torch.sparse_coo_tensor(torch.tensor([[0]]), torch.ones(1), (3,)))

# transposes of hybrid tensors
attempt("hybrid.t()", lambda: H.t())
attempt("hybrid.transpose", lambda: H.transpose(0, 1))
attempt("A.t()", lambda: A.t())

# layout-specific accessors
attempt("A.indices()", lambda: A.indices())
attempt("A.values()", lambda: A.values())
attempt("A.crow_indices()", lambda: A.crow_indices())
attempt("A.col_indices()", lambda: A.col_indices())
attempt("C.indices()", lambda: C.indices())
attempt("C.coalesce()", lambda: C.coalesce())
attempt("C.is_coalesced()", lambda: C.is_coalesced())
attempt("D.coalesce()", lambda: D.coalesce())
attempt("D.indices()", lambda: D.indices())
attempt("D.values()", lambda: D.values())
attempt("C.stride()", lambda: C.stride())
attempt("A.stride()", lambda: A.stride())
attempt("D.sparse_dim()", lambda: D.sparse_dim())
attempt("D.to_dense()", lambda: D.to_dense())

# construction errors
attempt("nnz mismatch", lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.ones(3), (3,)))
attempt("index too large", lambda: torch.sparse_coo_tensor(torch.tensor([[0, 5]]), torch.ones(2), (3,),
                                                          check_invariants=True))
attempt("float indices", lambda: torch.sparse_coo_tensor(torch.tensor([[0.0, 1.0]]), torch.ones(2), (3,)))
attempt("size too short", lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1], [0, 1]]), torch.ones(2), (3,)))
attempt("csr crow end", lambda: torch.sparse_csr_tensor(torch.tensor([0, 1, 4]), torch.tensor([0, 1, 2]),
                                                        torch.ones(3), (2, 3), check_invariants=True))
attempt("false is_coalesced", lambda: torch.sparse_coo_tensor(torch.tensor([[1, 0]]), torch.ones(2), (3,),
                                                              is_coalesced=True, check_invariants=True))

# the sparse module's own refusals
attempt("sparse.softmax(dense)", lambda: torch.sparse.softmax(D, 1), True)
attempt("sparse.log_softmax(dense)", lambda: torch.sparse.log_softmax(D, 0), True)
attempt("sparse.addmm into sparse", lambda: torch.sparse.addmm(A, A, torch.ones(3, 3)))
attempt("sparse.mm shapes", lambda: torch.sparse.mm(A, torch.ones(2, 2)))
attempt("sparse.mm dtypes", lambda: torch.sparse.mm(A, torch.ones(3, 2, dtype=torch.float64)))
attempt("sparse.sum", lambda: torch.sparse.sum(A, dim=1))

# optimizers and sparse gradients
emb = torch.nn.Embedding(4, 2, sparse=True)
emb(torch.tensor([1, 2])).sum().backward()
attempt("Adam + sparse grad", lambda: torch.optim.Adam(emb.parameters()).step())
attempt("RMSprop + sparse grad", lambda: torch.optim.RMSprop(emb.parameters()).step())
attempt("Adagrad weight_decay", lambda: torch.optim.Adagrad(emb.parameters(), weight_decay=0.1).step())
attempt("SGD weight_decay", lambda: torch.optim.SGD(emb.parameters(), lr=0.1, weight_decay=0.1).step())
attempt("clip_grad_norm_", lambda: torch.nn.utils.clip_grad_norm_(emb.parameters(), 1.0), True)
attempt("SGD plain", lambda: torch.optim.SGD(emb.parameters(), lr=0.1).step())
attempt("EmbeddingBag max sparse", lambda: torch.nn.EmbeddingBag(4, 2, mode="max", sparse=True))
attempt("EmbeddingBag mean psw", lambda: torch.nn.EmbeddingBag(4, 2, mode="mean")(
    torch.tensor([[0, 1]]), per_sample_weights=torch.ones(1, 2)))
