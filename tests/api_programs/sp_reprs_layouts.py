"""Printing sparse tensors and reading their layout attributes, as notebooks and debugging sessions do."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)

i = torch.tensor([[0, 1, 2], [2, 0, 1]])
v = torch.tensor([0.123456, -7.5, 1e-3])
S = torch.sparse_coo_tensor(i, v, (3, 3))
print(S)
print(repr(S.coalesce()))
print(str(S.double()))
print(S.long())
print(S.bool())
print(S.half())

# requires_grad and grad_fn in the repr
Sg = torch.sparse_coo_tensor(i, v, (3, 3), requires_grad=True)
print(Sg)
Sm = Sg * 2
print(Sm)
print("grad_fn", type(Sm.grad_fn).__name__)
Sc = Sg.coalesce()
print("coalesce grad_fn", type(Sc.grad_fn).__name__)
torch.sparse.mm(Sg, torch.ones(3, 2)).sum().backward()
print("grad")
print(Sg.grad)

# 1-D, 3-D and hybrid tensors
print(torch.sparse_coo_tensor(torch.tensor([[1, 3]]), torch.tensor([2.0, -1.0]), (5,)))
T3 = torch.zeros(2, 2, 3)
T3[0, 1, 2] = 1.5
T3[1, 0, 0] = -2.0
print(T3.to_sparse())
print(T3.to_sparse(2))
print(torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.long), torch.empty(0), (2, 2)))
print(torch.sparse_coo_tensor(torch.empty(1, 0, dtype=torch.long), torch.empty(0, 3), (4, 3)))

# larger values: the shared scale and exponent formats of the values print
big = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([12345.678, 0.0001]), (2, 2))
print(big)
ints = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1]]), torch.tensor([100, -3, 7]), (2,))
print(ints)

# CSR reprs
D = torch.tensor([[0.0, 1.25, 0.0], [0.0, 0.0, 0.0], [3.5, 0.0, -1.0]])
csr = D.to_sparse_csr()
print(csr)
print(csr.double())
print(torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([1, 0]), torch.tensor([1.0, 2.0]),
                              requires_grad=True))
print(torch.zeros(2, 2).to_sparse_csr())

# layout attributes across tensor kinds
for name, t in [("dense", D), ("coo", D.to_sparse()), ("csr", csr), ("coo grad", Sg.grad)]:
    print(f"{name:9s} layout={t.layout} is_sparse={t.is_sparse} is_sparse_csr={t.is_sparse_csr} "
          f"sparse_dim={t.sparse_dim()} dense_dim={t.dense_dim()} dtype={t.dtype} device={t.device}")
print("layouts", torch.strided, torch.sparse_coo, torch.sparse_csr, torch.sparse_csc)
print("layout types", type(torch.sparse_coo).__name__, torch.sparse_coo == torch.sparse_coo,
      torch.sparse_coo == torch.strided)
print("layout in dict", {torch.sparse_coo: "coo", torch.strided: "dense"}[S.layout])
print("isinstance Tensor", isinstance(S, torch.Tensor), "is_tensor", torch.is_tensor(S))
print("shape", S.shape, S.size(), S.size(0), S.dim(), S.ndim, S.numel())
print("type", S.type(), S.double().type(), S.long().type())
print("is_floating_point", S.is_floating_point(), S.long().is_floating_point())
print("element_size", S.element_size(), "is_cuda", S.is_cuda, "is_leaf", S.is_leaf, Sm.is_leaf)
print("requires_grad", Sg.requires_grad, S.requires_grad)

# layout-aware code paths as libraries write them
def describe(t):
    if t.layout == torch.sparse_coo:
        return f"COO nnz={t._nnz()}"
    if t.layout == torch.sparse_csr:
        return f"CSR nnz={t._nnz()} rows={t.crow_indices().numel() - 1}"
    return f"dense nonzero={int((t != 0).sum())}"


for t in (D, D.to_sparse(), csr):
    print(describe(t))

# factories with a layout
print(torch.zeros(2, 3, layout=torch.sparse_coo))
E = torch.empty(3, 3, layout=torch.sparse_coo)
print("empty sparse", E.layout, E._nnz())
print("zeros_like", torch.zeros_like(S).layout, torch.zeros_like(S)._nnz())
print("sparse_coo_tensor size only", torch.sparse_coo_tensor(size=(2, 4)))
