"""The rest of `torch.linalg`, composed of the LAPACK primitives and tensor ops (so each runs on
every device and differentiates through them): triangular and Cholesky solves, LU with partial
pivoting, matrix_exp, the `*_ex` variants, lstsq, cond, tensorinv/tensorsolve, vander,
householder_product; and PyTorch's older top-level names (`torch.lu`, `torch.cholesky_solve` ...).
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from ember.core import dtypes
from ember.core.creation import arange, eye, full, zeros
from ember.core.dispatch import composite, declare, node_name
from ember.core.methods import method, numpy_aliases
from ember.core.ops import elementwise as ew
from ember.core.ops import indexing as I
from ember.core.ops import join as J
from ember.core.ops import layout as L
from ember.core.ops import reduce as R
from ember.core.ops import shape as S
from ember.core.ops._util import _resize_out, broadcast_shapes, cpp_type_name, internally, warn_at_caller, warn_once
from ember.core.ops.arguments import parsed, refuse_out_with_grad
from ember.core.ops.complex import conj
from ember.core.ops.linalg_checks import (check_linear_solve, check_lu_solve, check_lu_unpack_pivots,
                                         check_solver_shapes)
from ember.core.ops.linalg import _matmul, _op_node, linalg, matmul, mm
from ember.core.ops.numeric import nan_to_num
from ember.core.ops.parser_errors import overloads
from ember.core.ops import linalg_solvers as _solvers
from ember.core.ops.linalg_solvers import (
    LinAlgError, _linalg_cholesky, _mH, cholesky_partial, _rt, inv, matrix_norm, pinv, refuse_dtype, solve,
    solve_is_vector, svdvals,
)
from ember.core.ops.structseq import is_structseq, out_type, rebuilt
from ember.core.settings import finfo
from ember.core.tensor import Tensor

__all__ = ["cholesky_solve", "cholesky_inverse", "matrix_exp", "lu", "lu_solve", "lu_unpack", "triangular_solve",
           "orgqr", "frobenius_norm", "nuclear_norm", "geqrf", "ormqr", "svd_lowrank", "pca_lowrank", "norm_except_dim",
           "norm", "cov", "corrcoef", "_weight_norm", "_weight_norm_interface", "slogdet", "cholesky", "inverse"]

_LUFactor = _rt("linalg_lu_factor", ["LU", "pivots"])
_LUFactorEx = _rt("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_PLU = _rt("linalg_lu", ["P", "L", "U"])
_LUUnpack = _rt("lu_unpack", ["P", "L", "U"])
_CholeskyEx = _rt("linalg_cholesky_ex", ["L", "info"])
_InvEx = _rt("linalg_inv_ex", ["inverse", "info"])
_SolveEx = _rt("linalg_solve_ex", ["result", "info"])
_Lstsq = _rt("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_TriangularSolve = _rt("triangular_solve", ["solution", "cloned_coefficient"])


def _mT(x: Tensor) -> Tensor:
    return S.transpose(x, -2, -1)


def _lapack_layout(x: Tensor) -> Tensor:
    """x with each matrix column-major, as LAPACK writes the results PyTorch returns (strides `(m*n, 1, m)`),
    for the solvers composed here of row-major tensor ops; a tracked copy (a size-1 dim's stride too)."""
    return _mT(S.clone(_mT(x)))


def _check_float(op: str, *xs: Tensor) -> None:
    for x in xs:
        if not (x._dtype.is_floating_point or x._dtype.is_complex):
            raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                               f"{dtypes.TORCH_NAMES[x._dtype.name]}")
    if len({x._dtype for x in xs}) > 1:
        raise RuntimeError(f"{op}: Expected all tensors to have the same dtype; got "
                           + " and ".join(dtypes.TORCH_NAMES[x._dtype.name] for x in xs))


def _at_least_2d(op: str, name: str, x: Tensor) -> None:
    if x.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")


def _unit_diagonal(T: Tensor) -> Tensor:
    return ew.where(_diag_mask(T), 1.0, T)


def _diag_mask(T: Tensor) -> Tensor:
    m, n = T._shape[-2:]
    return ew.eq(S.unsqueeze(arange(m, device=T.device), -1), arange(n, device=T.device))


# --- triangular and Cholesky solves -------------------------------------------------------------
@parsed("linalg_solve_triangular", A=("input", "Tensor"), B="Tensor", upper="bool", left="bool", unitriangular="bool")
def solve_triangular(A: Tensor, B: Tensor, *, upper: bool | None = None, left: bool = True,
                     unitriangular: bool = False, out: Tensor | None = None) -> Tensor:
    """X with A X = B (X A = B when `left=False`) for triangular A (*, n, n); only A's `upper` or lower
    triangle is read, and its diagonal is taken as ones when `unitriangular`.

    >>> from ember.core import linalg, tensor
    >>> linalg.solve_triangular(tensor([[2.0, 1.0], [0.0, 4.0]]), tensor([[3.0], [4.0]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    if upper is None:  # required, in the words of PyTorch's argument parser
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    if out is not None:
        refuse_out_with_grad("linalg_solve_triangular", A, B)
    _at_least_2d("linalg.solve_triangular", "A", A)
    _at_least_2d("linalg.solve_triangular", "B", B)
    refuse_dtype(A, "triangular_solve_cpu", True)
    _check_float("linalg.solve_triangular", A)
    check_solver_shapes("linalg.solve_triangular", A, B, left)
    if B._dtype is not A._dtype:  # PyTorch casts B to A's dtype (A float32, B float64: a float32 result)
        B = S.to_dtype(B, A._dtype)
    T = J.triu(A) if upper else J.tril(A)
    if unitriangular:
        T = _unit_diagonal(T)
    try:
        r = solve(T, B, left=left)
    except LinAlgError:  # a zero on the diagonal: PyTorch's trsm divides by it
        r = _substituted(T, B, upper, left)
    else:
        if not left:  # trsm writes X column-major on either side; solve's X A = B is row-major
            r = _lapack_layout(r)
        r = node_name(r, "LinalgSolveExBackward0" if left else "TransposeBackward0", "LinalgSolveTriangularBackward0")
    return r if out is None else _write(out, r, _scalar_type)


def _substituted(T: Tensor, B: Tensor, upper: bool, left: bool) -> Tensor:
    """X with T X = B (X T = B when not `left`) for triangular T by plain substitution on the host, as BLAS trsm
    computes it, a zero diagonal entry dividing (infs and NaNs where PyTorch's trsm gives them)."""
    from ember.core.creation import tensor
    from ember.core.ops.linalg_solvers import _fortran_div

    t, b = T._host_array(), B._host_array()
    if not left:  # X T = B  <=>  T^T X^T = B^T
        t, b, upper = np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2), not upper
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dtype=np.result_type(t.dtype, b.dtype))
    t = np.broadcast_to(t, batch + t.shape[-2:])
    n = t.shape[-1]
    with np.errstate(all="ignore"):
        for k in (range(n - 1, -1, -1) if upper else range(n)):
            x[..., k, :] = _fortran_div(x[..., k, :], t[..., k, k, None])
            rest = slice(0, k) if upper else slice(k + 1, n)
            x[..., rest, :] -= t[..., rest, k, None] * x[..., k, None, :]
    x = np.swapaxes(x, -1, -2) if not left else x
    return tensor(x, dtype=T._dtype, device=T.device)


def _resized(out: Tensor, r: Tensor) -> Tensor:
    if out._shape != r._shape:
        _resize_out(out, r._shape, None)
    return out




