"""The LDL^T factorisation of symmetric (or Hermitian) indefinite matrices (`torch.linalg.ldl_factor`,
`ldl_factor_ex`, `ldl_solve`): Bunch-Kaufman diagonal pivoting with 1x1 and 2x2 blocks, in the packed
layout and pivot convention of LAPACK's sytrf/hetrf (lower triangle) that PyTorch returns, and the
matching sytrs/hetrs solve. Neither has a derivative, as in PyTorch.

Each step is numpy over whole columns; the loop over columns is Python (O(n) steps of O(n^2) work).
NOTE [ Bunch-Kaufman pivots ]: `pivots` are 1-based. pivots[k] > 0: rows and columns k and
pivots[k]-1 were swapped and D[k, k] is a 1x1 block. pivots[k] == pivots[k+1] < 0: rows and columns
k+1 and -pivots[k]-1 were swapped and D[k:k+2, k:k+2] is a 2x2 block.
"""

from __future__ import annotations

import math

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare
from ember.core.ops._util import broadcast_shapes, wrap
from ember.core.ops.linalg import linalg
from ember.core.ops.linalg_solvers import LinAlgError, _rt, column_major, refuse_dtype
from ember.core.ops.structseq import out_type
from ember.core.tensor import Tensor, describe

__all__: list[str] = []

_LDLFactor = _rt("linalg_ldl_factor", ["LD", "pivots"])
_LDLFactorEx = _rt("linalg_ldl_factor_ex", ["LD", "pivots", "info"])

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # Bunch-Kaufman's threshold, which bounds the growth of L's entries


def _abs1(x):
    """LAPACK's cabs1 (|re| + |im|) for complex pivot search, |x| for real."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _sytf2(a: np.ndarray, herm: bool) -> tuple[np.ndarray, int]:
    """Factor the lower triangle of `a` (n, n) in place, LAPACK's unblocked sytf2/hetf2; returns
    (pivots, info): info is the 1-based index of the first exactly-zero diagonal block, or 0."""
    n = a.shape[0]
    ipiv = np.zeros(n, dtype=np.int32)
    info = 0

    def dabs(x):  # the size of a diagonal entry: hetf2 reads only its real part
        return abs(x.real) if herm else float(_abs1(x))

    k = 0
    while k < n:
        kstep = 1
        absakk = dabs(a[k, k])
        imax, colmax = k, 0.0
        if k < n - 1:
            imax = k + 1 + int(np.argmax(_abs1(a[k + 1:, k])))
            colmax = float(_abs1(a[imax, k]))
        if max(absakk, colmax) == 0.0 or math.isnan(absakk):
            info = info or k + 1
            kp = k
            if herm:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + int(np.argmax(_abs1(a[imax, k:imax])))
                rowmax = float(_abs1(a[imax, jmax]))
                if imax < n - 1:
                    jmax = imax + 1 + int(np.argmax(_abs1(a[imax + 1:, imax])))
                    rowmax = max(rowmax, float(_abs1(a[jmax, imax])))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif dabs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                _swap(a, kk, kp, herm)
                if kstep == 2:
                    if herm:
                        a[k, k] = a[k, k].real
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            elif herm:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1:
                _update_1x1(a, k, herm)
            elif k < n - 2:
                _update_2x2(a, k, herm)
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _swap(a: np.ndarray, kk: int, kp: int, herm: bool) -> None:
    """Swap rows and columns kk < kp of the trailing matrix, reading and writing its lower triangle."""
    a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
    t = a[kk + 1:kp, kk].copy()
    if herm:
        a[kk + 1:kp, kk] = np.conj(a[kp, kk + 1:kp])
        a[kp, kk + 1:kp] = np.conj(t)
        a[kp, kk] = np.conj(a[kp, kk])
        a[kk, kk], a[kp, kp] = a[kp, kp].real, a[kk, kk].real
    else:
        a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
        a[kp, kk + 1:kp] = t
        a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]


def _update_1x1(a: np.ndarray, k: int, herm: bool) -> None:
    """A22 -= x d^-1 x^T (x^H when `herm`) on the lower triangle; the column becomes L's, x / d."""
    if k == a.shape[0] - 1:
        return
    x = a[k + 1:, k]
    d11 = 1.0 / (a[k, k].real if herm else a[k, k])
    temp = -d11 * (np.conj(x) if herm else x)
    a[k + 1:, k + 1:] += np.tril(np.multiply.outer(x, temp))
    if herm:
        idx = np.arange(k + 1, a.shape[0])
        a[idx, idx] = a[idx, idx].real
    a[k + 1:, k] = x * d11


