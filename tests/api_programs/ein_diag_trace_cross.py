"""The diagonal family as covariance, Jacobian and geometry code uses it: diag/diagflat/diag_embed/diagonal with
offsets and dims (and their strides and storage), trace, and cross products over a chosen dim, with gradients."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

v = torch.tensor([1.0, 2.0, 3.0])
print("diag(v)", torch.diag(v))
print("diag(v, 1)", torch.diag(v, 1))
print("diag(v, -2)", torch.diag(v, -2))
M = torch.arange(12.0).reshape(3, 4)
for k in (0, 1, -1, 3, -2, 4):
    print(f"diag(M, {k})", torch.diag(M, k))
print("diagflat", torch.diagflat(torch.tensor([[1, 2], [3, 4]])))
print("diagflat offset", torch.diagflat(v, -1))
dg = torch.diagonal(M)
print("diagonal view", dg, dg.stride(), dg.storage_offset(), dg._base is M)
d1 = M.diagonal(offset=1)
d2 = M.diagonal(offset=-1)
print("diagonal offsets", d1, d1.storage_offset(), d2, d2.storage_offset())
M2 = M.clone()
M2.diagonal().fill_(-1)
print("write through diagonal", M2)
M2.diagonal(1).add_(100)
print("write through offset diagonal", M2)
T = torch.arange(24.0).reshape(2, 3, 4)
for args in ((0, 0, 1), (0, 1, 2), (1, 2, 1), (-1, 0, 2), (0, -1, -2)):
    d = torch.diagonal(T, *args)
    print(f"diagonal{args}", tuple(d.shape), d.stride(), d.storage_offset(), d.tolist())

# diag_embed: batched diagonal matrices
b = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print("diag_embed", torch.diag_embed(b))
e1 = torch.diag_embed(b, offset=1)
print("diag_embed offset 1", e1.shape, e1[1])
e2 = torch.diag_embed(b, offset=-1, dim1=0, dim2=2)
print("diag_embed dims (0, 2)", e2.shape)
print(e2)
print("diag_embed round trip:", torch.equal(torch.diagonal(torch.diag_embed(b), dim1=-2, dim2=-1), b))
print("diag_embed(offset, dims) round trip:", torch.equal(torch.diagonal(e2, offset=-1, dim1=0, dim2=2), b))
try:
    torch.diag_embed(b, dim1=1, dim2=1)
except RuntimeError as err:
    print("diag_embed same dims:", err)
try:
    torch.diagonal(M, dim1=1, dim2=1)
except RuntimeError as err:
    print("diagonal same dims:", err)
try:
    torch.diag(T)
except RuntimeError as err:
    print("diag 3-d:", err)

# covariance and precision matrices: diagonal extraction and construction
X = torch.randn(50, 3)
C = torch.cov(X.T)
print("cov", C)
std = C.diagonal().sqrt()
corr = C / torch.outer(std, std)
print("corr diag", corr.diagonal())
print("corrcoef matches:", torch.allclose(corr, torch.corrcoef(X.T), atol=1e-5))
Dinv = torch.diag(1 / std)
print("D^-1 C D^-1 == corr:", torch.allclose(Dinv @ C @ Dinv, corr, atol=1e-5))
L = torch.linalg.cholesky(C)
print("logdet via cholesky diag", round(2 * L.diagonal().log().sum().item(), 4), round(torch.logdet(C).item(), 4))
print("batched logdet", (2 * torch.linalg.cholesky(torch.stack([C, 2 * C])).diagonal(dim1=-2, dim2=-1).log().sum(-1)))
# add jitter to a diagonal in place, as GP code does
K = torch.ones(3, 3)
K.diagonal().add_(1e-3)
print("jittered", K.diagonal())
K.diagonal(dim1=-2, dim2=-1).copy_(torch.tensor([5.0, 6.0, 7.0]))
print("copied diag", K)

# trace
print("trace", torch.trace(M), M.trace(), torch.trace(torch.eye(4)))
i32 = torch.arange(9, dtype=torch.int32).reshape(3, 3)
print("trace int", torch.trace(torch.arange(9).reshape(3, 3)), torch.trace(i32).dtype)
print("trace == diagonal sum == einsum:", torch.trace(C).item() == C.diagonal().sum().item(),
      torch.allclose(torch.einsum("ii", C), torch.trace(C)))
print("batched trace", torch.diagonal(T[:, :3, :3], dim1=-2, dim2=-1).sum(-1))
A = torch.randn(3, 3, requires_grad=True)
torch.trace(A @ A).backward()
print("grad of tr(A^2) == 2 A^T:", torch.allclose(A.grad, 2 * A.T.detach()))
try:
    torch.trace(T)
except RuntimeError as err:
    print("trace 3-d:", err)

# gradients through diagonal ops
x = torch.randn(3, requires_grad=True)
(torch.diag_embed(x, offset=1) * torch.arange(16.0).reshape(4, 4)).sum().backward()
print("diag_embed grad", x.grad)
Y = torch.randn(3, 4, requires_grad=True)
(torch.diagonal(Y, 1) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("diagonal grad", Y.grad)
Z = torch.randn(2, 2, requires_grad=True)
torch.diagflat(Z).pow(2).sum().backward()
print("diagflat grad == 2Z:", torch.allclose(Z.grad, 2 * Z.detach()))
print("grad_fns", torch.diag(x).grad_fn.name(), torch.diagonal(Y).grad_fn.name(), torch.diag_embed(x).grad_fn.name(),
      torch.trace(A).grad_fn.name())

# cross products
i, j, k = torch.eye(3)
print("i x j", torch.linalg.cross(i, j), "j x k", torch.linalg.cross(j, k), "k x i", torch.linalg.cross(k, i))
p = torch.randn(4, 3)
q = torch.randn(4, 3)
c = torch.linalg.cross(p, q)
print("cross", c)
print("orthogonal:", torch.allclose((c * p).sum(-1), torch.zeros(4), atol=1e-5))
print("anticommutative:", torch.allclose(torch.linalg.cross(q, p), -c))
pc = p.T.contiguous()
qc = q.T.contiguous()
print("cross dim=0", torch.allclose(torch.cross(pc, qc, dim=0), c.T, atol=1e-6))
print("linalg.cross dim=0", torch.allclose(torch.linalg.cross(pc, qc, dim=0), c.T, atol=1e-6))
print("broadcast cross", torch.linalg.cross(p, torch.tensor([[0.0, 0.0, 1.0]])).shape)
print("int cross", torch.linalg.cross(torch.tensor([1, 0, 0]), torch.tensor([0, 1, 0])))
# triangle normals and areas
tri = torch.tensor([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                    [[0.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]])
n = torch.linalg.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0], dim=-1)
print("normals", n, "areas", 0.5 * n.norm(dim=-1))
# angular velocity: v = w x r, with gradients
w = torch.tensor([0.0, 0.0, 2.0], requires_grad=True)
r = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], requires_grad=True)
vel = torch.linalg.cross(w.expand_as(r), r)
print("velocities", vel)
vel.pow(2).sum().backward()
print("dw", w.grad, "dr", r.grad)
print("cross grad_fn", vel.grad_fn.name())
for name, fn in [
    ("cross size", lambda: torch.linalg.cross(torch.randn(2, 4), torch.randn(2, 4))),
    ("cross dim", lambda: torch.linalg.cross(torch.randn(3, 2), torch.randn(3, 2), dim=1)),
    ("cross broadcast", lambda: torch.linalg.cross(torch.randn(2, 3), torch.randn(4, 3))),
    ("cross dims", lambda: torch.linalg.cross(torch.randn(3), torch.randn(2, 3, 3), dim=0)),
]:
    try:
        fn()
    except RuntimeError as err:
        print(f"{name}: {err}")