# the functions of `torch.*` (not `torch.linalg.*`) among those `writes_out` wraps: PyTorch's messages name them
_TORCH_NAMESPACE = frozenset({"lu_unpack", "geqrf", "ormqr", "triangular_solve", "frobenius_norm", "nuclear_norm",
                              "slogdet"})


def _needs_grad(values) -> bool:
    """Whether grad mode is on and a tensor among `values` (or in a list among them) requires grad."""
    tensor_module = sys.modules["ember.core.tensor"]  # autograd sets its grad mode there
    flat = [x for v in values for x in (v if isinstance(v, list | tuple) else (v,))]
    return tensor_module._grad_mode_enabled() and any(isinstance(x, Tensor) and x._requires_grad for x in flat)


def _exact_dtype(out: Tensor, r: Tensor) -> None:
    """A structured kernel's out= takes the result's dtype only (PyTorch's linalg.inv, solve, cholesky ...)."""
    if out._dtype is not r._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(r._dtype)}, but got "
                           f"{cpp_type_name(out._dtype)} instead")


def _castable_dtype(op: str):
    """The out= check of PyTorch's composite linalg kernels: any dtype the result casts to without a category
    downcast (a float64 result into float32, not into int64)."""
    def check(out: Tensor, r: Tensor) -> None:
        if not dtypes.can_cast(r._dtype, out._dtype):
            raise RuntimeError(f"{op}: Expected result to be safely castable from {dtypes.TORCH_NAMES[r._dtype.name]} "
                               f"dtype, but got result with dtype {dtypes.TORCH_NAMES[out._dtype.name]}")
    return check


def _castable_then_exact(op: str):
    """matrix_power's out=: its composite's castable check, then its matmul's exact one."""
    castable = _castable_dtype(op)

    def check(out: Tensor, r: Tensor) -> None:
        castable(out, r)
        _exact_dtype(out, r)
    return check


def _norm_dtype(op: str):
    """linalg.norm and matrix_norm's out= check, in their own words."""
    def check(out: Tensor, r: Tensor) -> None:
        if out._dtype is not r._dtype:
            raise RuntimeError(f"{op} expected out tensor dtype {dtypes.TORCH_NAMES[r._dtype.name]} but got: "
                               f"{dtypes.TORCH_NAMES[out._dtype.name]}")
    return check


def _multi_dot_dtype(out: Tensor, r: Tensor) -> None:
    if out._dtype is not r._dtype:
        raise RuntimeError(f"multi_dot(): expected out tensor to have dtype {cpp_type_name(r._dtype)} but got "
                           f"{cpp_type_name(out._dtype)}")


def _scalar_type(out: Tensor, r: Tensor) -> None:
    """solve_triangular's out=: its trsm kernel's scalar-type check."""
    if out._dtype is not r._dtype:
        raise RuntimeError(f"expected scalar type {dtypes.TORCH_NAMES[r._dtype.name]} but found "
                           f"{dtypes.TORCH_NAMES[out._dtype.name]}")


def _write(out: Tensor, r: Tensor, out_dtype=None, lapack: bool = False) -> Tensor:
    """`r` copied into `out`, after `out_dtype(out, r)`'s check of out's dtype. A resized `out` is row-major, but
    where PyTorch's kernel writes LAPACK's result into `out` itself (`lapack`: the structured kernels, whose
    checks are exact, and cholesky_inverse of out's dtype) it takes the result's strides (column-major)."""
    if out_dtype is not None:
        out_dtype(out, r)
    if out._shape != r._shape:
        keep = lapack or out_dtype is _exact_dtype or out_dtype is _scalar_type
        _resize_out(out, r._shape, (lambda shape: r._strides) if keep and out._dtype is r._dtype else None)
    return S.copy_(out, r)


def writes_out(fn=None, kernel: str | None = None, out_dtype=None):
    """`fn(..., out=)` for a function that computes a new result: the result (one tensor, or a tuple of them) is
    written into `out` as PyTorch's out= variants write it (a tuple's dtypes must match; one tensor's as
    `out_dtype(out, result)` checks it, any by default; resized) and `out` is returned in its place. With `kernel`
    (the ATen op PyTorch's out= form runs), an input that requires grad is refused under grad mode with that op's
    RuntimeError, as PyTorch's; `@writes_out(kernel=...)` decorates."""
    if fn is None:
        return functools.partial(writes_out, kernel=kernel, out_dtype=out_dtype)
    base = fn.__name__.lstrip("_")  # `_linalg_slogdet` names itself linalg_slogdet
    name = base if base.startswith("linalg_") or base in _TORCH_NAMESPACE else f"linalg_{base}"

    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is not None and kernel is not None and _needs_grad(args + tuple(kwargs.values())):
            raise RuntimeError(f"{kernel}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        r = fn(*args, **kwargs)
        if out is None:
            return r
        if isinstance(r, Tensor):
            return _write(out, r, out_dtype)
        if not isinstance(out, tuple | list):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        if len(out) != len(r):
            raise TypeError(f"{name}(): argument 'out' must be tuple of {len(r)} Tensors, got {len(out)}")
        for o, x in zip(out, r):
            if o._dtype is not x._dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(x._dtype)}, but got "
                                   f"{cpp_type_name(o._dtype)} instead")
        written = [S.copy_(_resized(o, x), x) for o, x in zip(out, r)]
        if is_structseq(r):
            return tuple.__new__(out_type(type(r)), written)
        return rebuilt(r, written) if isinstance(r, tuple) else tuple(written)

    return with_out


# Two triangular solves on every device; their derivatives are PyTorch's formulas for the whole factor
# (a gradient outside its triangle too), not the solves' (autograd's table).
_cholesky_solve = declare("cholesky_solve", doc="cholesky_solve(input, input2, upper) -> Tensor")
_cholesky_inverse = declare("cholesky_inverse", doc="cholesky_inverse(input, upper) -> Tensor")


@_cholesky_solve.register("any")
def _cholesky_solve_any(input, input2, upper=False):
    """cholesky_solve(B (*, n, k), factor (*, n, n), upper): only the factor's triangle is read."""
    y = solve_triangular(_mH(input2) if upper else input2, input, upper=False)
    return solve_triangular(input2 if upper else _mH(input2), y, upper=True)


@_cholesky_inverse.register("any")
def _cholesky_inverse_any(input, upper=False):
    n = input._shape[-1]
    if input._dtype.is_complex and input.numel():
        h = input._host_array()
        d = np.diagonal(h, 0, -2, -1)
        if np.any(d.imag != 0):  # not a Cholesky factor: PyTorch's potri reads the diagonal its own way
            from ember.core.creation import tensor

            f = np.swapaxes(h, -1, -2).conj() if upper else h
            r = np.stack([_potri_lower(m) for m in f.reshape((-1, n, n))]).reshape(h.shape)
            if upper:  # lauum's last diagonal entry: Re(x) x of inv(U)'s, the conjugate of inv(U^H)'s
                r[..., n - 1, n - 1] = r[..., n - 1, n - 1].conj()
            return tensor(r, dtype=input._dtype, device=input.device)
    return _cholesky_solve_any(ew.add(ew.mul(input, 0), eye(n, dtype=input._dtype, device=input.device)), input,
                               upper)