def _update_2x2(a: np.ndarray, k: int, herm: bool) -> None:
    """The 2x2-pivot update of the trailing matrix, with sytf2/hetf2's scaling of the block's inverse."""
    c0, c1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
    if herm:
        d = abs(a[k + 1, k])
        d11, d22 = a[k + 1, k + 1].real / d, a[k, k].real / d
        tt = 1.0 / (d11 * d22 - 1.0)
        d21 = a[k + 1, k] / d
        d = tt / d
        wk = d * (d11 * c0 - d21 * c1)
        wkp1 = d * (d22 * c1 - np.conj(d21) * c0)
        upd = np.multiply.outer(c0, np.conj(wk)) + np.multiply.outer(c1, np.conj(wkp1))
    else:
        d21 = a[k + 1, k]
        d11, d22 = a[k + 1, k + 1] / d21, a[k, k] / d21
        t = 1.0 / (d11 * d22 - 1.0)
        d21 = t / d21
        wk = d21 * (d11 * c0 - c1)
        wkp1 = d21 * (d22 * c1 - c0)
        upd = np.multiply.outer(c0, wk) + np.multiply.outer(c1, wkp1)
    a[k + 2:, k + 2:] -= np.tril(upd)
    if herm:
        idx = np.arange(k + 2, a.shape[0])
        a[idx, idx] = a[idx, idx].real
    a[k + 2:, k], a[k + 2:, k + 1] = wk, wkp1


