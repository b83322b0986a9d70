"""Matrix functions on LAPACK (through numpy.linalg, batched over leading dims): inv, det,
slogdet, solve, cholesky, qr, svd, eigh as primitives; pinv, matrix_rank, matrix_power,
multi_dot, cross, logdet and the matrix norms composed from them. They fill `ember.core.linalg` (`torch.linalg`) and
PyTorch's older top-level names (`inverse`, `det`, `svd` with V, `qr`, `pinverse` ...).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np
from ember.core import dtypes
from ember.core.dispatch import composite, declare, node_name
from ember.core.methods import method, numpy_aliases
from ember.core.ops import elementwise as ew
from ember.core.ops import shape as S
from ember.core.ops._util import internally, normalize_dims, warn_once, wrap
from ember.core.ops.arguments import parsed
from ember.core.ops.parser_errors import overloads
from ember.core.ops.complex import conj
from ember.core.ops.linalg import _c_name, _matmul, _refuse_bool, linalg
from ember.core.ops.linalg_checks import check_solver_shapes
from ember.core.ops.reduce import _amax, _amin, _sum, vector_norm
from ember.core.ops.structseq import return_type
from ember.core.tensor import Tensor

__all__ = ["inverse", "det", "logdet", "slogdet", "cholesky", "qr", "svd", "pinverse", "matrix_power",
           "chain_matmul", "cross", "LinAlgError"]


class LinAlgError(RuntimeError):
    """A matrix function failed on its input (singular, not positive-definite ...), as `torch.linalg.LinAlgError`."""


# PyTorch's class is torch._C._LinAlgError: printed names (type(e).__name__, repr, tracebacks) say so
LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
_LinAlgError = LinAlgError  # what pickle looks the class up by


def _rt(name: str, fields: list[str]):
    return return_type(name, fields)


_Slogdet = _rt("slogdet", ["sign", "logabsdet"])
_LinalgSlogdet = _rt("linalg_slogdet", ["sign", "logabsdet"])
_QR = _rt("linalg_qr", ["Q", "R"])
_QR_legacy = _rt("qr", ["Q", "R"])
_SVD = _rt("linalg_svd", ["U", "S", "Vh"])
_SVD_V = _rt("svd", ["U", "S", "V"])
_Eigh = _rt("linalg_eigh", ["eigenvalues", "eigenvectors"])


def _mH(x: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (the transpose of a real tensor)."""
    return conj(S.transpose(x, -2, -1))


def _check_matrices(A: Tensor, op: str, square: bool = True, kernel: str | None = None,
                    integral: bool = False) -> None:
    """PyTorch's checks of a linalg input: at least 2-D, (square,) float32/float64/complex64/complex128. Where
    PyTorch lets half (and, `integral`, integer and bool) through to its LAPACK kernel, that kernel's
    NotImplementedError names `kernel`."""
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if square and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    if kernel is not None:
        refuse_dtype(A, kernel, integral)
    if A._dtype is dtypes.float16 or A._dtype is dtypes.bfloat16:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {dtypes.TORCH_NAMES[A._dtype.name]}")
    if not (A._dtype.is_floating_point or A._dtype.is_complex):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.TORCH_NAMES[A._dtype.name]}")


def refuse_dtype(A: Tensor, kernel: str, integral: bool = False) -> None:
    """PyTorch's CPU LAPACK kernel `kernel` has no half instance (nor, `integral`, an integer or bool one)."""
    from ember.core.ops.numeric import not_implemented_for

    dt = A._dtype
    if dt is dtypes.float16 or dt is dtypes.bfloat16 or (integral and not (dt.is_floating_point or dt.is_complex)):
        raise not_implemented_for(kernel, dt)


def factorization_error(kind: str, infos, batched: bool) -> LinAlgError:
    """PyTorch's error for the first failed matrix, raised by the CPU and the CUDA kernels alike: `kind`
    'inv', 'solve' or 'cholesky'; `infos` per matrix (flat batch order) the 1-based zero pivot of its LU
    or the order of its first non-positive-definite leading minor, 0 where it factored."""
    i, k = next(((i, int(k)) for i, k in enumerate(infos) if k), (0, 0))
    where = f"(Batch element {i}): " if batched else ""
    if kind == "inv":
        return LinAlgError(f"linalg.inv: {where}The diagonal element {k} is zero, the inversion could not be "
                           f"completed because the input matrix is singular.")
    if kind == "solve":
        return LinAlgError(f"torch.linalg.solve: {where}The solver failed because the input matrix is singular.")
    return LinAlgError(f"linalg.cholesky: {where}The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {k} is not positive-definite).")