def _potri_lower(f: np.ndarray, nb: int = 32) -> np.ndarray:
    """LAPACK's potri of a complex lower factor whose diagonal is not real, as PyTorch's CPU (MKL) computes it:
    X = inv(L) (a true inverse), then lauum's blocked X^H X (blocks of 32), whose unblocked step reads each
    diagonal entry's real part only (all but its last, which it scales by that real part) and whose herk update
    drops the diagonal's imaginary parts; the upper triangle is the lower one's conjugate."""
    n = f.shape[0]
    a = np.tril(np.linalg.inv(np.tril(f)))
    for i in range(0, n, nb):
        b = slice(i, min(i + nb, n))
        blk = a[b, b].copy()
        a[b, :i] = blk.conj().T @ a[b, :i]
        re = blk.copy()
        np.fill_diagonal(re, blk.diagonal().real)
        r = np.tril(re.conj().T @ re)
        r[-1, -1] = blk[-1, -1].real * blk[-1, -1]
        a[b, b] = r
        if b.stop < n:
            below = a[b.stop:, b]
            a[b, :i] += below.conj().T @ a[b.stop:, :i]
            c = a[b, b] + np.tril(below.conj().T @ below)
            np.fill_diagonal(c, c.diagonal().real)
            a[b, b] = c
    return np.tril(a) + np.tril(a, -1).conj().T


def _cholesky_solve_checks(B: Tensor, A: Tensor) -> None:
    """PyTorch's own words for cholesky_solve's operands (b, then the factor u), before any solve runs."""
    for x, name in ((B, "b"), (A, "u")):
        if x.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {x.ndim} dimensions instead")
    check_linear_solve("cholesky_solve", B, A)


@method
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """X with A X = B, given B (`input`, (*, n, k)) and the Cholesky factor of A (`input2`: L with
    A = L L^H, or U with A = U^H U when `upper`)."""
    _cholesky_solve_checks(input, input2)
    refuse_dtype(input, "cholesky_solve_cpu", True)
    r = _cholesky_solve(input, input2, upper)
    return r if out is None else _write(out, r, _castable_dtype("cholesky_solve"))


@method
def cholesky_inverse(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:
    """The inverse of A from its Cholesky factor (L, or U when `upper`)."""
    _at_least_2d("cholesky_inverse", "A", input)
    if input._shape[-1] != input._shape[-2]:
        raise RuntimeError("cholesky_inverse: A must be batches of square matrices, but they are "
                           f"{input._shape[-2]} by {input._shape[-1]} matrices")
    refuse_dtype(input, "cholesky_inverse_out_cpu", True)
    _refuse_zero_diagonal(input)
    r = _cholesky_inverse(input, upper)
    return r if out is None else _write(out, r, _castable_dtype("cholesky_inverse"), lapack=True)


def _refuse_zero_diagonal(factor: Tensor) -> None:
    """cholesky_inverse's LinAlgError for a factor with a zero on its diagonal (LAPACK potri's info), naming the
    first such matrix of a batch and the 1-based element, as PyTorch's CPU kernel; a NaN there is not refused."""
    if factor.device.type != "cpu" or not factor.numel():
        return
    zero = (np.diagonal(factor._np(), 0, -2, -1) == 0).reshape(-1, factor._shape[-1])
    if zero.any():
        b = int(np.flatnonzero(zero.any(-1))[0])
        where = f"(Batch element {b}): " if factor.ndim > 2 else ""
        raise LinAlgError(f"cholesky_inverse: {where}The diagonal element {int(np.flatnonzero(zero[b])[0]) + 1} is "
                          "zero, the inversion could not be completed because the input matrix is singular.")


@writes_out(kernel="linalg_cholesky_ex")
@parsed("linalg_cholesky_ex", A=("input", "Tensor"), upper="bool", check_errors="bool")
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """`(L, info)`: the Cholesky factor and, per matrix, 0 or the order of the first leading minor that is
    not positive-definite; such a matrix's L is LAPACK's partial factor, as PyTorch's (`cholesky_partial`);
    raises only when `check_errors`."""
    try:
        return _CholeskyEx(_linalg_cholesky(A, upper=upper), zeros(A._shape[:-2], dtype=dtypes.int32, device=A.device))
    except LinAlgError as e:
        if check_errors:
            raise _renamed(e, "linalg.cholesky_ex") from None
    from ember.core.creation import tensor

    flat = S.view(L.contiguous(A), (-1,) + A._shape[-2:])
    factors, infos = [], []
    for a in L.unbind(flat, 0):
        try:
            factors.append(_linalg_cholesky(a, upper=upper))
            infos.append(0)
        except LinAlgError:
            h = a._host_array()
            f, k = cholesky_partial(h.T.conj() if upper else h)
            factors.append(tensor(f.T.conj() if upper else f, dtype=A._dtype, device=A.device))
            infos.append(k)
    return _CholeskyEx(S.view(J.stack(factors), A._shape),
                       S.view(tensor(infos, dtype=dtypes.int32, device=A.device), A._shape[:-2]))


# --- LU with partial pivoting -------------------------------------------------------------------
def _lu_packed(A: Tensor):
    """Doolittle LU with partial pivoting, LAPACK's getrf layout: (LU, pivots (1-based, int32), info).

    Each step picks the largest |entry| of the column (|re| + |im| for complex, LAPACK's izamax; the first
    on a tie, a NaN only in first place), swaps the rows of the whole packed matrix, and eliminates below with
    out-of-place ops, so it differentiates."""
    m, n = A._shape[-2:]
    batch = A._shape[:-2]
    U = A
    rows = arange(m, device=A.device)
    pivots, info = [], zeros(batch, dtype=dtypes.int32, device=A.device)
    for j in range(min(m, n)):
        col = U[..., j:, j]
        size = ew.add(ew.abs(col.real), ew.abs(col.imag)) if col._dtype.is_complex else ew.abs(col)
        nan = ew.isnan(size)  # LAPACK's izamax: a NaN wins only in first place (no later entry compares above it)
        first = ew.eq(arange(m - j, device=A.device), 0)
        size = ew.where(nan, ew.where(first, math.inf, -1.0), size)
        p = ew.add(R.argmax(size, -1), j)  # (*,)
        pivots.append(p)
        pe = S.unsqueeze(p, -1)
        swap = ew.where(ew.eq(rows, j), pe, ew.where(ew.eq(rows, pe), j, rows))  # (*, m)
        U = I.gather(U, -2, L.expand(S.unsqueeze(swap, -1), batch + (m, n)))
        piv = U[..., j:j + 1, j:j + 1]
        zero = ew.eq(piv, 0)
        info = ew.where(ew.logical_and(ew.eq(info, 0), S.view(zero, batch)), j + 1, info)
        if j + 1 < m:
            below = U[..., j + 1:, :]
            mult = ew.where(zero, 0.0, ew.div(below[..., :, j:j + 1], ew.where(zero, 1.0, piv)))
            right = ew.sub(below[..., :, j + 1:], ew.mul(mult, U[..., j:j + 1, j + 1:]))
            U = J.cat([U[..., :j + 1, :], J.cat([below[..., :, :j], mult, right], -1)], -2)
    piv_t = S.to_dtype(ew.add(J.stack(pivots, -1), 1), dtypes.int32) if pivots else \
        zeros(batch + (0,), dtype=dtypes.int32, device=A.device)
    return U, piv_t, S.to_dtype(info, dtypes.int32)


def _check_lu_input(op: str, A: Tensor) -> None:
    if A.ndim < 2:  # PyTorch words it per entry point: linalg.lu names itself, the packed ones torch.lu_factor
        name = "linalg.lu" if op == "linalg.lu" else "torch.lu_factor"
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    refuse_dtype(A, "lu_cpu", True)
    _check_float(op, A)


@writes_out(kernel="linalg_lu_factor_ex")
@parsed("linalg_lu_factor", A="Tensor", pivot="bool")
def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    """`(LU, pivots)`: the packed LU factorisation with partial pivoting of A (*, m, n); pivots are
    LAPACK's 1-based row swaps. Raises `LinAlgError` for a singular A, as PyTorch."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    bad = info.reshape(-1).tolist() if info.numel() else []
    for k in bad:
        if k:
            raise RuntimeError(f"torch.linalg.lu_factor: U[{k},{k}] is zero and using it on lu_solve would result in "
                              "a division by zero. If you still want to perform the factorization, consider calling "
                              "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return _LUFactor(LU, piv)


@writes_out(kernel="linalg_lu_factor_ex")
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    """`(LU, pivots, info)`: `lu_factor` that reports a zero pivot in `info` (1-based) instead of raising."""
    _check_lu_input("linalg.lu_factor_ex", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, info = _lu_packed(A)
    LU = node_name(_lapack_layout(LU), "TransposeBackward0", "LinalgLuFactorExBackward0")
    if check_errors and bool(R.any(ew.ne(info, 0))):
        raise LinAlgError("linalg.lu_factor_ex: The factorization could not be completed because the input is not "
                          "full rank.")
    return _LUFactorEx(LU, piv, info)


def _permutation(pivots: Tensor, m: int) -> Tensor:
    """The row order `perm` (P A = A[perm]) that LAPACK's sequential swaps `pivots` make, (*, m)."""
    batch = pivots._shape[:-1]
    rows = L.expand(arange(m, device=pivots.device), batch + (m,))
    perm = rows
    for j in range(pivots._shape[-1]):
        p = S.unsqueeze(ew.sub(S.to_dtype(pivots[..., j], dtypes.int64), 1), -1)
        swap = ew.where(ew.eq(rows, j), p, ew.where(ew.eq(rows, p), j, rows))
        perm = I.gather(perm, -1, swap)
    return perm


@writes_out(kernel="lu_unpack")
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True, *, out=None):
    """`(P, L, U)` with A = P L U from `lu_factor`'s packed result; a part not unpacked is an empty tensor of
    LU_data's dtype, as PyTorch's."""
    check_lu_unpack_pivots(LU_data, LU_pivots)
    m, n = LU_data._shape[-2:]
    k = min(m, n)
    Lm = Um = P = zeros((0,), dtype=LU_data._dtype, device=LU_data.device)
    if unpack_data:
        Lm = _unit_diagonal(J.tril(LU_data, -1)[..., :, :k])
        Um = J.triu(LU_data)[..., :k, :]
    if unpack_pivots:
        perm = _permutation(LU_pivots, m)
        # P A = LU with (P A)[i] = A[perm[i]]; PyTorch returns the P of A = P L U, its transpose (row-major)
        P = S.to_dtype(ew.eq(S.unsqueeze(arange(m, device=LU_data.device), -1), S.unsqueeze(perm, -2)),
                       LU_data._dtype)
    return _LUUnpack(P, Lm, Um)


