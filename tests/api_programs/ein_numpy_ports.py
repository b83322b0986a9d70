"""numpy tensor-algebra code ported to torch line by line, each result checked against numpy's: einsum with
numpy's habits, tensordot/kron/outer/inner, trace and diagonal with offsets, the tril/triu index helpers,
cumulative ops, rot90/roll/flip, and torch.backends.opt_einsum's switches."""

import numpy as np
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
rng = np.random.default_rng(0)

A = rng.standard_normal((3, 4))
B = rng.standard_normal((4, 5))
S = rng.standard_normal((4, 4))
X = rng.standard_normal((2, 3, 4))
tA, tB, tS, tX = (torch.from_numpy(a) for a in (A, B, S, X))
print("from_numpy dtype", tA.dtype, "shares memory:", np.shares_memory(tA.numpy(), A))


def check(name, t, ref):
    ok = np.allclose(t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t), ref)
    print(f"{name}: {tuple(t.shape) if isinstance(t, torch.Tensor) else ()} matches numpy: {ok}")


check("einsum matmul", torch.einsum("ij,jk->ik", tA, tB), np.einsum("ij,jk->ik", A, B))
check("einsum implicit", torch.einsum("ij,jk", tA, tB), np.einsum("ij,jk", A, B))
check("einsum implicit transpose", torch.einsum("ji", tA), np.einsum("ji", A))
check("einsum trace", torch.einsum("ii", tS), np.einsum("ii", S))
check("einsum diag", torch.einsum("ii->i", tS), np.einsum("ii->i", S))
check("einsum ellipsis", torch.einsum("...ij,jk->...ik", tX, tB), np.einsum("...ij,jk->...ik", X, B))
check("einsum batch trace", torch.einsum("bii->b", tX[:, :3, :3]), np.einsum("bii->b", X[:, :3, :3]))
check("einsum sublist", torch.einsum(tA, [0, 1], tB, [1, 2], [0, 2]), np.einsum(A, [0, 1], B, [1, 2], [0, 2]))
check("einsum three operands", torch.einsum("ij,jk,kl->il", tA, tB, tB.T),
      np.einsum("ij,jk,kl->il", A, B, B.T, optimize=True))
# numpy's einsum views: "ij->ji" and "ii->i" return views in both libraries
v_np = np.einsum("ii->i", S)
v_t = torch.einsum("ii->i", tS)
print("numpy diag view writeable:", v_np.flags.writeable, "torch view shares:", v_t.data_ptr() == tS.data_ptr(),
      "stride", v_t.stride())
C = rng.standard_normal((3, 4))
check("tensordot axes=2", torch.tensordot(tX, torch.from_numpy(C), dims=2), np.tensordot(X, C, axes=2))
check("tensordot axes pairs", torch.tensordot(tX, tA, dims=([1, 2], [0, 1])), np.tensordot(X, A, axes=([1, 2], [0, 1])))
check("tensordot axes=0", torch.tensordot(tA[0], tB[0], dims=0), np.tensordot(A[0], B[0], axes=0))
check("kron", torch.kron(tA[:2, :2], tS[:2, :3]), np.kron(A[:2, :2], S[:2, :3]))
check("kron 1-d", torch.kron(tA[0], tB[0]), np.kron(A[0], B[0]))
check("outer", torch.outer(tA[0], tB[0]), np.outer(A[0], B[0]))
check("inner", torch.inner(tA, tS), np.inner(A, S))
check("inner 3-d", torch.inner(tX, tA), np.inner(X, A))
check("vdot", torch.vdot(tA.flatten(), tA.flatten()), np.vdot(A, A))
check("dot 1-d", torch.dot(tA[0], tA[1]), np.dot(A[0], A[1]))
check("matmul broadcast", tX @ tB, X @ B)
check("multi_dot", torch.linalg.multi_dot([tA, tB, tB.T]), np.linalg.multi_dot([A, B, B.T]))
check("matrix_power", torch.linalg.matrix_power(tS, 3), np.linalg.matrix_power(S, 3))
check("matrix_power -2", torch.linalg.matrix_power(tS, -2), np.linalg.matrix_power(S, -2))
check("cross", torch.linalg.cross(tA[:, :3], tS[:3, :3]), np.cross(A[:, :3], S[:3, :3]))
check("cross axis 0", torch.cross(tA[:, :2], tS[:3, :2], dim=0), np.cross(A[:, :2], S[:3, :2], axis=0))

# trace and diagonal with offsets: numpy's trace(offset) is torch's diagonal(offset).sum()
for off in (-2, -1, 0, 1, 3):
    t = torch.diagonal(tA, offset=off).sum()
    print(f"trace offset {off}: {t.item():.4f} numpy {np.trace(A, offset=off):.4f}")