def _zero_pivot(a: np.ndarray) -> int:
    """The 1-based column of the first zero pivot of `a`'s LU with partial pivoting (LAPACK's info; a complex
    pivot is the largest |re| + |im|, as izamax)."""
    w = np.array(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    n = w.shape[0]
    for c in range(n):
        p = c + int(np.argmax(np.abs(w[c:, c].real) + np.abs(w[c:, c].imag)))
        if w[p, c] == 0:
            return c + 1
        w[[c, p]] = w[[p, c]]
        w[c + 1:, c:] -= np.outer(w[c + 1:, c] / w[c, c], w[c, c:])
    return n


def cholesky_partial(a: np.ndarray) -> tuple[np.ndarray, int]:
    """LAPACK potf2's lower factor of one matrix `a` (n, n) in its own dtype, read from its lower triangle, and
    its info: where a leading minor is not positive-definite, the columns before it factored, the failing
    pivot's updated value (real) on the diagonal, later columns as given, the strict upper triangle zero."""
    n = a.shape[0]
    w = np.tril(a)
    for j in range(n):
        row = w[j, :j]
        ajj = w[j, j].real - np.vdot(row, row).real
        if not ajj > 0:
            w[j, j] = ajj
            return w, j + 1
        ajj = np.sqrt(ajj)
        w[j, j] = ajj
        w[j + 1:, j] = (w[j + 1:, j] - w[j + 1:, :j] @ row.conj()) * (1 / ajj)
    return w, 0


def _lapack_infos(kind: str, a: np.ndarray) -> list[int]:
    """`factorization_error`'s infos for the batch `a` (*, n, n): 0 where the matrix factors."""
    if kind == "cholesky":
        return [cholesky_partial(m)[1] for m in a.reshape(-1, *a.shape[-2:])]
    out = []
    for m in a.reshape(-1, *a.shape[-2:]):
        try:
            np.linalg.inv(m)
            out.append(0)
        except np.linalg.LinAlgError:
            out.append(_zero_pivot(m))
    return out


def _square_meta(op: str, kernel: str | None = None):
    """The meta step of an op of one square-matrix argument (and options the kernel takes as given)."""
    def check(A, *args, **kwargs) -> None:
        _check_matrices(A, op, kernel=kernel)
    return check


def _lapack(fn, *args, message: str):
    try:
        return fn(*args)
    except np.linalg.LinAlgError:
        raise LinAlgError(message) from None


def _factor_or_raise(kind: str, fn, a: np.ndarray, *args):
    """`fn(a, *args)`, or PyTorch's error naming the failed matrix and pivot (found on this path only)."""
    try:
        return fn(a, *args)
    except np.linalg.LinAlgError:
        raise factorization_error(kind, _lapack_infos(kind, a), a.ndim > 2) from None


def _own(r: np.ndarray, dt: dtypes.dtype) -> Tensor:
    """The tensor of LAPACK's fresh result `r` (wrap takes ownership; it copies odd layouts itself)."""
    return wrap(np.asarray(r, dtype=dt.np))


def _own_cm(r: np.ndarray, dt: dtypes.dtype) -> Tensor:
    """`_own` for a matrix result that PyTorch's LAPACK kernels return column-major (LAPACK's own layout): each
    matrix transposed in memory, strides `(m*n, 1, m)`, so `.view(-1)` of it refuses as PyTorch's does."""
    return column_major(np.asarray(r, dtype=dt.np))


def column_major(r: np.ndarray) -> Tensor:
    """The tensor of `r` (..., m, n) laid out as a batch of column-major matrices (PyTorch's LAPACK results):
    strides `(m*n, 1, m)` even where a size-1 dim lets numpy call either layout C-contiguous (a `(4, 1)` solve's
    strides are `(1, 4)`, as PyTorch's)."""
    if r.ndim < 2:
        return wrap(r)
    t = wrap(np.ascontiguousarray(np.swapaxes(r, -1, -2)))
    st = t._strides
    return Tensor._make(t._storage, 0, r.shape, st[:-2] + (st[-1], st[-2]), t._dtype)


# --- primitives ------------------------------------------------------------------------------
_inv = declare("linalg_inv", np.linalg.inv, doc="linalg_inv(A) -> Tensor")


_inv.meta(_square_meta("linalg.inv"))


@_inv.register("cpu")
def _inv_cpu(A):
    """linalg_inv(A): (*, n, n) -> (*, n, n). A matrix with NaN or inf goes through LAPACK's own order (getf2,
    getrs), as PyTorch's: numpy's inverse of it can be partly finite where PyTorch's is NaN."""
    a = A._np()
    bad = _lu_cases(a, np.zeros(a.shape[:-2], dtype=bool))
    if not len(bad):
        return _own_cm(_factor_or_raise("inv", np.linalg.inv, a), A._dtype)
    flat = np.array(a, dtype=np.result_type(a.dtype, np.float32)).reshape((-1,) + a.shape[-2:])
    good = np.setdiff1d(np.arange(len(flat)), bad)
    infos = [0] * len(flat)
    if len(good):
        try:
            flat[good] = np.linalg.inv(flat[good])
        except np.linalg.LinAlgError:
            for j, k in zip(good, _lapack_infos("inv", flat[good]), strict=True):
                infos[j] = k
    eye = np.eye(a.shape[-1], dtype=flat.dtype)
    for i in bad:
        zero = np.flatnonzero(np.diagonal(getf2(flat[i])[0]) == 0)  # a zero pivot stays on U's diagonal
        infos[i] = int(zero[0]) + 1 if len(zero) else 0
        flat[i] = getrs(flat[i], eye)
    if any(infos):
        raise factorization_error("inv", infos, a.ndim > 2)
    return _own_cm(flat.reshape(a.shape), A._dtype)


_det = declare("linalg_det", np.linalg.det, doc="linalg_det(A) -> Tensor")


_det.meta(_square_meta("linalg.det", "lu_cpu"))


@_det.register("cpu")
def _det_cpu(A):
    """linalg_det(A): (*, n, n) -> (*). numpy's det stops at a zero pivot and says 0; PyTorch multiplies the
    whole LU diagonal, so a matrix with NaN or inf, or a singular one, takes that product here (NaN, -0.0)."""
    a = A._np()
    with np.errstate(all="ignore"):
        d = _lu_det(a) if 0 < a.shape[-1] <= _LU_DET_MAX_N else np.array(np.linalg.det(a))
        for i in _lu_cases(a, d == 0):
            sign, diag = _getf2_diagonal(a.reshape((-1,) + a.shape[-2:])[i])
            d.reshape(-1)[i] = sign * np.prod(diag)
    return _own(d, A._dtype)


_LU_DET_MAX_N = 64  # larger matrices take numpy's det: one LAPACK call, rounding aside the same value


def _lu_det(a: np.ndarray) -> np.ndarray:
    """det as PyTorch takes it: the row-swap sign times the product of getrf's U diagonal, batched over `a`'s
    leading dims. numpy's det goes through log|u_ii| and exp, so an integer matrix's det is off by ulps
    (15.000000000000007, where PyTorch prints 15.)."""
    n = a.shape[-1]
    w = np.array(a.reshape((-1, n, n)), dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    rows = np.arange(w.shape[0])
    sign = np.ones(w.shape[0])
    for c in range(n):
        p = c + np.argmax(np.abs(w[:, c:, c].real) + np.abs(w[:, c:, c].imag), axis=1)
        top, pivot_row = w[rows, c].copy(), w[rows, p].copy()
        w[rows, p], w[rows, c] = top, pivot_row
        sign[p != c] *= -1
        z = w[:, c, c]
        nz = z != 0
        inv = np.ones_like(z)
        inv[nz] = z[nz].conjugate() / (z[nz].real ** 2 + z[nz].imag ** 2) if np.iscomplexobj(w) else 1 / z[nz]
        w[:, c + 1:, c] *= inv[:, None]
        w[:, c + 1:, c + 1:] -= w[:, c + 1:, c, None] * w[:, c, None, c + 1:]
    return (sign * np.prod(np.diagonal(w, axis1=1, axis2=2), axis=1)).reshape(a.shape[:-2])


def _lu_cases(a: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """The flat indices of the matrices of `a` that are not finite, or whose determinant numpy gave as 0."""
    if a.shape[-1] == 0:
        return np.zeros(0, dtype=np.int64)
    bad = ~np.isfinite(a).all(axis=(-2, -1)) | zero
    return np.flatnonzero(bad)


def getf2(a: np.ndarray) -> tuple[np.ndarray, list[int], float]:
    """LAPACK getf2's packed LU of one square matrix, its 0-based row swaps and their sign, through NaN and zero
    pivots: the pivot is the first largest |re| + |im| (a NaN wins only in first place), a zero pivot neither
    swaps nor scales, and the column is scaled by the pivot's reciprocal (complex as Fortran divides: 1 / inf is
    NaN there)."""
    w = np.array(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    n, sign, piv = w.shape[0], 1.0, []
    with np.errstate(all="ignore"):
        for c in range(n):
            mag = np.abs(w[c:, c].real) + np.abs(w[c:, c].imag)
            p = c
            for k in range(1, len(mag)):
                if mag[k] > mag[p - c]:
                    p = c + k
            piv.append(p)
            if w[p, c] != 0:
                if p != c:
                    w[[c, p]] = w[[p, c]]
                    sign = -sign
                z = w[c, c]
                w[c + 1:, c] *= z.conjugate() / (z.real * z.real + z.imag * z.imag) if np.iscomplexobj(w) else 1 / z
            w[c + 1:, c + 1:] -= np.outer(w[c + 1:, c], w[c, c + 1:])
    return w, piv, sign


def _getf2_diagonal(a: np.ndarray) -> tuple[float, np.ndarray]:
    """The row-swap sign and U's diagonal of `getf2(a)`."""
    w, _, sign = getf2(a)
    return sign, np.diagonal(w).copy()


def _fortran_div(x: np.ndarray, z):
    """x / z as PyTorch's LAPACK divides: complex by a zero pivot gives NaN (x conj(z) / |z|^2), not numpy's inf;
    any other quotient is numpy's."""
    if not np.iscomplexobj(x) and not np.iscomplexobj(z):
        return x / z
    z = np.asarray(z)
    with np.errstate(all="ignore"):
        return np.where(z == 0, x * np.conj(z) / (z.real * z.real + z.imag * z.imag), x / np.where(z == 0, 1, z))


def getrs(a: np.ndarray, b: np.ndarray, transpose: bool = False) -> np.ndarray:
    """X with a X = b (a^T X = b when `transpose`; b (n, k)) through getf2's LU of `a` and LAPACK getrs's order,
    as PyTorch's CPU solves a singular matrix: its zero pivot divides, so X holds infs and NaNs."""
    lu, piv, _ = getf2(a)
    x = np.array(b, dtype=lu.dtype)
    n = lu.shape[0]
    with np.errstate(all="ignore"):
        if not transpose:  # P L U x = b
            for c, p in enumerate(piv):
                if p != c:
                    x[[c, p]] = x[[p, c]]
            for k in range(n):
                x[k + 1:] -= np.outer(lu[k + 1:, k], x[k])
            for k in range(n - 1, -1, -1):
                x[k] = _fortran_div(x[k], lu[k, k])
                x[:k] -= np.outer(lu[:k, k], x[k])
            return x
        for k in range(n):  # U^T L^T P^T x = b: U^T forward, L^T backward (unit), then the swaps in reverse
            x[k] -= lu[:k, k] @ x[:k]
            x[k] = _fortran_div(x[k], lu[k, k])
        for k in range(n - 1, -1, -1):
            x[k] -= lu[k + 1:, k] @ x[k + 1:]
        for c in range(n - 1, -1, -1):
            if piv[c] != c:
                x[[c, piv[c]]] = x[[piv[c], c]]
    return x


_slogdet = declare("linalg_slogdet", np.linalg.slogdet, doc="linalg_slogdet(A) -> (sign, logabsdet)")


_slogdet.meta(_square_meta("linalg.slogdet"))


@_slogdet.register("cpu")
def _slogdet_cpu(A):
    """linalg_slogdet(A): (*, n, n) -> (sign (*), log|det| (*)); sign 0 and -inf for singular A. A complex
    A's sign is det / |det| (complex), its log|det| real."""
    a = A._np()
    with np.errstate(all="ignore"):
        sign, logabs = (np.array(r) for r in np.linalg.slogdet(a))
        for i in _lu_cases(a, sign == 0):  # as det: PyTorch's sign and log of the whole LU diagonal
            perm, diag = _getf2_diagonal(a.reshape((-1,) + a.shape[-2:])[i])
            mag = np.abs(diag)
            unit = np.where(mag == 0, 0, diag / np.where(mag == 0, 1, mag)) if np.iscomplexobj(diag) else \
                (diag > 0).astype(np.float64) - (diag < 0)
            sign.reshape(-1)[i] = perm * np.prod(unit)
            logabs.reshape(-1)[i] = np.sum(np.log(mag))
    return _own(sign, A._dtype), _own(logabs, A._dtype.to_real())


_solve = declare("linalg_solve", np.linalg.solve, doc="linalg_solve(A, B) -> Tensor")


def solve_is_vector(A: Tensor, B: Tensor) -> bool:
    """Whether linalg.solve reads B as a (batch of) vector(s) rather than matrices (PyTorch's rule)."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B._shape == A._shape[:-1])


@_solve.meta
def _solve_meta(A, B) -> None:
    """A square, B of A's dtype with n rows, and batch dims that broadcast."""
    _check_matrices(A, "linalg.solve", kernel="lu_cpu")
    if B._dtype is not A._dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{dtypes.TORCH_NAMES[A._dtype.name]} and B of type {dtypes.TORCH_NAMES[B._dtype.name]} "
                           "instead")
    vector = solve_is_vector(A, B)
    n = A._shape[-1]
    if (B._shape[-1] if vector else B._shape[-2] if B.ndim >= 2 else -1) != n:
        b = f"{B._shape[-1]}x1" if vector else f"{B._shape[-2]}x{B._shape[-1]}"  # B's matrices, as PyTorch
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {b})")
    a, b = tuple(B._shape[:-1] if vector else B._shape[:-2]), tuple(A._shape[:-2])  # PyTorch broadcasts B's first
    nd = max(len(a), len(b))
    for i in range(nd):
        x, y = (a[i - nd + len(a)] if i >= nd - len(a) else 1), (b[i - nd + len(b)] if i >= nd - len(b) else 1)
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")


@_solve.register("cpu")
def _solve_cpu(A, B):
    """linalg_solve(A, B): X with A @ X = B; A (*, n, n), B (*, n, k) or a vector (*, n). A batch of vector
    results is column-major in its last two dims, as PyTorch's (`(2, 4)` strides `(1, 2)`)."""
    vector = solve_is_vector(A, B)
    b = B._np()[..., None] if vector else B._np()
    a = A._np()
    if not len(_lu_cases(a, np.zeros(a.shape[:-2], dtype=bool))):
        r = _factor_or_raise("solve", np.linalg.solve, a, b)
        return _own_cm(r[..., 0] if vector else r, A._dtype)
    # a matrix with NaN or inf: LAPACK's order (getf2, getrs) for every matrix, as PyTorch's, so the NaN spreads
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    fa = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    fb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    r = np.empty(fb.shape, dtype=np.result_type(a.dtype, b.dtype, np.float32))
    infos = []
    for i in range(len(fa)):
        zero = np.flatnonzero(np.diagonal(getf2(fa[i])[0]) == 0)  # a zero pivot stays on U's diagonal
        infos.append(int(zero[0]) + 1 if len(zero) else 0)
        r[i] = getrs(fa[i], fb[i])
    if any(infos):
        raise factorization_error("solve", infos, len(batch) > 0)
    r = r.reshape(batch + b.shape[-2:])
    return _own_cm(r[..., 0] if vector else r, A._dtype)


_cholesky = declare("linalg_cholesky", np.linalg.cholesky, doc="linalg_cholesky(A, upper) -> Tensor")


_cholesky.meta(_square_meta("linalg.cholesky", "cholesky_cpu"))


@_cholesky.register("cpu")
def _cholesky_cpu(A, upper=False):
    """linalg_cholesky(A, upper: bool): L (lower) with A = L @ L.mH, or its conjugate transpose when `upper`."""
    a = np.swapaxes(A._np(), -1, -2).conj() if upper else A._np()  # U^H U = A from A's upper triangle: A^H's L
    r = _factor_or_raise("cholesky", np.linalg.cholesky, a)
    # LAPACK's potrf stops at a NaN pivot, and at one an inf makes NaN or -inf (inf / inf below an inf pivot);
    # numpy's goes on
    if np.isnan(np.diagonal(r, 0, -2, -1)).any() or (np.isinf(a).any() and any(_lapack_infos("cholesky", a))):
        raise factorization_error("cholesky", _lapack_infos("cholesky", a), a.ndim > 2)
    return _own_cm(np.swapaxes(r, -1, -2).conj() if upper else r, A._dtype)


_qr = declare("linalg_qr", np.linalg.qr, doc="linalg_qr(A, mode) -> (Q, R)")


@_qr.meta
def _qr_meta(A, mode="reduced") -> None:
    _check_matrices(A, "linalg.qr", square=False, kernel="geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")


@_qr.register("cpu")
def _qr_cpu(A, mode="reduced"):
    """linalg_qr(A, mode: 'reduced' | 'complete' | 'r'): A = Q @ R; mode 'r' returns an empty Q."""
    a = A._np()
    if mode == "r":
        return _own(np.empty((0,), a.dtype), A._dtype), _own_cm(np.linalg.qr(a, mode="r"), A._dtype)
    q, r = np.linalg.qr(a, mode=mode)
    return _own_cm(q, A._dtype), _own_cm(r, A._dtype)


_svd = declare("linalg_svd", np.linalg.svd, doc="linalg_svd(A, full_matrices) -> (U, S, Vh)")


@_svd.meta
def _svd_meta(A, full_matrices=True) -> None:
    _check_matrices(A, "linalg.svd", square=False, kernel="linalg_svd_cpu")


@_svd.register("cpu")
def _svd_cpu(A, full_matrices=True):
    """linalg_svd(A, full_matrices: bool): A = U @ diag(S) @ Vh, S descending. A matrix with a NaN is refused
    (LAPACK's gesdd checks for one), one with an inf gets NaN factors, as PyTorch's."""
    a = A._np()
    _refuse_nan_matrix(a)
    bad = ~np.isfinite(a).all(axis=(-2, -1)) if a.size else np.zeros(a.shape[:-2], dtype=bool)
    if bad.any():  # LAPACK's gesdd can loop forever on an inf: NaN factors there, as PyTorch's
        a = np.where(bad[..., None, None], 0, a)
    u, s, vh = _lapack(np.linalg.svd, a, full_matrices, message="linalg.svd: The algorithm failed to converge.")
    if bad.any():
        u[bad], s[bad], vh[bad] = np.nan, np.nan, np.nan
    return _own_cm(u, A._dtype), _own(s, A._dtype.to_real()), _own_cm(vh, A._dtype)


def _refuse_nan_matrix(a: np.ndarray) -> None:
    """linalg.svd's error for the first matrix of the batch `a` (*, m, n) that holds a NaN."""
    if not a.size:
        return
    nan = np.isnan(a).any(axis=(-2, -1)).reshape(-1)
    if nan.any():
        where = f"(Batch element {int(np.flatnonzero(nan)[0])}): " if a.ndim > 2 else ""
        raise LinAlgError(f"linalg.svd: {where}The algorithm failed to converge because the input matrix contained "
                          "non-finite values.")


_eigh = declare("linalg_eigh", np.linalg.eigh, doc="linalg_eigh(A, UPLO) -> (eigenvalues, eigenvectors)")


@_eigh.meta
def _eigh_meta(A, UPLO="L") -> None:
    _check_matrices(A, "linalg.eigh", kernel="linalg_eigh_cpu", integral=True)
    if UPLO.upper() not in ("L", "U"):  # either case, as PyTorch's
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@_eigh.register("cpu")
def _eigh_cpu(A, UPLO="L"):
    """linalg_eigh(A, UPLO: 'L' | 'U'): ascending eigenvalues and orthonormal eigenvectors of symmetric A,
    reading its lower (or upper) triangle; the eigenvalues of a complex (Hermitian) A are real."""
    w, v = _lapack(np.linalg.eigh, A._np(), UPLO.upper(), message="linalg.eigh: The algorithm failed to converge.")
    return _own(w, A._dtype.to_real()), _own_cm(v, A._dtype)


# --- torch.linalg -------------------------------------------------------------------------------
@parsed("linalg_inv", A="Tensor")
def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix in A (*, n, n); raises `LinAlgError` when one is singular."""
    return node_name(_inv(A), "LinalgInvBackward0", "LinalgInvExBackward0")  # PyTorch's inv is its inv_ex


@parsed("det", input="Tensor")
def det(input: Tensor) -> Tensor:
    """The determinant of each square matrix in `input` (*, n, n)."""
    return _det(input)


@parsed("linalg_det", A="Tensor")
def _linalg_det(A: Tensor) -> Tensor:
    """`linalg.det`: `det` under ATen's name and argument name for its argument checks."""
    return _det(A)


@parsed("slogdet", A=("input", "Tensor"))
def slogdet(A: Tensor):
    """`(sign, logabsdet)` of the determinant of each square matrix in A."""
    return _Slogdet(*_slogdet(A))


@parsed("linalg_slogdet", A="Tensor")
def _linalg_slogdet(A: Tensor):
    """`linalg.slogdet`: slogdet's pair, named as PyTorch's `torch.return_types.linalg_slogdet`."""
    return _LinalgSlogdet(*_slogdet(A))


@parsed("linalg_solve", A="Tensor", B="Tensor", left="bool")
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A @ X = B (or X @ A = B when `left=False`); B may be a batch of vectors.

    >>> from ember.core import linalg, tensor
    >>> linalg.solve(tensor([[2.0, 0.0], [0.0, 4.0]]), tensor([2.0, 2.0]))
    tensor([1.0000, 0.5000])
    """
    if left:  # PyTorch's linalg.solve is solve_ex's result: its node
        return node_name(_solve(A, B), "LinalgSolveBackward0", "LinalgSolveExBackward0")
    # B's shape against XA = B before the transposes hide it (a vector B is an n x 1 matrix, as PyTorch reads it)
    if A.ndim >= 2 and A._shape[-1] == A._shape[-2]:
        check_solver_shapes("linalg.solve", A, B.unsqueeze(-1) if solve_is_vector(A, B) else B, left=False)
    return node_name(S.transpose(_solve(S.transpose(A, -2, -1), S.transpose(B, -2, -1)), -2, -1),
                     "TransposeBackward0", "LinalgSolveExBackward0")


@parsed("linalg_cholesky", A=("input", "Tensor"), upper="bool")
def _linalg_cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of each symmetric positive-definite matrix in A (PyTorch's node: cholesky_ex's)."""
    return node_name(_cholesky(A, upper), "LinalgCholeskyBackward0", "LinalgCholeskyExBackward0")


@parsed("linalg_qr", A="Tensor", mode="str")
def _linalg_qr(A: Tensor, mode: str = "reduced"):
    """`(Q, R)` with A = Q @ R, Q orthonormal, R upper triangular."""
    return _QR(*_qr(A, mode))


def _check_driver(A: Tensor, driver: str | None) -> None:
    """`driver=` picks a cuSOLVER routine; PyTorch refuses it for any other input (on CUDA every driver gives
    the same decomposition here)."""
    if driver is not None and A.device.type != "cuda":
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")


@parsed("linalg_svd", A="Tensor", full_matrices="bool", driver="str?")
def _linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None):
    """`(U, S, Vh)` with A = U @ diag(S) @ Vh."""
    _check_driver(A, driver)
    return _SVD(*_svd(A, full_matrices))


@parsed("linalg_svdvals", A="Tensor", driver="str?")
def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values of A, descending."""
    _check_driver(A, driver)
    return _svd(A, False)[1]


@parsed("linalg_eigh", A="Tensor", UPLO="str")
def eigh(A: Tensor, UPLO: str = "L"):
    """`(eigenvalues, eigenvectors)` of symmetric A, eigenvalues ascending."""
    return _Eigh(*_eigh(A, UPLO))


@parsed("linalg_eigvalsh", A="Tensor", UPLO="str")
def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of symmetric A, ascending."""
    return _eigh(A, UPLO)[0]


_NORM_TAIL = "bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)"
_NORM_OVERLOADS = [f"(Tensor input, Number ord = None, tuple of ints dim = None, {_NORM_TAIL}",
                   f"(Tensor input, str ord, tuple of ints dim = None, {_NORM_TAIL}"]
_MATRIX_NORM_OVERLOADS = [f"(Tensor input, Number ord, tuple of ints dim = {{-2,-1}}, {_NORM_TAIL}",
                          f"(Tensor input, str ord = \"fro\", tuple of ints dim = {{-2,-1}}, {_NORM_TAIL}"]


def order_invalid(name: str, position: int = 1) -> Callable[[tuple, dict], bool]:
    """Whether a norm's order (`name`, or the argument at `position`) or its dim matches none of PyTorch's
    overloads: an order neither None, a number, a 0-dim tensor nor a string; a dim neither None, an int nor a
    sequence of ints."""
    def invalid(args: tuple, kwargs: dict) -> bool:
        order = args[position] if len(args) > position else kwargs.get(name)
        dim = args[position + 1] if len(args) > position + 1 else kwargs.get("dim")
        if not (order is None or isinstance(order, numbers.Number | str)
                or isinstance(order, Tensor) and not order.ndim):
            return True
        return not (dim is None or isinstance(dim, numbers.Integral) or isinstance(dim, tuple | list)
                    and all(isinstance(d, numbers.Integral) for d in dim))
    return invalid


@overloads("linalg_matrix_norm", _MATRIX_NORM_OVERLOADS, order_invalid("ord"))
@numpy_aliases
def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """The matrix norm over the two dims `dim`: 'fro', 'nuc', 2/-2 (largest/smallest singular value),
    1/-1 (max/min column abs sum), inf/-inf (max/min row abs sum)."""
    if isinstance(ord, str) and ord not in ("fro", "nuc"):  # PyTorch checks a string order before anything else
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.TORCH_NAMES[A.dtype.name]}")
    if A.dtype in (dtypes.float16, dtypes.bfloat16) and ord not in ("fro", 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{dtypes.TORCH_NAMES[A.dtype.name]}")
    if isinstance(dim, int) or len(dim) != 2:
        got = " ".join(str(d) for d in ((dim,) if isinstance(dim, int) else dim))
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {got}")
    d0, d1 = (d % A.ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if dtype is not None:
        A = A.to(dtype)
    kept = tuple(1 if i in (d0, d1) else n for i, n in enumerate(A._shape))
    if ord in ("nuc", 2, -2):
        s = svdvals(S.permute(A, tuple(i for i in range(A.ndim) if i not in (d0, d1)) + (d0, d1)))
        last = (s.ndim - 1,)
        if ord == "nuc":
            r = node_name(_sum(s, last, False, None), "SumBackward0", "SumBackward1")
        else:
            r = (_amax if ord == 2 else _amin)(s, last, False)
        if not keepdim:
            return r  # PyTorch's node: the reduction's (AmaxBackward0 ...)
        from ember.core.ops.layout import reshape

        return node_name(reshape(r, kept), "ViewBackward0", "PermuteBackward0")
    if ord in (1, -1, math.inf, -math.inf):
        inner, outer = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = _sum(ew.abs(A), (inner,), keepdim, None)
        if not keepdim and inner < outer:
            outer -= 1
        return (_amax if ord > 0 else _amin)(sums, (outer,), keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


@overloads("linalg_norm", _NORM_OVERLOADS, order_invalid("ord"))
@numpy_aliases
def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """`torch.linalg.norm`: a vector norm over one dim (or all, when neither `ord` nor `dim` is
    given), a matrix norm over two."""
    dims = None if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if dims is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    if isinstance(ord, str):  # PyTorch's string overload: always a matrix norm (over dims 0 and 1 by default)
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        return matrix_norm(A, ord, (0, 1) if dims is None else dims, keepdim, dtype=dtype)
    if dims is None:
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if len(dims) == 1:
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
    return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)


def _tolerance(A: Tensor, s: Tensor, atol, rtol):
    """PyTorch's cutoff max(atol, rtol * s_max) for pinv and matrix_rank, tensor tolerances taken per matrix of
    the batch; rtol defaults to 0 where atol > 0, else to eps * max(m, n)."""
    if rtol is None:
        default = float(np.finfo(A._dtype.np).eps) * max(A._shape[-2:])
        rtol = default if atol is None else ew.where(ew.gt(atol, 0), 0.0, default) if isinstance(atol, Tensor) \
            else 0.0 if atol > 0 else default
    smax = _amax(s, (s.ndim - 1,), True) if s._shape[-1] else s
    cut = ew.mul(S.unsqueeze(rtol, -1), smax) if isinstance(rtol, Tensor) else ew.mul(smax, rtol)
    if atol is None:
        return cut
    return ew.maximum(S.unsqueeze(atol, -1), cut) if isinstance(atol, Tensor) else ew.maximum(cut, atol)


# Composed from eigh/svd on every device; its derivative is PyTorch's pinv_backward of the whole matrix
# (autograd's table), not the decomposition's (which would symmetrize the Hermitian case's gradient).
_pinv = declare("linalg_pinv", doc="linalg_pinv(A, atol, rtol, hermitian) -> Tensor")


@_pinv.register("any")
def _pinv_any(A, atol=None, rtol=None, hermitian=False):
    if hermitian:
        w, v = _eigh(A, "L")
        keep = ew.gt(ew.abs(w), _tolerance(A, ew.abs(w), atol, rtol))
        winv = ew.where(keep, ew.reciprocal(ew.where(keep, w, 1.0)), 0.0)
        return _matmul(ew.mul(v, S.unsqueeze(winv, -2)), _mH(v))
    u, s, vh = _svd(A, False)
    keep = ew.gt(s, _tolerance(A, s, atol, rtol))
    sinv = ew.where(keep, ew.reciprocal(ew.where(keep, s, 1.0)), 0.0)
    return _matmul(ew.mul(_mH(vh), S.unsqueeze(sinv, -2)), _mH(u))


def _tolerance_overloads(old: str) -> list[str]:
    """PyTorch's four overloads of pinv / matrix_rank: atol and rtol (tensors or floats), or the older `old`."""
    return [f"(Tensor input, *, {k} atol = None, {k} rtol = None, bool hermitian = False, Tensor out = None)"
            for k in ("Tensor", "float")] + [f"(Tensor input, {k} {old}, bool hermitian = False, *, Tensor out = None)"
                                             for k in ("Tensor", "float")]


def _old_with_new(old: str) -> Callable[[tuple, dict], bool]:
    """Whether a call matches none of PyTorch's tolerance overloads: the older tolerance `old` (positional or keyword)
    with atol/rtol, too many positional arguments, a tolerance neither a tensor nor a number (atol/rtol may be
    None), or a `hermitian` that is not a bool."""
    def tolerance(v, nullable: bool) -> bool:
        return isinstance(v, Tensor | numbers.Real) and v.__class__ is not bool or nullable and v is None

    def invalid(args: tuple, kwargs: dict) -> bool:
        with_old = len(args) > 1 or old in kwargs
        if (with_old and ("atol" in kwargs or "rtol" in kwargs) or len(args) > 3
                or len(args) > 1 and old in kwargs):
            return True
        hermitian = args[2] if len(args) > 2 else kwargs.get("hermitian", False)
        return (hermitian.__class__ is not bool or with_old and not tolerance(args[1] if len(args) > 1 else
                                                                               kwargs[old], False)
                or not all(tolerance(kwargs[k], True) for k in ("atol", "rtol") if k in kwargs))
    return invalid


def _refuse_complex_tolerances(op: str, **tolerances) -> None:
    """PyTorch's refusal of a complex tolerance tensor, checked in the order given."""
    for name, tol in tolerances.items():
        if isinstance(tol, Tensor) and tol._dtype.is_complex:
            raise RuntimeError(f"torch.linalg.{op}: {name} tensor of complex type is not supported. "
                               f"Got {dtypes.TORCH_NAMES[tol._dtype.name]}")


@overloads("linalg_pinv", _tolerance_overloads("rcond"), _old_with_new("rcond"))
def pinv(A: Tensor, *args, atol=None, rtol=None, hermitian: bool = False, rcond=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse, from the SVD (singular values at or below the cutoff count as 0);
    with `hermitian`, from the eigendecomposition of A's lower triangle (|eigenvalues| against the cutoff),
    as PyTorch. PyTorch's older overload `pinv(A, rcond, hermitian=False)` takes `rcond` as `rtol` with `atol=0`."""
    given = rcond is not None or bool(args)
    if given:
        rcond, hermitian = (*args, hermitian)[:2] if args else (rcond, hermitian)
        atol, rtol = 0.0, rcond
    dt = A._dtype
    if A.ndim < 2 or not (dt.is_floating_point or dt.is_complex) or dt in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError(f"linalg.pinv({dtypes.TORCH_NAMES.get(dt.name, dt.name)}{{{list(A._shape)}}}): expected "
                           "a tensor with 2 or more dimensions of float, double, cfloat or cdouble types")
    _refuse_complex_tolerances("pinv", **({"rcond": rcond} if given else {"atol": atol, "rtol": rtol}))
    return _pinv(A, atol, rtol, hermitian)


@overloads("linalg_matrix_rank", _tolerance_overloads("tol"), _old_with_new("tol"))
@composite("linalg_matrix_rank")
def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """The number of singular values (|eigenvalues| of A's lower triangle with `hermitian`) above the
    cutoff, per matrix (int64); PyTorch's older overload's `tol` is `atol` with `rtol=0`."""
    if tol is not None:
        atol, rtol = tol, 0.0
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not (A._dtype.is_floating_point or A._dtype.is_complex) or A._dtype in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("This function doesn't handle types other than float and double")
    _refuse_complex_tolerances("matrix_rank", atol=atol, rtol=rtol)  # an older `tol` is named atol too
    s = ew.abs(_eigh(A, "L")[0]) if hermitian else _svd(A, False)[1]
    kept = ew.gt(s, _tolerance(A, s, atol, rtol))
    return _sum(kept, (kept.ndim - 1,), False, None)


@method
@parsed("linalg_matrix_power", n="int")
def matrix_power(input: Tensor, n: int) -> Tensor:
    """A @ A @ ... (n times) by repeated squaring; n = 0 is the identity, n < 0 powers the inverse (`n` may be a
    0-d integer tensor, as PyTorch's parser takes one for an int)."""
    if isinstance(n, Tensor) and n.ndim == 0 and not (n._dtype.is_floating_point or n._dtype.is_complex
                                                       or n._dtype is dtypes.bool):
        n = int(n.item())
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if input._shape[-1] != input._shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input._shape[-2]} by {input._shape[-1]} matrices")
    if n < 0:
        _check_matrices(input, "linalg.inv")  # the dtype check is inv's in PyTorch
    if n == 0:  # the identity, as a `where` that never picks `input`: a zero gradient, as PyTorch's
        from ember.core.creation import eye, zeros

        ident = S.expand(eye(input._shape[-1], dtype=input._dtype, device=input.device), input._shape)
        return ew.where(zeros(input._shape, dtype=dtypes.bool, device=input.device), input, ident)
    base = _inv(input) if n < 0 else input
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else _matmul(result, base)
        n >>= 1
        if n:
            base = _matmul(base, base)
    return result if result is not input else S.clone(input)


def _check_chain(tensors: list) -> None:
    """PyTorch's checks of a multi_dot chain: ranks (1-D or 2-D ends, 2-D inside), one dtype, matching sizes."""
    last = len(tensors) - 1
    for i, t in enumerate(tensors):
        if i in (0, last) and t.ndim not in (1, 2):
            which = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.ndim}D")
        if 0 < i < last and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_c_name(tensors[0])} and tensor {i} {_c_name(t)}")
    for i in range(last):
        a, b = tensors[i], tensors[i + 1]
        if a._shape[-1] != b._shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(a.shape)} and "
                               f"{list(b.shape)} cannot be multiplied")