@writes_out(kernel="linalg_lu")
def linalg_lu(A: Tensor, *, pivot: bool = True, out=None):
    """`(P, L, U)` with A = P L U, L unit lower triangular, U upper triangular."""
    _check_lu_input("linalg.lu", A)
    LU, piv, _ = _lu_packed(A)
    P, Lm, Um = lu_unpack(LU, piv)
    return _PLU(P, _op_node(Lm, "LinalgLuBackward0"), _op_node(Um, "LinalgLuBackward0"))  # PyTorch's node's name


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,
                    out=None) -> Tensor:
    """X with A X = B (X A = B when not `left`; A^H in place of A when `adjoint`) from A's `lu_factor`."""
    if out is not None:
        refuse_out_with_grad("linalg_lu_solve", LU, B)
    check_lu_solve(LU, pivots, B, left)
    refuse_dtype(LU, "linalg.lu_solve_cpu")
    P, Lm, Um = lu_unpack(LU, pivots)
    if not left:  # X A = B  <=>  A^H X^H = B^H
        r = _mH(linalg_lu_solve(LU, pivots, _mH(B), left=True, adjoint=not adjoint))
    elif adjoint:  # A^H X = B with A = P L U: U^H L^H P^T X = B
        y = solve_triangular(_mH(Um), B, upper=False)
        z = solve_triangular(_mH(Lm), y, upper=True, unitriangular=True)
        r = _lapack_layout(_matmul(P, z))
    else:
        y = solve_triangular(Lm, _matmul(_mT(P), B), upper=False, unitriangular=True)
        r = solve_triangular(Um, y, upper=True)
    return r if out is None else _write(out, r, _exact_dtype)


# --- the *_ex variants --------------------------------------------------------------------------
def _renamed(e: LinAlgError, op: str) -> LinAlgError:
    """The same failure named after the function PyTorch names (`linalg.inv_ex: ...`, tensorinv's `inv: ...`)."""
    text = str(e)
    return LinAlgError(op + text[text.index(":"):])


def _inv_named(op: str, A: Tensor) -> Tensor:
    try:
        return inv(A)
    except LinAlgError as e:
        raise _renamed(e, op) from None


def _nan(A: Tensor):
    """The fill of a failed matrix's result: NaN, nan+nanj for complex (as PyTorch)."""
    return complex(math.nan, math.nan) if A._dtype.is_complex else math.nan


@writes_out(kernel="linalg_inv_ex")
def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    """`(inverse, info)`: info is 0, or the 1-based index of the first zero pivot of a singular matrix (whose
    inverse is then NaN); raises only when `check_errors`."""
    try:
        return _InvEx(inv(A), zeros(A._shape[:-2], dtype=dtypes.int32, device=A.device))
    except LinAlgError as e:
        if check_errors:
            raise _renamed(e, "linalg.inv_ex") from None
    _, _, info = _lu_packed(A)
    ok = S.unsqueeze(S.unsqueeze(ew.eq(info, 0), -1), -1)
    n = A._shape[-1]
    safe = ew.where(ok, A, eye(n, dtype=A._dtype, device=A.device))
    try:
        good = inv(safe)
    except LinAlgError:  # a pivot numpy's LU finds zero and the packed LU does not: LAPACK's order throughout
        return _InvEx(_singular_solutions(A, ew.add(info, 1), None), info)
    return _InvEx(ew.where(ok, good, _singular_solutions(A, info, None)), info)


def _singular_solutions(A: Tensor, info: Tensor, B: Tensor | None, left: bool = True, vector: bool = False) -> Tensor:
    """What PyTorch's LAPACK getrs returns for the singular matrices of A (info != 0): `A^-1`, or X with A X = B
    (X A = B when not `left`), infs and NaNs from the zero pivot; the others' entries are 0 (not read)."""
    from ember.core.creation import tensor
    from ember.core.ops.linalg_solvers import getrs

    a = A._host_array()
    n = a.shape[-1]
    if B is None:
        b = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    else:
        b = B._host_array()
        b = b[..., None] if vector else b
        b = np.swapaxes(b, -1, -2) if not left else b
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1, n, n))
    b = np.broadcast_to(b, batch + b.shape[-2:])
    res = np.zeros(b.shape, dtype=np.result_type(a.dtype, b.dtype)).reshape((-1,) + b.shape[-2:])
    bad = np.broadcast_to(info._host_array(), batch).reshape(-1)
    for i in np.flatnonzero(bad):
        res[i] = getrs(a[i], b.reshape(res.shape)[i], transpose=not left)
    res = res.reshape(b.shape)
    res = np.swapaxes(res, -1, -2) if not left else res
    return tensor(res[..., 0] if vector else res, dtype=A._dtype, device=A.device)


