"""Sparse-dense products and their gradients, as a learnable sparse operator in scientific code uses them."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def r(t, k=8):
    return [round(v, 4) for v in t.detach().reshape(-1)[:k].tolist()]


idx = torch.tensor([[0, 0, 1, 2, 2, 3], [0, 2, 1, 0, 3, 3]])
val = torch.randn(6)
A = torch.sparse_coo_tensor(idx, val, (4, 4))
X = torch.randn(4, 3)
print("A values", r(val))

# every spelling of the product gives the same dense result
ref = A.to_dense() @ X
outs = {
    "sparse.mm": torch.sparse.mm(A, X),
    "torch.mm": torch.mm(A, X),
    "matmul": torch.matmul(A, X),
    "@": A @ X,
    "spmm": torch.spmm(A, X),
    "Tensor.mm": A.mm(X),
}
for name, out in outs.items():
    print(f"{name:10s}", out.layout, tuple(out.shape), torch.allclose(out, ref, atol=1e-6))
print("A @ X\n", ref)
print("A @ vec", r(A @ torch.tensor([1.0, 2.0, 3.0, 4.0])))
print("dense @ A", r(X.t() @ A))

# addmm: beta * M + alpha * (A @ X)
M = torch.ones(4, 3)
print("sparse.addmm", r(torch.sparse.addmm(M, A, X, beta=0.5, alpha=-1.0), 12))
print("torch.addmm", r(torch.addmm(M, A, X, beta=2.0), 12))

# gradient to the dense operand: X.grad = A^T @ grad_out
Xg = X.clone().requires_grad_(True)
w = torch.randn(4, 3)
(torch.sparse.mm(A, Xg) * w).sum().backward()
print("X.grad", r(Xg.grad, 12))
print("A^T @ w", r(A.to_dense().t() @ w, 12))

# gradient to the sparse values: a leaf sparse tensor gets a sparse grad with its own pattern
As = torch.sparse_coo_tensor(idx, val.clone(), (4, 4), requires_grad=True)
print("As leaf", As.is_leaf, "requires_grad", As.requires_grad, "grad_fn", As.grad_fn)
loss = (torch.sparse.mm(As, X) * w).sum()
loss.backward()
g = As.grad
print("As.grad layout", g.layout, "nnz", g._nnz(), "coalesced", g.is_coalesced())
gc = g.coalesce()
print("As.grad indices", gc.indices().tolist())
print("As.grad values", r(gc.values()))
dense_grad = w @ X.t()
print("expected at pattern", r(dense_grad[idx[0], idx[1]]))

# values learned through sparse_coo_tensor(indices, values): the gradient lands on the dense values
v = val.clone().requires_grad_(True)
B = torch.sparse_coo_tensor(idx, v, (4, 4))
print("B requires_grad", B.requires_grad)
out = torch.sparse.mm(B, X)
out.pow(2).sum().backward()
print("v.grad", r(v.grad))

# a few steps of fitting the stored values so that A @ X matches a target
target = torch.randn(4, 3)
v = torch.zeros(6, requires_grad=True)
opt = torch.optim.Adam([v], lr=0.1)
for step in range(30):
    opt.zero_grad()
    P = torch.sparse_coo_tensor(idx, v, (4, 4))
    loss = torch.nn.functional.mse_loss(torch.sparse.mm(P, X), target)
    loss.backward()
    opt.step()
    if step % 10 == 0 or step == 29:
        print(f"fit step {step:2d} loss {loss.item():.4f}")
print("fitted values", r(v))

# sparse + sparse, scalar multiples, transpose
A2 = torch.sparse_coo_tensor(torch.tensor([[0, 3], [0, 1]]), torch.tensor([10.0, -1.0]), (4, 4))
S = (A + A2).coalesce()
print("A + A2 nnz", S._nnz(), S.indices().tolist())
print("A + A2 values", r(S.values()))
print("A - A2 dense equal", torch.allclose((A - A2).to_dense(), A.to_dense() - A2.to_dense()))
print("2.5 * A", r((2.5 * A).coalesce().values()), "A * 2 layout", (A * 2).layout)
At = A.t()
print("A.t()", At.layout, At.is_coalesced(), At._indices().tolist())
print("t equal", torch.equal(At.to_dense(), A.to_dense().t()))
print("transpose(0, 1)", torch.equal(A.transpose(0, 1).to_dense(), A.to_dense().T))
print("A.t() @ X", r(torch.sparse.mm(At, X)))

# sparse @ sparse
AA = torch.sparse.mm(A, A)
print("A @ A", AA.layout, AA._nnz(), torch.allclose(AA.to_dense(), A.to_dense() @ A.to_dense(), atol=1e-6))

# gradient through to_dense
Ad = torch.sparse_coo_tensor(idx, val.clone(), (4, 4), requires_grad=True)
(Ad.to_dense() * torch.arange(16.0).reshape(4, 4)).sum().backward()
print("to_dense grad", Ad.grad.coalesce().values().tolist())