def multi_dot(tensors) -> Tensor:
    """The product of a chain of matrices (the first may be a vector, as may the last)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    _check_chain(tensors)
    if all(t._dtype is dtypes.bool and t.numel() for t in tensors):  # PyTorch chains mm, even for two vectors
        _refuse_bool("addmm_impl_cpu_", tensors[0], True)
    r = tensors[0]
    for t in tensors[1:]:
        r = _matmul(r, t)
    return r


def _check_chain(tensors: list) -> None:
    """PyTorch's multi_dot checks: a 1-D/2-D first and last, 2-D inner tensors, one dtype, chained sizes."""
    from ember.core.ops.linalg import _c_name

    for i, t in enumerate(tensors):
        if i in (0, len(tensors) - 1) and t.ndim not in (1, 2):
            where = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {where} tensor must be 1D or 2D but got {t.ndim}D")
        if 0 < i < len(tensors) - 1 and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i, t in enumerate(tensors[1:], 1):
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_c_name(tensors[0])} and tensor {i} {_c_name(t)}")
    for i in range(1, len(tensors)):
        a, b = tensors[i - 1], tensors[i]
        if a._shape[-1] != b._shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(a._shape)} and "
                               f"{list(b._shape)} cannot be multiplied")


def _cross(input: Tensor, other: Tensor, dim: int) -> Tensor:
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input._dtype is not other._dtype:
        raise RuntimeError(f"expected scalar type {dtypes.TORCH_NAMES[input._dtype.name]} but found "
                           f"{dtypes.TORCH_NAMES[other._dtype.name]}")
    if input._dtype is dtypes.bool:
        raise ew.DtypeNotSupported("\"cross\" not implemented for 'Bool'")
    normalize_dims(dim, max(input.ndim, other.ndim), "cross")  # PyTorch's IndexError for a dim past them
    if input._shape[dim] != 3 or other._shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._shape[dim]} and "
                           f"{other._shape[dim]}")
    return _linalg_cross(input, other, dim)