@writes_out(kernel="_linalg_solve_ex")
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """`(result, info)`: `linalg.solve` that reports a singular A in info (result NaN) instead of raising."""
    try:
        return _SolveEx(solve(A, B, left=left), zeros(A._shape[:-2], dtype=dtypes.int32, device=A.device))
    except LinAlgError as e:
        if check_errors:
            raise _renamed(e, "torch.linalg.solve_ex") from None
    _, _, info = _lu_packed(A)
    ok = S.unsqueeze(S.unsqueeze(ew.eq(info, 0), -1), -1)
    safe = ew.where(ok, A, eye(A._shape[-1], dtype=A._dtype, device=A.device))
    vec = solve_is_vector(A, B)
    try:
        r = solve(safe, B, left=left)
    except LinAlgError:  # a pivot numpy's LU finds zero and the packed LU does not: LAPACK's order throughout
        return _SolveEx(_singular_solutions(A, ew.add(info, 1), B, left, vec), info)
    return _SolveEx(ew.where(S.squeeze(ok, -1) if vec else ok, r, _singular_solutions(A, info, B, left, vec)), info)


# --- matrix functions ---------------------------------------------------------------------------
@method
@parsed("matrix_exp", input="Tensor")
def matrix_exp(input: Tensor) -> Tensor:
    """e^A of each square matrix: scaling and squaring over a degree-18 Taylor series (float64-accurate)."""
    A = input
    _at_least_2d("linalg.matrix_exp", "A", A)
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")
    _check_float("linalg.matrix_exp", A)
    n = A._shape[-1]
    if A.numel() == 0:
        return L.clone(A)
    norm1 = float(R.amax(R.sum(ew.abs(A), -2)).item())
    s = max(0, math.ceil(math.log2(norm1))) + 1 if norm1 > 0.5 else 0
    X = ew.div(A, 2.0 ** s)
    term = ew.add(ew.mul(X, 0), eye(n, dtype=A._dtype, device=A.device))
    total = term
    for k in range(1, 19):
        term = ew.div(_matmul(term, X), float(k))
        total = ew.add(total, term)
    for _ in range(s):
        total = _matmul(total, total)
    for made in ("MmBackward0", "BmmBackward0", "UnsafeViewBackward0", "ViewBackward0", "AddBackward0"):
        total = node_name(total, made, "LinalgMatrixExpBackward0")
    return total


@overloads("linalg_cond", ["(Tensor input, Number p = None, *, Tensor out = None)",
                            "(Tensor input, str p, *, Tensor out = None)"], _solvers.order_invalid("p"))
@writes_out(out_dtype=_castable_dtype("linalg.cond"))
def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """The condition number of each matrix in the norm `p` (2, the ratio of extreme singular values, by default)."""
    _at_least_2d("linalg.cond", "A", A)
    if p not in (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):  # PyTorch's graph: slices of svdvals divided, then squeezed
        s = svdvals(A)
        hi, lo = s[..., :1], s[..., -1:]
        return L.squeeze(ew.div(hi, lo) if p != -2 else ew.div(lo, hi), -1)
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A._shape[-2]} by {A._shape[-1]} matrices")
    if p == "nuc":  # from the singular values alone: sum(s) * sum(1 / s), inf for a singular matrix
        s = svdvals(A)
        return ew.mul(R.sum(s, -1), R.sum(ew.reciprocal(s), -1))
    inverse, info = inv_ex(A)  # a singular matrix's inverse is inf, not an error; a NaN product is inf (PyTorch)
    inverse = I.masked_fill(inverse, ew.gt(S.unsqueeze(S.unsqueeze(info, -1), -1), 0), math.inf)
    return nan_to_num(ew.mul(matrix_norm(A, p), matrix_norm(inverse, p)), math.inf, math.inf, -math.inf)


@parsed("linalg_diagonal", A="Tensor", offset="int", dim1="int", dim2="int")
def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """`torch.linalg.diagonal`: `A.diagonal` over the last two dims by default."""
    return L.diagonal(A, offset, dim1, dim2)


@writes_out(out_dtype=_castable_dtype("tensorinv"))
def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """The inverse of A viewed as a matrix of its first `ind` dims by the rest; shape A.shape[ind:] + A.shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A._shape[:ind], A._shape[ind:]
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}")
    return L.reshape(_inv_named("inv", L.reshape(A, (math.prod(rows), math.prod(cols)))), cols + rows)


@writes_out(out_dtype=_castable_dtype("tensorsolve"))
@parsed("linalg_tensorsolve", A="Tensor", B="Tensor", dims="tuple of ints?")
def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B; `dims` of A move to the end first."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = S.permute(A, tuple(d for d in range(A.ndim) if d not in dims) + tuple(dims))
    rest = A._shape[B.ndim:]
    m, n = math.prod(B._shape), math.prod(rest)
    if m != n:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {n} != {m}")
    return L.reshape(solve(L.reshape(A, (m, n)), L.reshape(B, (m,))), rest)


@parsed("linalg_vander", x="Tensor", N="int?")
def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of x (*, n): columns x^0, x^1, ..., x^(N-1) (N = n by default)."""
    if x._dtype is dtypes.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    x = S.unsqueeze(x, -1) if x.ndim == 0 else x  # a number is a vector of one, as in PyTorch
    n = x._shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    return vandermonde(x, n)


def vandermonde(x: Tensor, n: int) -> Tensor:
    """The columns x^0 ... x^(n-1) of x (*, m), unchecked: `linalg.vander` and `torch.vander` (which takes n <= 1)."""
    dt = x._dtype if x._dtype is not dtypes.bool else dtypes.int64
    ones = full(x._shape + (1,), 1, dtype=dt, device=x.device)
    if n <= 1:
        return ones[..., :n]
    powers = R.cumprod(L.expand(S.unsqueeze(S.to_dtype(x, dt) if x._dtype is not dt else x, -1),
                                x._shape + (n - 1,)), -1)
    return J.cat([ones, powers], -1)


