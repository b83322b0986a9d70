"""CUDA kernels of linalg_solve, linalg_inv, linalg_det, linalg_slogdet, linalg_cholesky, linalg_qr,
linalg_eigh and linalg_svd (through eigh of A^T A): the batched one-thread-per-matrix LU,
Cholesky, Householder QR and Jacobi kernels of `kernels.lu`. Like PyTorch's (non-`_ex`)
functions, solve, inv and cholesky read the factorization's status on the host (one
synchronization) to raise `LinAlgError` for singular or indefinite inputs; det and slogdet
never synchronize."""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import lu as KL
from ember.core.dispatch import get_op
from ember.core.ops import linalg_solvers as S
from ember.core.tensor import Tensor

__all__ = ["register"]


def _factor(a: Tensor, b: Tensor | None):
    """LU of the (batch, n, n) matrices `a`, solving for the (batch, n, k) `b`: (X, sign, logabs, info)."""
    batch, n = a._shape[0], a._shape[-1]
    w = get_op("cat")([a, b], 2) if b is not None else get_op("clone")(a)
    w = w if lu.is_dense(w, w._shape) else get_op("clone")(w)
    k = w._shape[2] - n
    dev = a._storage.device
    sign = lu.empty((batch,), a._dtype, dev)
    logabs = lu.empty((batch,), a._dtype, dev)
    info = lu.empty((batch,), dtypes.int64, dev)
    if batch:
        blocks, threads = lu.grid(batch)
        KL.lu_solve(lu.compute_type(a._dtype))[blocks, threads, lu.stream()](
            batch, n, k, lu.typed(w), lu.typed(sign), lu.typed(logabs), lu.typed(info))
    return w.narrow(2, n, k), sign, logabs, info


def _raise_if(info: Tensor, kind: str, A: Tensor) -> None:
    """PyTorch's error for the first matrix whose factorization failed (one synchronization)."""
    if info.numel() and bool(get_op("any")(info, (0,), False).item()):
        raise S.factorization_error(kind, info.tolist(), A.ndim > 2)


def _batched(a: Tensor) -> Tensor:
    """`a` as one batch dimension of matrices (counted, not `-1`: a reshape cannot infer it when a
    matrix is empty)."""
    return a.reshape(int(np.prod(a._shape[:-2], dtype=np.int64)), *a._shape[-2:])


def _inv(A):
    from ember.core.creation import eye

    a = _batched(A)
    n = A._shape[-1]
    ident = eye(n, dtype=A._dtype, device=A._storage.device).expand(a._shape[0], n, n)
    x, _, _, info = _factor(a, ident)
    _raise_if(info, "inv", A)
    return x.reshape(A._shape)


def _det(A):
    _, sign, logabs, _ = _factor(_batched(A), None)
    return get_op("mul")(sign, get_op("exp")(logabs)).reshape(A._shape[:-2])


def _slogdet(A):
    _, sign, logabs, _ = _factor(_batched(A), None)
    return sign.reshape(A._shape[:-2]), logabs.reshape(A._shape[:-2])


def _solve(A, B):
    vector = S.solve_is_vector(A, B)
    n = A._shape[-1]
    b = B.unsqueeze(-1) if vector else B
    lead = tuple(np.broadcast_shapes(A._shape[:-2], b._shape[:-2]))
    k = b._shape[-1]
    a3 = _batched(A.expand(lead + (n, n)))
    b3 = _batched(b.expand(lead + (n, k)))
    x, _, _, info = _factor(a3, b3)
    _raise_if(info, "solve", A)
    x = x.reshape(lead + (n, k))
    return x.squeeze(-1) if vector else x


def _cholesky(A, upper=False):
    a = get_op("clone")(_batched(A.transpose(-2, -1) if upper else A))  # upper: L of A^T (A's upper triangle)
    info = lu.empty((a._shape[0],), dtypes.int64, a._storage.device)
    if a._shape[0]:
        blocks, threads = lu.grid(a._shape[0])
        KL.cholesky(lu.compute_type(A._dtype))[blocks, threads, lu.stream()](
            a._shape[0], A._shape[-1], lu.typed(a), lu.typed(info))
    _raise_if(info, "cholesky", A)
    r = a.reshape(A._shape)
    return get_op("clone")(r.transpose(-2, -1)) if upper else r


def _identity(batch: int, n: int, like: Tensor) -> Tensor:
    from ember.core.creation import eye

    return get_op("clone")(eye(n, dtype=like._dtype, device=like._storage.device).expand(batch, n, n))


def _qr(A, mode="reduced"):
    m, n = A._shape[-2:]
    k = min(m, n)
    r = get_op("clone")(_batched(A))
    batch = r._shape[0]
    q = _identity(batch, m, A)
    if batch and m and n:
        scratch = lu.empty((batch, m), A._dtype, A._storage.device)
        blocks, threads = lu.grid(batch)
        KL.householder_qr(lu.compute_type(A._dtype))[blocks, threads, lu.stream()](
            batch, m, n, lu.typed(r), lu.typed(q), lu.typed(scratch))
    lead = A._shape[:-2]
    if mode == "complete":
        return q.reshape(lead + (m, m)), r.reshape(lead + (m, n))
    r_k = get_op("clone")(r.narrow(1, 0, k)).reshape(lead + (k, n))
    if mode == "r":
        return lu.empty((0,), A._dtype, A._storage.device), r_k
    return get_op("clone")(q.narrow(2, 0, k)).reshape(lead + (m, k)), r_k