_linalg_cross = declare("linalg_cross", overlap=0,
                        doc="linalg_cross(input, other, dim) -> Tensor: one op as PyTorch's (LinalgCrossBackward0)")


@_linalg_cross.register("any")
def _linalg_cross_any(input, other, dim):
    # the components by rolling along `dim`, on every device (kernels run below autograd's recording)
    from ember.core.ops.join import roll

    return ew.sub(ew.mul(roll(input, -1, dim), roll(other, -2, dim)),
                  ew.mul(roll(input, -2, dim), roll(other, -1, dim)))


@numpy_aliases
@parsed("linalg_cross", input="Tensor", other="Tensor", dim="int")
def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The 3-vector cross product along `dim`, broadcasting the other dims."""
    return _cross(input, other, dim)


@method
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product along `dim` (None: the first dim of size 3, PyTorch's deprecated default, which warns
    once as PyTorch's does)."""
    if dim is None:
        warn_once(internally("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
                             "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
                             "change to agree with that of linalg.cross in a future release.",
                             "aten/src/ATen/native/Cross.cpp:63"))
        dim = next((i for i, n in enumerate(input._shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _cross(input, other, dim)


# --- PyTorch's top-level names -----------------------------------------------------------------------
@method
def inverse(input: Tensor) -> Tensor:
    """The inverse of each square matrix (`torch.inverse`)."""
    return node_name(_inv(input), "LinalgInvBackward0", "LinalgInvExBackward0")


method(det)
method(slogdet)


@method
def logdet(input: Tensor) -> Tensor:
    """log(det(A)): NaN for a negative determinant, -inf for a singular matrix; for a complex A the
    principal log of det (log(sign) + log|det|), as PyTorch."""
    _check_matrices(input, "logdet")
    sign, logabs = _slogdet(input)
    if input._dtype.is_complex:
        return ew.add(ew.log(sign), logabs)
    return ew.where(ew.lt(sign, 0), float("nan"), logabs)


@method
def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """`torch.cholesky` (deprecated for `linalg.cholesky`, with PyTorch's once-per-process warning), with its own
    node name."""
    warn_once(internally(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = "
        "torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform "
        "will produce equivalent results for all valid (symmetric positive definite) inputs.",
        "aten/src/ATen/native/BatchLinearAlgebra.cpp:1765"))
    return node_name(_cholesky(input, upper), "LinalgCholeskyBackward0", "CholeskyBackward0")


@method
def qr(input: Tensor, some: bool = True):
    """`torch.qr` (deprecated for `linalg.qr`, with PyTorch's once-per-process warning): `(Q, R)`, reduced unless
    `some=False`."""
    warn_once(internally(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe "
        "boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould "
        "be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
        "aten/src/ATen/native/BatchLinearAlgebra.cpp:2505"))
    return _QR_legacy(*_qr(input, "reduced" if some else "complete"))


@method
def svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """`torch.svd`: `(U, S, V)` with V = Vh^H (not Vh); `some=False` gives full U and V. With `compute_uv=False`,
    U and V are PyTorch's zero-filled (m, m) and (n, n) matrices beside the singular values."""
    u, s, vh = _svd(input, not some)
    if not compute_uv:
        from ember.core.creation import zeros

        batch, (m, n) = input._shape[:-2], input._shape[-2:]
        return _SVD_V(zeros(*batch, m, m, dtype=input._dtype, device=input.device), s,
                      zeros(*batch, n, n, dtype=input._dtype, device=input.device))
    return _SVD_V(u, s, _mH(vh))


@method
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """`torch.pinverse`: the pseudo-inverse with relative cutoff `rcond`."""
    return pinv(input, rtol=rcond)


def chain_matmul(*matrices) -> Tensor:
    """`torch.chain_matmul`: the product of 2-D matrices, left to right (deprecated for `linalg.multi_dot`)."""
    warn_once(internally("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                         "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                         "multiple parameters.", "aten/src/ATen/native/LinearAlgebra.cpp:1102"))
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.ndim}, expected 2 instead.")
    return S.clone(matrices[0]) if len(matrices) == 1 else multi_dot(matrices)


for _name, _fn in (("inv", inv), ("det", _linalg_det), ("slogdet", _linalg_slogdet), ("solve", solve),
                   ("cholesky", _linalg_cholesky), ("qr", _linalg_qr), ("svd", _linalg_svd), ("svdvals", svdvals),
                   ("eigh", eigh), ("eigvalsh", eigvalsh), ("pinv", pinv), ("matrix_rank", matrix_rank),
                   ("matrix_power", matrix_power), ("multi_dot", multi_dot), ("cross", linalg_cross),
                   ("matrix_norm", matrix_norm), ("norm", norm), ("LinAlgError", LinAlgError)):
    setattr(linalg, _name, _fn)