@writes_out(kernel="linalg_householder_product", out_dtype=_castable_dtype("torch.linalg.householder_product"))
@parsed("linalg_householder_product", A=("input", "Tensor"), tau="Tensor")
def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i = (0, ..., 1, A[i+1:, i])."""
    _at_least_2d("linalg.householder_product", "A", A)
    refuse_dtype(A, "orgqr_cpu", True)
    m, n = A._shape[-2:]
    k = tau._shape[-1]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if n < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    rows = arange(m, device=A.device)
    Q = ew.add(ew.mul(A[..., :, :1], 0), eye(m, dtype=A._dtype, device=A.device))  # (*, m, m)
    for i in range(k):
        v = ew.where(ew.lt(rows, i), 0.0, ew.where(ew.eq(rows, i), 1.0, A[..., :, i]))  # (*, m)
        Qv = _matmul(Q, S.unsqueeze(v, -1))  # (*, m, 1)
        Q = ew.sub(Q, ew.mul(S.unsqueeze(S.unsqueeze(tau[..., i], -1), -1), ew.mul(Qv, S.unsqueeze(conj(v), -2))))
    return _lapack_layout(Q[..., :, :n])


@writes_out(kernel="linalg_lstsq")
@parsed("linalg_lstsq", A=("self", "Tensor"), B=("b", "Tensor"), rcond="float?", driver="str?")
@composite("linalg_lstsq")
def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver: str | None = None):
    """`(solution, residuals, rank, singular_values)` of min ||A X - B||, from the pseudo-inverse. Which of
    the last three are filled follows PyTorch's CPU drivers: 'gelsy' (the default) gives the rank,
    'gels' the residuals, 'gelsd'/'gelss' all three; the others are empty. Residuals and singular values
    are real for a complex A."""
    if A.ndim < 2:  # PyTorch's checks in its order: dims, dtypes, shapes, then the driver
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A._dtype is not B._dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
                           f"{dtypes.TORCH_NAMES[A._dtype.name]} and other's dtype {dtypes.TORCH_NAMES[B._dtype.name]}")
    if not (A._dtype.is_floating_point or A._dtype.is_complex) or A._dtype in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if not 0 <= A.ndim - B.ndim <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    # a vector right-hand side is (*, m) with A's batch exactly (linalg.solve's rule); another B of one dim
    # fewer is a matrix whose batch PyTorch still broadcasts as a vector's, B.shape[:-1] against A.shape[:-2]
    vector = solve_is_vector(A, B)
    Bm = S.unsqueeze(B, -1) if vector else B
    if Bm._shape[-2] != A._shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})")
    if not vector and B.ndim == A.ndim - 1:
        Bm = S.expand(B, broadcast_shapes(A._shape[:-2], B._shape[:-1]) + B._shape[-2:])
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    m, n = A._shape[-2:]
    eps = finfo(A._dtype.to_real()).eps
    rtol = eps * max(m, n) if rcond is None else rcond
    # gels (QR) truncates no singular value, whatever rcond says
    X = _lapack_layout_lstsq(_matmul(pinv(A, rtol=0.0 if driver == "gels" else rtol), Bm), m)
    empty = zeros((0,), dtype=A._dtype.to_real(), device=A.device)
    s = svdvals(A) if driver in ("gelsy", "gelsd", "gelss") else None
    rank = empty_rank = zeros((0,), dtype=dtypes.int64, device=A.device)
    if s is not None:
        cut = ew.mul(s[..., :1], rtol)
        rank = R.sum(S.to_dtype(ew.gt(s, cut), dtypes.int64), -1)
    residuals = empty
    if driver != "gelsy" and m > n and (rank is empty_rank or bool(R.all(ew.eq(rank, n)))):
        err = ew.sub(_matmul(A, X), Bm)
        # a vector B keeps its column here, (*, 1), as PyTorch's residuals do
        residuals = R.sum(ew.square(ew.abs(err) if err._dtype.is_complex else err), -2)
    sv = s if driver in ("gelsd", "gelss") else empty
    return _Lstsq(_op_node(S.squeeze(X, -1) if vector else X, "LinalgLstsqBackward0"), residuals, rank, sv)


def _lapack_layout_lstsq(X: Tensor, m: int) -> Tensor:
    """lstsq's solution X (*, n, k) as PyTorch returns it: the top n rows of LAPACK's column-major
    (*, max(m, n), k) right-hand side, which the solver overwrites (strides `(max(m, n)*k, 1, max(m, n))`)."""
    n, k = X._shape[-2:]
    if m > n:
        X = J.cat([X, zeros(X._shape[:-2] + (m - n, k), dtype=X._dtype, device=X.device)], -2)
    return _lapack_layout(X)[..., :n, :]


# --- Householder QR in LAPACK's layout --------------------------------------------------------------
_Geqrf = _rt("geqrf", ["a", "tau"])


@method
@writes_out(kernel="geqrf")
def geqrf(input: Tensor, *, out=None):
    """`(a, tau)`: LAPACK's packed Householder QR of input (*, m, n): R on and above the diagonal of `a`, the
    reflectors' vectors below it (their leading 1 implied), and their scales `tau`; composed so it
    differentiates. `householder_product(a, tau)` rebuilds Q. Complex input follows LAPACK's zgeqr2: R's
    diagonal is real, and each reflector H = I - tau v v^H is applied to the columns on the right as H^H."""
    _at_least_2d("geqrf", "input", input)
    refuse_dtype(input, "geqrf_cpu", True)
    _check_float("geqrf", input)
    m, n = input._shape[-2:]
    cplx = input._dtype.is_complex
    R = input
    taus = []
    for j in range(min(m, n)):
        alpha = R[..., j:j + 1, j:j + 1]  # (*, 1, 1)
        below = R[..., j + 1:, j:j + 1]  # (*, m-j-1, 1)
        sigma = _sum_sq(below)
        norm = ew.sqrt(ew.add(_sum_sq(alpha), sigma))
        # LAPACK's dlarfg/zlarfg: beta = -sign(Re alpha) |x|, real
        beta = ew.where(ew.ge(alpha.real if cplx else alpha, 0), ew.neg(norm), norm)
        trivial = ew.eq(sigma, 0)  # nothing below the diagonal (and alpha real): no reflection (tau = 0)
        if cplx:
            trivial = ew.logical_and(trivial, ew.eq(alpha.imag, 0))
        safe_beta = ew.where(trivial, 1.0, beta)
        tau = ew.where(trivial, 0.0, ew.div(ew.sub(safe_beta, alpha), safe_beta))
        v = ew.where(trivial, 0.0, ew.div(below, ew.where(trivial, 1.0, ew.sub(alpha, safe_beta))))
        vfull = J.cat([ew.add(ew.mul(alpha, 0), 1.0), v], -2)  # (*, m-j, 1)
        rest = R[..., j:, j + 1:]  # apply H^H = I - conj(tau) v v^H to the columns on the right
        rest = ew.sub(rest, ew.mul(conj(tau), _matmul(vfull, _matmul(_mH(vfull), rest))))
        col = J.cat([ew.where(trivial, alpha, beta), v], -2)
        R = J.cat([R[..., :j, :], J.cat([R[..., j:, :j], col, rest], -1)], -2)
        taus.append(S.view(tau, input._shape[:-2]))
    tau = J.stack(taus, -1) if taus else zeros(input._shape[:-2] + (0,), dtype=input._dtype, device=input.device)
    return _Geqrf(_lapack_layout(R), tau)


def _sum_sq(x: Tensor) -> Tensor:
    """The sum of squared moduli over the rows of the column x (*, k, 1), kept as (*, 1, 1); real."""
    return R.sum(ew.square(ew.abs(x) if x._dtype.is_complex else x), -2, keepdim=True)


def _check_ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool) -> None:
    """PyTorch's checks of ormqr's operands, in its order: ranks, the sizes Q meets `other` by and tau's length,
    then batch dims and dtypes."""
    if input.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other._shape[side] != input._shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau._shape[-1] != min(other._shape[side], input._shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(f"torch.ormqr: Expected tau to have one dimension less than input, but got tau.ndim equal "
                           f"to {tau.ndim} and input.ndim is equal to {input.ndim}")
    if input.ndim != other.ndim:
        raise RuntimeError(f"torch.ormqr: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}")
    for name, t in (("tau", tau), ("other", other)):
        if t._shape[:input.ndim - 2] != input._shape[:-2]:
            raise RuntimeError(f"torch.ormqr: Expected batch dimensions of {name} to be equal to input.shape[:-2], "
                               f"but got {list(t._shape[:input.ndim - 2])}")
    for name, t in (("tau", tau), ("other", other)):
        if t._dtype is not input._dtype:
            raise RuntimeError(f"torch.ormqr: Expected input and {name} to have the same dtype, but input has dtype"
                               f"{dtypes.TORCH_NAMES[input._dtype.name]} and {name} has dtype "
                               f"{dtypes.TORCH_NAMES[t._dtype.name]}")


@method
@writes_out(kernel="ormqr")
def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False, *,
          out=None) -> Tensor:
    """The product of Q (from `geqrf`'s `input`, `input2` = tau) with `input3`: Q C, Q^H C, C Q or C Q^H."""
    _check_ormqr(input, input2, input3, left)
    m = input._shape[-2]
    pad = m - input._shape[-1]
    a = J.cat([input, zeros(input._shape[:-1] + (pad,), dtype=input._dtype, device=input.device)], -1) if pad > 0 \
        else input[..., :, :m]
    Q = householder_product(a, input2)  # the full m x m Q
    if transpose:
        Q = _mH(Q)
    return _lapack_layout(_matmul(Q, input3) if left else _matmul(input3, Q))


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """`(U, S, V)` of rank q approximating A - M by PyTorch's randomized range finder (Halko et al. 2009,
    algorithm 5.1): its Gaussian test matrix comes from the global generator, as PyTorch's, so a seeded
    program draws the same numbers before and after the call."""
    from ember.core.random import randn

    q, niter = 6 if q is None else q, 2 if niter is None else niter
    m, n = A._shape[-2:]
    M = None if M is None else L.expand(M, A._shape)
    if m < n:  # work on the tall one
        A, M = A.mH, None if M is None else _mH(M)  # (a sparse A's own mH)
    real = (dtypes.float16, dtypes.float32, dtypes.float64)
    dt = A._dtype if A._dtype.is_complex or A._dtype in real else dtypes.float32

    def times(Y, adjoint=False):
        """(A - M) @ Y, or (A - M)^H @ Y, formed as PyTorch forms it: A @ Y - M @ Y (`matmul` takes a sparse A)."""
        r = matmul(A.mH if adjoint else A, Y)
        return r if M is None else ew.sub(r, _matmul(_mH(M) if adjoint else M, Y))

    Q = linalg.qr(times(randn(A._shape[-1], q, dtype=dt, device=A.device))).Q
    for _ in range(niter):
        Q = linalg.qr(times(linalg.qr(times(Q, adjoint=True)).Q)).Q
    B = matmul(_mH(Q), A)
    B = ew.sub(B, _matmul(_mH(Q), M)) if M is not None else B
    u, s, vh = linalg.svd(B, full_matrices=False)
    U, V = _matmul(Q, u), _mH(vh)
    return (V, s, U) if m < n else (U, s, V)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """`(U, S, V)` of the principal components of the rows of A (centered unless `center=False`), rank q
    (min(6, m, n) by default); PyTorch's ValueError for a q above min(m, n) or a negative niter, before any draw."""
    m, n = A._shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter)
    if not A._dense_like:  # a sparse A stays sparse: its column means go in as M, as PyTorch's
        if A.ndim != 2:
            raise ValueError("pca_lowrank input is expected to be 2-dimensional tensor")
        dt = A._dtype if A._dtype.is_floating_point or A._dtype.is_complex else dtypes.float32
        means = ew.div(matmul(full((1, m), 1, dtype=dt, device=A.device), A), m)
        return svd_lowrank(A, q, niter, M=means)
    return svd_lowrank(ew.sub(A, R.mean(A, -2, keepdim=True)), q, niter)