check("diagonal axes", torch.diagonal(tX, 1, 0, 2), np.diagonal(X, 1, 0, 2))
check("diag build", torch.diag(tA[0], -1), np.diag(A[0], -1))
check("diag extract", torch.diag(tA, 2), np.diag(A, 2))
check("diagflat", torch.diagflat(tA[:2, :2], 1), np.diagflat(A[:2, :2], 1))
check("fill_diagonal_", tS.clone().fill_diagonal_(0.0), (lambda m: (np.fill_diagonal(m, 0.0), m)[1])(S.copy()))

# index helpers
for off in (0, 1, -1):
    r, c = np.tril_indices(4, off, 5)
    ti = torch.tril_indices(4, 5, off)
    print(f"tril_indices offset {off} match:", np.array_equal(ti[0].numpy(), r) and np.array_equal(ti[1].numpy(), c))
    r, c = np.triu_indices(4, off, 5)
    ti = torch.triu_indices(4, 5, off)
    print(f"triu_indices offset {off} match:", np.array_equal(ti[0].numpy(), r) and np.array_equal(ti[1].numpy(), c))
iu = torch.triu_indices(4, 4, 1)
print("upper values", tS[iu[0], iu[1]])
print("triu_indices_from style:", np.array_equal(S[np.triu_indices_from(S, 1)], tS[iu[0], iu[1]].numpy()))
check("tril", torch.tril(tS, -1), np.tril(S, -1))
check("triu", torch.triu(tA, 1), np.triu(A, 1))

# cumulative ops and their numpy names
check("cumsum", torch.cumsum(tA, 1), np.cumsum(A, 1))
check("cumprod", torch.cumprod(tA, 0), np.cumprod(A, 0))
check("cummax (maximum.accumulate)", torch.cummax(tA, 1).values, np.maximum.accumulate(A, 1))
check("cummin (minimum.accumulate)", torch.cummin(tA, 0).values, np.minimum.accumulate(A, 0))
check("logcumsumexp (logaddexp.accumulate)", torch.logcumsumexp(tA, 1), np.logaddexp.accumulate(A, 1))
check("diff", torch.diff(tA, dim=1), np.diff(A, axis=1))
check("flatten cumsum (axis=None)", tA.flatten().cumsum(0), np.cumsum(A))

# rearrangements
check("rot90", torch.rot90(tA), np.rot90(A))
check("rot90 k=-1 axes", torch.rot90(tX, -1, (1, 2)), np.rot90(X, -1, (1, 2)))
check("roll", torch.roll(tA, 2, 1), np.roll(A, 2, 1))
check("roll flat", torch.roll(tA, -3), np.roll(A, -3))
check("roll tuple", torch.roll(tX, (1, -1), (0, 2)), np.roll(X, (1, -1), (0, 2)))
check("flip", torch.flip(tX, (0, 2)), np.flip(X, (0, 2)))
check("fliplr/flipud", torch.fliplr(tA), np.fliplr(A))
check("moveaxis", torch.moveaxis(tX, 0, -1), np.moveaxis(X, 0, -1))
check("swapaxes", torch.swapaxes(tX, 0, 2), np.swapaxes(X, 0, 2))
check("broadcast_to", torch.broadcast_to(tA[0], (2, 4)), np.broadcast_to(A[0], (2, 4)))
print("broadcast_shapes", torch.broadcast_shapes((3, 1), (1, 4)), np.broadcast_shapes((3, 1), (1, 4)))
gx, gy = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")
nx, ny = np.meshgrid(np.arange(3), np.arange(2))
print("meshgrid xy (numpy default):", np.array_equal(gx.numpy(), nx), np.array_equal(gy.numpy(), ny))
gi, gj = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
ni, nj = np.meshgrid(np.arange(3), np.arange(2), indexing="ij")
print("meshgrid ij:", np.array_equal(gi.numpy(), ni), np.array_equal(gj.numpy(), nj))
check("block_diag (scipy)", torch.block_diag(tA[:1, :2], tS[:2, :1]),
      np.block([[A[:1, :2], np.zeros((1, 1))], [np.zeros((2, 2)), S[:2, :1]]]))
cp = torch.cartesian_prod(torch.arange(2), torch.arange(3))
print("cartesian_prod == stacked meshgrid:",
      np.array_equal(cp.numpy(), np.stack(np.meshgrid(np.arange(2), np.arange(3), indexing="ij"), -1).reshape(-1, 2)))

# opt_einsum: PyTorch without the package contracts left to right; numpy's optimize= has no torch argument
oe = torch.backends.opt_einsum
print("opt_einsum available:", oe.is_available(), "enabled:", oe.enabled, "strategy:", oe.strategy)
try:
    oe.set_flags(True)
except ValueError as e:
    print("enable:", str(e)[:80])
with oe.flags(enabled=False):
    print("inside flags:", oe.enabled, torch.einsum("ij,jk,kl->il", tA, tB, tB.T).shape)
try:
    torch.einsum("ij,jk->ik", tA, tB, optimize=True)
except TypeError as e:
    print("optimize=:", type(e).__name__)