def _sytrs(a: np.ndarray, ipiv: np.ndarray, b: np.ndarray, herm: bool) -> None:
    """Solve A X = B in place in `b` (n, k) from `_sytf2`'s factor (LAPACK's sytrs/hetrs, lower)."""
    n = a.shape[0]
    cj = np.conj if herm else (lambda v: v)
    k = 0
    while k < n:  # L D Y = P B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.multiply.outer(a[k + 1:, k], b[k])
            b[k] *= 1.0 / (a[k, k].real if herm else a[k, k])
            k += 1
        else:
            kp = -ipiv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.multiply.outer(a[k + 2:, k], b[k])
            b[k + 2:] -= np.multiply.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1, ak = a[k, k] / cj(akm1k), a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = b[k] / cj(akm1k), b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y (L^H when hermitian), undoing the swaps
        if ipiv[k] > 0:
            b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            b[k - 1] -= cj(a[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2


def _check_square(op: str, A) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument 'A' (position 1) must be Tensor, not {describe(A)}")
    if A.ndim < 2:
        raise RuntimeError(f"torch.{op}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"torch.{op}: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    dt = A._dtype
    if op == "linalg.ldl_factor_ex":
        refuse_dtype(A, "ldl_factor_kernel_cpu")  # PyTorch lets half through to that kernel
    if dt.np not in (np.float32, np.float64, np.complex64, np.complex128):
        raise RuntimeError(f"torch.{op}: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.TORCH_NAMES.get(dt.name, dt.name)}")


_factor = declare("linalg_ldl_factor_ex", None, differentiable=False,
                  doc="linalg_ldl_factor_ex(A, hermitian) -> (LD, pivots int32, info int32)")


@_factor.register("cpu")
def _factor_cpu(A, hermitian=False):
    """Each matrix's packed LDL^T from its lower triangle; LD's strict upper triangle is zero."""
    _check_square("linalg.ldl_factor_ex", A)
    n = A._shape[-1]
    batch = A._shape[:-2]
    ld = np.tril(A._np()).reshape((math.prod(batch), n, n)).copy()
    piv = np.zeros((ld.shape[0], n), dtype=np.int32)
    info = np.zeros(ld.shape[0], dtype=np.int32)
    herm = bool(hermitian) and A._dtype.is_complex
    for i in range(ld.shape[0]):
        piv[i], info[i] = _sytf2(ld[i], herm)
    return column_major(ld.reshape(A._shape)), wrap(piv.reshape(batch + (n,))), wrap(info.reshape(batch))


_solve = declare("linalg_ldl_solve", None, differentiable=False,
                 doc="linalg_ldl_solve(LD, pivots, B, hermitian) -> X with A X = B")


@_solve.register("cpu")
def _solve_cpu(LD, pivots, B, hermitian=False):
    """X with A X = B for `ldl_factor`'s (LD, pivots) of A; batch dimensions broadcast."""
    op = "torch.linalg.ldl_solve"
    for name, t in (("LD", LD), ("pivots", pivots), ("B", B)):
        if not isinstance(t, Tensor):
            raise TypeError(f"linalg.ldl_solve(): argument '{name}' must be Tensor, not {describe(t)}")
    if LD.ndim < 2 or B.ndim < 2:
        raise RuntimeError(f"{op}: The input tensors LD and B must have at least 2 dimensions.")
    n = LD._shape[-1]
    if LD._shape[-2] != n:
        raise RuntimeError(f"{op}: LD must be batches of square matrices, but they are {LD._shape[-2]} by {n} "
                           "matrices")
    if B._shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b matrix is "
                           f"{B._shape[-2]} by {B._shape[-1]}")
    if pivots._shape != LD._shape[:-1]:
        raise RuntimeError(f"{op}: expected pivots of shape {tuple(LD._shape[:-1])}, got {tuple(pivots._shape)}")
    if pivots._dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(f"{op}: pivots must be an integer tensor; got {describe(pivots)}")
    if B._dtype != LD._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{dtypes.TORCH_NAMES.get(B._dtype.name)} and A of type "
                           f"{dtypes.TORCH_NAMES.get(LD._dtype.name)} "
                           "instead.")
    _check_square("linalg.ldl_solve", LD)
    batch = broadcast_shapes(LD._shape[:-2], B._shape[:-2])
    k = B._shape[-1]
    m = math.prod(batch)
    ld = np.broadcast_to(LD._np(), batch + (n, n)).reshape((m, n, n))
    pv = np.broadcast_to(pivots._np(), batch + (n,)).reshape((m, n))
    x = np.array(np.broadcast_to(B._np(), batch + (n, k)).reshape((m, n, k)))
    bad = (pv == 0) | (np.abs(pv) > n)
    if bad.any():
        raise RuntimeError(f"{op}: pivots must hold 1-based indices in [-{n}, -1] or [1, {n}], as ldl_factor "
                           f"returns them; got {int(pv[bad][0])}")
    herm = bool(hermitian) and LD._dtype.is_complex
    for i in range(x.shape[0]):
        _sytrs(ld[i], pv[i], x[i], herm)
    return column_major(x.reshape(batch + (n, k)))


def _check_info(op: str, info: Tensor) -> None:
    flat = info.reshape(-1).tolist()
    for b, k in enumerate(flat):
        if k:
            where = f" (batch element {b})" if len(flat) > 1 or info.ndim else ""
            raise LinAlgError(f"{op}{where}: The factorization could not be completed because D[{k - 1}, {k - 1}] "
                              "is zero: the matrix is singular. Use linalg.ldl_factor_ex to get the factors "
                              "anyway.")


def _write(out, results):
    if out is None:
        return results
    for o, r in zip(out, results):
        o.resize_(r.shape).copy_(r)
    return out_type(type(results))(*out)


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """`(LD, pivots, info)`: the packed Bunch-Kaufman LDL^T of each symmetric (Hermitian when `hermitian`)
    matrix of A (*, n, n), from its lower triangle; `info` is 1-based where D is singular, else 0.

    >>> from ember.core import linalg, tensor
    >>> linalg.ldl_factor_ex(tensor([[0.0, 1.0], [1.0, 0.0]])).pivots
    tensor([-2, -2], dtype=ember.int32)
    """
    LD, piv, info = _factor(A, hermitian)
    if check_errors:
        _check_info("torch.linalg.ldl_factor_ex", info)
    return _write(out, _LDLFactorEx(LD, piv, info))


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):
    """`(LD, pivots)`: `ldl_factor_ex` that raises `LinAlgError` where D is singular.

    >>> from ember.core import linalg, tensor
    >>> linalg.ldl_factor(tensor([[4.0, 2.0], [2.0, 3.0]])).LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    """
    LD, piv, info = _factor(A, hermitian)
    _check_info("torch.linalg.ldl_factor", info)
    return _write(out, _LDLFactor(LD, piv))


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: Tensor | None = None) -> Tensor:
    """X with A X = B (B: (*, n, k)) from A's `ldl_factor` (LD, pivots), with the same `hermitian`.

    >>> from ember.core import linalg, tensor
    >>> A = tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> linalg.ldl_solve(*linalg.ldl_factor(A), tensor([[6.0], [5.0]]))
    tensor([[1.],
            [1.]])
    """
    r = _solve(LD, pivots, B, hermitian)
    if out is not None:
        return out.resize_(r.shape).copy_(r)
    return r


linalg.ldl_factor = ldl_factor
linalg.ldl_factor_ex = ldl_factor_ex
linalg.ldl_solve = ldl_solve