@numpy_aliases
def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002 - PyTorch's name
    """The `pow`-norm of v over every dim but `dim`, kept as size-1 dims (weight normalization's g); over all
    dims when dim is -1."""
    if dim == -1:
        return linalg.vector_norm(v, pow)
    if v.ndim == 0 and dim == 0:  # PyTorch asks v for its size(0)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = v._wrap_dim(dim)
    if v.ndim == 1:  # no other dim: each element's own norm (PyTorch views v as (n, 1) and takes its rows' norms)
        return node_name(linalg.vector_norm(v.unsqueeze(1), pow, (1,)), "LinalgVectorNormBackward0", "ViewBackward0")
    out = linalg.vector_norm(v, pow, tuple(i for i in range(v.ndim) if i != d), True)
    return node_name(out, "LinalgVectorNormBackward0", "ViewBackward0")  # PyTorch's norms of rows, viewed


_weight_norm_op = declare("_weight_norm_interface", doc="_weight_norm_interface(v, g, dim) -> (Tensor, Tensor)")


@_weight_norm_op.register("any")
def _weight_norm_any(v: Tensor, g: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    norms = norm_except_dim(v, 2, dim)
    return ew.mul(v, ew.div(g, norms)), norms


def _weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> tuple[Tensor, Tensor]:
    """`(v * (g / ||v||), ||v||)`, norms over every dim but `dim` (the first or the last): PyTorch's fused
    weight-norm kernel, one op whose node (WeightNormInterfaceBackward0) leads to v and g (the norms carry no
    gradient)."""
    if dim not in (0, v.ndim - 1):
        raise RuntimeError("fused kernels can only be applied for first or last dim")
    w, norms = _weight_norm_op(v, g, dim)
    return w, norms.detach()


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """`v * (g / ||v||)` (weight normalization), norms over every dim but `dim` (all of them for -1): the fused
    form for the first or last dim, as PyTorch's `torch._weight_norm`."""
    if dim in (0, v.ndim - 1):
        return _weight_norm_interface(v, g, dim)[0]
    return ew.mul(v, ew.div(g, norm_except_dim(v, 2, dim)))


# --- PyTorch's top-level names ------------------------------------------------------------------
@method
def lu(A: Tensor, pivot: bool = True, get_infos: bool = False):
    """`torch.lu` (deprecated for `linalg.lu_factor`): `(A_LU, pivots)`, plus `infos` when asked."""
    warn_once(internally(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in "
        "a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
        "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, "
        "get_infos=True)\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
        "aten/src/ATen/native/BatchLinearAlgebra.cpp:2073"))
    _check_lu_input("torch.lu", A)
    LU, piv, info = _lu_packed(A)
    return (LU, piv, info) if get_infos else (LU, piv)


@method
def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """`torch.lu_solve(b, LU_data, LU_pivots)` (deprecated for `linalg.lu_solve`): X with A X = b from A's LU
    factorisation."""
    warn_once(internally(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
        "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\n"
        "should be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
        "aten/src/ATen/native/BatchLinearAlgebra.cpp:2230"))
    return linalg_lu_solve(LU_data, LU_pivots, input, out=out)


@method
@writes_out(kernel="triangular_solve")
def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out=None):
    """`torch.triangular_solve(b, A)` (deprecated for `linalg.solve_triangular`): `(solution, A's copy)`."""
    warn_once(internally(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future "
        "PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one "
        "of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
        "torch.linalg.solve_triangular(A, B).", "aten/src/ATen/native/BatchLinearAlgebra.cpp:2273"))
    for x, name in ((input, "b"), (A, "A")):
        if x.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 dimensions, but it has "
                               f"{x.ndim} dimensions instead")
    check_linear_solve("triangular_solve", input, A)
    T = _mT(A) if transpose else A
    return _TriangularSolve(solve_triangular(T, input, upper=upper != transpose, unitriangular=unitriangular),
                            L.clone(A))