def _eigh_batched(a3: Tensor) -> tuple[Tensor, Tensor]:
    """Ascending eigenvalues (batch, n) and eigenvectors (batch, n, n) of symmetric (batch, n, n)."""
    batch, n = a3._shape[0], a3._shape[-1]
    work = get_op("clone")(a3)
    vecs = _identity(batch, n, a3)
    if batch and n:
        blocks, threads = lu.grid(batch)
        KL.jacobi_eigh(lu.compute_type(a3._dtype))[blocks, threads, lu.stream()](
            batch, n, lu.typed(work), lu.typed(vecs), 64)
    w = get_op("clone")(work.diagonal(0, 1, 2))
    order = get_op("sort")(w, 1, False)[1]
    w = get_op("gather")(w, 1, order)
    vecs = get_op("gather")(vecs, 2, order.unsqueeze(1).expand(batch, n, n))
    return w, vecs


def _eigh(A, UPLO="L"):
    a3 = _batched(A)
    lower = UPLO.upper() == "L"  # either case, as the CPU kernel's
    tri = get_op("tril" if lower else "triu")(a3, 0)
    strict = get_op("tril" if lower else "triu")(a3, -1 if lower else 1)
    sym = get_op("add")(tri, strict.transpose(1, 2))
    w, v = _eigh_batched(sym)
    return w.reshape(A._shape[:-1]), v.reshape(A._shape)


def _svd(A, full_matrices=True):
    """U, S (descending), Vh from the eigen-decomposition of A^T A (or A A^T, the smaller); the
    condition number squares, so ill-conditioned inputs lose accuracy against LAPACK's SVD."""
    m, n = A._shape[-2:]
    if full_matrices and m != n:
        raise NotImplementedError("linalg.svd(full_matrices=True) of a non-square matrix has no CUDA kernel; "
                                  "pass full_matrices=False")
    k = min(m, n)
    a3 = _batched(A)
    at = a3.transpose(1, 2)
    wide = m < n
    w, vecs = _eigh_batched(get_op("bmm")(a3, at) if wide else get_op("bmm")(at, a3))
    w, vecs = get_op("flip")(w, (1,)), get_op("flip")(vecs, (2,))
    s = get_op("sqrt")(get_op("clamp")(w, 0, None))
    inv_s = get_op("where")(get_op("gt")(s, 0), get_op("reciprocal")(s), 0.0).unsqueeze(1)
    if wide:
        u, v = vecs, get_op("mul")(get_op("bmm")(at, vecs), inv_s)
    else:
        u, v = get_op("mul")(get_op("bmm")(a3, vecs), inv_s), vecs
    lead = A._shape[:-2]
    return (u.reshape(lead + (m, k)), s.reshape(lead + (k,)),
            get_op("clone")(v.transpose(1, 2)).reshape(lead + (k, n)))


def _eig(A):
    """The general eigendecomposition on the host (LAPACK's geev): no GPU kernel computes the
    nonsymmetric problem here, so A goes to the CPU and the complex results come back."""
    w, v = get_op("linalg_eig").kernels["cpu"](A.cpu())
    return w.to(A.device), v.to(A.device)


def _on_host(name: str):
    """The op's CPU kernel on host copies of the CUDA operands (the pivoted LDL^T's column-by-column
    search has no GPU kernel here); results come back to the first operand's device."""
    def run(*args, **kwargs):
        dev = args[0].device
        res = get_op(name).kernels["cpu"](*(a.cpu() if hasattr(a, "cpu") else a for a in args), **kwargs)
        return tuple(r.to(dev) for r in res) if isinstance(res, tuple) else res.to(dev)
    return run


def register() -> None:
    for name in ("linalg_ldl_factor_ex", "linalg_ldl_solve"):
        get_op(name).register("cuda")(_on_host(name))
    for name, fn in (("linalg_inv", _inv), ("linalg_det", _det), ("linalg_slogdet", _slogdet),
                     ("linalg_solve", _solve), ("linalg_cholesky", _cholesky), ("linalg_qr", _qr),
                     ("linalg_eigh", _eigh), ("linalg_svd", _svd), ("linalg_eig", _eig)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    i = T.int64
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64)):
        yield (f"lu_solve[{label}]", KL.lu_solve_function(acc), (i, i, i, arr, arr, arr, T.int64[::1]))
        yield (f"cholesky[{label}]", KL.cholesky_function(acc), (i, i, arr, T.int64[::1]))
        yield (f"householder_qr[{label}]", KL.householder_qr_function(acc), (i, i, i, arr, arr, arr))
        yield (f"jacobi_eigh[{label}]", KL.jacobi_eigh_function(acc), (i, i, arr, arr, i))
