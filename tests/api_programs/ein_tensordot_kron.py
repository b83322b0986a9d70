"""tensordot with int and list dims, kron, block_diag, cartesian_prod, combinations and the tril/triu index
helpers, as feature-engineering and structured-matrix code uses them."""

import itertools

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

a = torch.randn(3, 4, 5)
b = torch.randn(4, 5, 2)
print("tensordot dims=2", tuple(torch.tensordot(a, b, dims=2).shape))
print(torch.tensordot(a, b, dims=2))
print("tensordot dims=0 shape", tuple(torch.tensordot(torch.randn(2, 3), torch.randn(4), dims=0).shape))
c = torch.randn(5, 3)
print("tensordot list dims", torch.tensordot(a, c, dims=([2, 0], [0, 1])))
print("tensordot tuple of ints", torch.tensordot(a, torch.randn(5, 6), dims=([2], [0])).shape)
m1 = torch.randn(2, 3)
m2 = torch.randn(3, 2)
print("tensordot dims=1 == matmul:", torch.allclose(torch.tensordot(m1, m2, dims=1), m1 @ m2, atol=1e-6))
print("tensordot tensor dims", torch.tensordot(m1, m2.T, dims=torch.tensor([[0, 1], [0, 1]])))
print("einsum equivalent", torch.einsum("ijk,kil->jl", a, torch.randn(5, 3, 2)).shape)
x = torch.randn(3, 4, requires_grad=True)
y = torch.randn(4, 3, requires_grad=True)
torch.tensordot(x, y, dims=([0, 1], [1, 0])).backward()
print("tensordot grads equal transposes:", torch.equal(x.grad, y.T), torch.equal(y.grad, x.T))
try:
    torch.tensordot(a, b, dims=([0], [0]))
except RuntimeError as e:
    print("tensordot mismatch:", e)
try:
    torch.tensordot(a, b, dims=([0, 1], [0]))
except RuntimeError as e:
    print("tensordot dims lengths:", e)
try:
    torch.tensordot(a, b, dims=-1)
except RuntimeError as e:
    print("tensordot negative:", e)

# kron
A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
I2 = torch.eye(2)
print("kron(A, I)", torch.kron(A, I2))
print("kron(I, A)", torch.kron(I2, A))
print("kron 1-d", torch.kron(torch.tensor([1, 2, 3]), torch.tensor([1, 10])))
print("kron mixed ranks", torch.kron(torch.ones(2), A).shape, torch.kron(torch.ones(2, 1, 2), A).shape)
B = torch.randn(3, 3)
C = torch.randn(2, 2)
D = torch.randn(3, 3)
E = torch.randn(2, 2)
lhs = torch.kron(B, C) @ torch.kron(D, E)
rhs = torch.kron(B @ D, C @ E)
print("mixed-product property:", torch.allclose(lhs, rhs, atol=1e-5))
X = torch.randn(3, 2)
vec = lambda M: M.T.reshape(-1)  # noqa: E731
kCB = torch.kron(C.T.contiguous(), B)
print("vec(BXC) = (C^T kron B) vec X:", torch.allclose(vec(B @ X @ C), kCB @ vec(X), atol=1e-5))
print("kron int dtype", torch.kron(torch.tensor([[1, 2]]), torch.tensor([[3], [4]])))
kk = torch.randn(2, 2, requires_grad=True)
torch.kron(kk, torch.arange(4.0).reshape(2, 2)).sum().backward()
print("kron grad", kk.grad)

# block_diag
bd = torch.block_diag(torch.ones(2, 2), 2 * torch.ones(1, 3), torch.tensor([[5.0]]))
print("block_diag", bd.shape)
print(bd)
print("block_diag 1-d and scalar", torch.block_diag(torch.tensor([1, 2]), torch.tensor(7)))
print("block_diag promotes", torch.block_diag(torch.ones(1, 1, dtype=torch.int32), torch.ones(1, 1)).dtype)
print("block_diag empty block", torch.block_diag(torch.ones(2, 2), torch.empty(0, 2), torch.ones(1, 1)))
try:
    torch.block_diag(torch.ones(2, 2, 2))
except RuntimeError as e:
    print("block_diag 3-d:", e)

# cartesian_prod and combinations
u = torch.tensor([1, 2, 3])
w = torch.tensor([10, 20])
cp = torch.cartesian_prod(u, w)
print("cartesian_prod", cp.tolist())
print("matches itertools:", cp.tolist() == [list(t) for t in itertools.product(u.tolist(), w.tolist())])
print("cartesian_prod single", torch.cartesian_prod(u))
print("cartesian_prod three", torch.cartesian_prod(torch.tensor([0, 1]), torch.tensor([0, 1]), torch.tensor([5])))
print("combinations r=2", torch.combinations(u).tolist())
print("combinations r=3", torch.combinations(torch.arange(4), r=3).tolist())
print("combinations with_replacement", torch.combinations(u, with_replacement=True).tolist())
print("combinations r=0", torch.combinations(u, r=0))
print("combinations r>n", torch.combinations(u, r=4).shape)
fl = torch.tensor([0.5, -1.5, 2.0, 3.0])
pairs = torch.combinations(fl, 2)
print("pairwise products", pairs.prod(1))
try:
    torch.combinations(torch.ones(2, 2))
except RuntimeError as e:
    print("combinations 2-d:", e)

# polynomial features of degree 2 through combinations_with_replacement on indices
feats = torch.randn(4, 3)
idx = torch.combinations(torch.arange(3), 2, with_replacement=True)
poly = feats[:, idx[:, 0]] * feats[:, idx[:, 1]]
print("poly features", poly.shape)
print(poly)

# tril / triu indices with offsets
for off in (0, 1, -1, 2, -3):
    print(f"tril_indices(4, 3, {off})", torch.tril_indices(4, 3, off).tolist())
    print(f"triu_indices(4, 3, {off})", torch.triu_indices(4, 3, off).tolist())
print("dtype", torch.tril_indices(3, 3).dtype, torch.triu_indices(3, 3, dtype=torch.int32).dtype)
print("empty", torch.tril_indices(0, 3).shape, torch.triu_indices(3, 3, 5).shape)
# pack/unpack a symmetric matrix by its upper triangle
S = torch.randn(4, 4)
S = S + S.T
iu = torch.triu_indices(4, 4)
packed = S[iu[0], iu[1]]
print("packed", packed.shape, packed)
U = torch.zeros(4, 4)
U[iu[0], iu[1]] = packed
full = U + U.T - torch.diag(U.diagonal())
print("round trip:", torch.equal(full, S))
il = torch.tril_indices(4, 4, -1)
print("strict lower count", il.shape[1], "== n(n-1)/2:", il.shape[1] == 4 * 3 // 2)
# pairwise distances over unique pairs
pts = torch.randn(5, 2)
iu1 = torch.triu_indices(5, 5, 1)
d = (pts[iu1[0]] - pts[iu1[1]]).norm(dim=1)
print("pdist matches:", torch.allclose(d, torch.pdist(pts), atol=1e-6))
print("pdist", torch.pdist(pts))