@method
@writes_out(kernel="linalg_householder_product", out_dtype=_castable_dtype("torch.linalg.householder_product"))
def orgqr(input: Tensor, input2: Tensor, *, out=None) -> Tensor:
    """`torch.orgqr`: `linalg.householder_product(input, input2)`."""
    return householder_product(input, input2)


@numpy_aliases
@writes_out(kernel="norm")
def frobenius_norm(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """`torch.frobenius_norm` (deprecated): the 2-norm over `dim`."""
    return linalg.vector_norm(input, 2, dim, keepdim)


@numpy_aliases
@writes_out
def nuclear_norm(input: Tensor, dim=(-2, -1), keepdim: bool = False, *, out=None) -> Tensor:
    """`torch.nuclear_norm` (deprecated): the sum of singular values over the two dims `dim`."""
    if isinstance(dim, bool):
        dim, keepdim = (-2, -1), dim
    return matrix_norm(input, "nuc", dim, keepdim)


for _name, _fn in (("solve_triangular", solve_triangular), ("cholesky_ex", cholesky_ex), ("lu_factor", lu_factor),
                   ("lu_factor_ex", lu_factor_ex), ("lu", linalg_lu), ("lu_solve", linalg_lu_solve),
                   ("inv_ex", inv_ex), ("solve_ex", solve_ex),
                   ("matrix_exp", parsed("linalg_matrix_exp", input="Tensor")(matrix_exp)), ("cond", cond),
                   ("diagonal", diagonal), ("tensorinv", tensorinv), ("tensorsolve", tensorsolve), ("vander", vander),
                   ("householder_product", householder_product), ("lstsq", lstsq)):
    setattr(linalg, _name, _fn)

# `torch.slogdet` takes out= as PyTorch's (its ATen kernel is linalg's): it replaces linalg_solvers' in `ember.core`
slogdet = writes_out(_solvers.slogdet, "_linalg_slogdet")
# so do `torch.cholesky` and `torch.inverse` (the Tensor methods take none)
cholesky = writes_out(_solvers.cholesky, "cholesky", _castable_dtype("cholesky"))
inverse = writes_out(_solvers.inverse, "linalg_inv_ex", _exact_dtype)

# linalg_solvers' torch.linalg functions take PyTorch's out= too (written here, where writes_out lives), with the
# ATen op whose out= form refuses inputs that require grad, and the check its out= makes of out's dtype
for _name, _kernel, _out_dtype in (
        ("inv", "linalg_inv_ex", _exact_dtype), ("det", "_linalg_det", _exact_dtype),
        ("slogdet", "_linalg_slogdet", None), ("solve", "_linalg_solve_ex", _exact_dtype),
        ("cholesky", "linalg_cholesky_ex", _exact_dtype), ("qr", "linalg_qr", None), ("svd", "_linalg_svd", None),
        ("svdvals", "_linalg_svd", _exact_dtype), ("eigh", "_linalg_eigh", None),
        ("eigvalsh", "_linalg_eigh", _exact_dtype), ("pinv", "linalg_pinv", _castable_dtype("linalg.pinv")),
        ("matrix_rank", None, None), ("matrix_power", "matmul", _castable_then_exact("matrix_power")),
        ("multi_dot", "mm", _multi_dot_dtype), ("cross", "linalg_cross", _exact_dtype),
        ("matrix_norm", None, _norm_dtype("linalg.matrix_norm")), ("norm", None, _norm_dtype("linalg.norm"))):
    setattr(linalg, _name, writes_out(getattr(linalg, _name), _kernel, _out_dtype))


# --- norm, covariance: reductions that reach for matrix ops ------------------------------------
@method
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """The `p`-norm over `dim` ("fro" over at most two dims and None mean 2); "nuc" is the nuclear norm of the
    matrices over `dim`, which must be two dims (as "fro" over more)."""
    if input.is_sparse or input.is_sparse_csr:  # over all elements only, PyTorch's sparse kernel
        return input.norm(p, dim, keepdim, out=out, dtype=dtype)
    if dim.__class__ is bool:  # PyTorch's parser of the vector norm it calls takes no bool for a dim
        raise TypeError("linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, but found element "
                        "of type bool at pos 0")
    if isinstance(p, str) and not (p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2)):
        # PyTorch hands "nuc", "fro" over 3+ dims and unknown orders to matrix_norm over `dim` (all dims by
        # default), whose errors then speak
        dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else dim
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    if p is None or p == "fro":
        p = 2
    if input._dtype is dtypes.complex32 and dtype is None and out is None:  # as vector_norm: rounded once
        return norm(input.to(dtypes.complex64), p, dim, keepdim).to(dtypes.float16)
    if input._dtype.is_complex:
        input = input.abs()
    return R._vector_norm(input, float(p), R._dims(dim, input, "norm"), keepdim, dtype, out=out)


def _check_cov_weights(name: str, w: Tensor | None, n: int) -> None:
    """PyTorch's checks of cov's weights: 1-D of one per observation, integral fweights, floating aweights, >= 0."""
    if w is None:
        return
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} "
                           f"dimensions")
    integral = not (w._dtype.is_floating_point or w._dtype.is_complex or w._dtype is dtypes.bool)
    if integral != (name == "fweights"):
        kind = "integral" if name == "fweights" else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{dtypes.TORCH_NAMES[w._dtype.name]} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input but "
                           f"got {w.numel()} != {n}")
    if n and bool(R.amin(w) < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@method
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in the rows of `input` (N, M), observations in the columns."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                         f"{input.ndim} dimensions")
    if input._dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = L.reshape(input, (1, -1)) if input.ndim < 2 else input
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        x = x.to(dtypes.get_default_dtype())
    _check_cov_weights("fweights", fweights, x._shape[1])
    _check_cov_weights("aweights", aweights, x._shape[1])
    w = fweights
    if aweights is not None:
        w = aweights if w is None else ew.mul(w, aweights)
    if w is None:  # PyTorch's sum / count (a 16-bit sum rounds before the division)
        avg = ew.div(R.sum(x, 1, True), x._shape[1])
        norm_factor = x._shape[1] - correction
    else:
        w_sum = R.sum(w)
        if w_sum.item() == 0:  # PyTorch reads the sum too
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = ew.div(R.sum(ew.mul(x, w), 1, True), w_sum)
        norm_factor = ew.sub(w_sum, correction) if aweights is None else \
            ew.sub(w_sum, ew.div(ew.mul(R.sum(ew.mul(w, aweights)), correction), w_sum))
    if isinstance(norm_factor, int) and norm_factor <= 0:
        warn_at_caller(internally("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                                  "number of observations.", "aten/src/ATen/native/Correlation.cpp:129"))
        norm_factor = 0
    xm = ew.sub(x, avg)
    xt = xm.t().conj() if xm._dtype.is_complex else xm.t()  # the conjugate transpose, as PyTorch
    c = ew.div(mm(xm if w is None else ew.mul(xm, w), xt), norm_factor)
    return L.squeeze(c)  # PyTorch's last step, whatever the shape: one variable's variance is 0-dim


@method
def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of `input`, clipped to [-1, 1]."""
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return ew.div(c, c)
    sd = ew.sqrt(c.diagonal())
    c = ew.div(ew.div(c, sd.unsqueeze(1)), sd.unsqueeze(0))
    if c._dtype.is_complex:  # PyTorch clips the real and the imaginary parts
        from ember.core.ops.complex import complex as make_complex

        return make_complex(ew.clamp(c.real, -1, 1), ew.clamp(c.imag, -1, 1))
    return ew.clamp(c, -1, 1)
