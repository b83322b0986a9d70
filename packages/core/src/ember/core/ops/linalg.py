"""Matrix products: mm/bmm/dot/einsum primitives on BLAS, and everything PyTorch composes from
them (matmul's 1-D and batched broadcasting rules, mv, addmm, baddbmm, outer, tensordot, kron,
cdist). `linalg` is the `torch.linalg` namespace; `ember.core.ops.linalg_solvers` fills it.

numpy's matmul calls BLAS when each operand is C- or F-contiguous in its last two dims; an
operand that is (e.g. a transposed view) goes in as is, any other is made contiguous once.
"""

from __future__ import annotations

import builtins
import functools
import numbers
import sys
import types

import numpy as np

from ember.core import dtypes
from ember.core import dispatch as _dispatch
from ember.core import storage as _storage
from ember.core.dispatch import OVERLAP_INTERNAL, composite, declare, node_name
from ember.core.methods import attach, inplace, method, method_positions, numpy_aliases
from ember.core.ops import aliased_products, blas_threads
from ember.core.ops import elementwise as ew
from ember.core.ops import numba_rows
from ember.core.ops._util import _mismatch
from ember.core.ops.arith import refuse_bool_subtraction
from ember.core.ops import shape as S
from ember.core.ops._util import ERRSTATE, IGNORE_ALL, _resize_out, real_value, tp_name, wrap, write_out
from ember.core.ops.arguments import parsed, refuse_out_with_grad
from ember.core.ops.restricted_dtypes import cast_array
from ember.core.ops.reduce import _sum, vector_norm
from ember.core.tensor import Tensor, _contiguous_strides_cached

__all__ = ["mm", "bmm", "matmul", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "addmv", "addbmm",
           "baddbmm", "addr", "einsum", "tensordot", "kron", "cdist", "pdist", "dist", "linalg", "_int_mm"]


_SERIAL = blas_threads.OPENBLAS_SERIAL


def _blas(x: Tensor) -> np.ndarray:
    """x's numpy view when its matrices are BLAS-addressable (row- or column-major), else a copy;
    decided on the tensor's own strides, which is cheaper than asking numpy."""
    a = x._np()
    st = x._strides
    if len(st) < 2:
        return a
    s0, s1 = st[-2], st[-1]
    if (s1 == 1 and s0 >= (x._shape[-1] or 1)) or (s0 == 1 and s1 >= (x._shape[-2] or 1)):  # max(n, 1)
        return a
    return np.ascontiguousarray(a)


# NOTE [ Small batched products by a transposed matrix ]
# OpenBLAS (0.3.x, SkylakeX kernels) multiplies small matrices by a column-major right operand (gemm's "NT")
# about 1.7x slower than by a row-major one: GPT's attention scores, 64 products (64 x 32) @ (32 x 64), took
# 279 us against 158; a transposed left operand ("TN") is as fast as "NN". So bmm lays such a right operand
# out row-major first when each product is at most 64^3 multiply-adds (GPT's Q K^T and dO V^T), by a Numba
# copy (`numba_rows.row_major_batch`: 43 us, numpy's copy of that strided K^T took 373); from 128^3 up the
# copy no longer pays.
_SMALL_GEMM = 64 * 64 * 64


def _gemm_operands(a: Tensor, b: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """`_blas` of both operands of a float product; a batch's small column-major right matrices row-major
    (NOTE [ Small batched products by a transposed matrix ])."""
    xa, xb = _blas(a), _blas(b)
    sb, tb = b._shape, b._strides
    if len(sb) == 3 and tb[1] == 1 and tb[2] != 1 and a._shape[1] * sb[1] * sb[2] <= _SMALL_GEMM:
        r = numba_rows.row_major_batch(xb)
        if r is not None:
            xb = r
    return xa, xb


def _product(a: Tensor, b: Tensor, dt: dtypes.dtype) -> np.ndarray:
    """a @ b in dtype `dt`; float16 and bfloat16 multiply and accumulate in float32 (numpy has no
    half BLAS), rounding once on store as PyTorch's CPU kernels do."""
    if dt is dtypes.float16 or dt is dtypes.bfloat16:
        return blas_threads.matmul(a._np().astype(np.float32), b._np().astype(np.float32)).astype(dt.np)
    if dt in dtypes.FLOAT8:  # float32 accumulation, PyTorch's float8 rounding on store
        return cast_array(blas_threads.matmul(a._np().astype(np.float32), b._np().astype(np.float32)), dt)
    if dt is dtypes.bool:
        return np.matmul(a._np().astype(np.uint8), b._np().astype(np.uint8)) != 0
    return blas_threads.matmul(*_gemm_operands(a, b))


def _same_dtype(a: Tensor, b: Tensor) -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_name(a)} != {_c_name(b)}")


def _check_out_dtype(out, a: Tensor) -> None:
    """PyTorch's products write `out` only in their result's dtype (no cast)."""
    if out is not None and out._dtype is not a._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_c_name(a)}, but got {_c_name(out)} instead")


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool", "complex32": "c10::complex<c10::Half>",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _c_name(x: Tensor) -> str:
    """PyTorch's C++ scalar type names in mm's dtype error: float, double, long ..."""
    return _c_type(x._dtype)


def _c_type(dt: dtypes.dtype) -> str:
    return _C_NAMES.get(dt.name) or "c10::" + dtypes.TORCH_NAMES[dt.name]


def _refuse_bool(kernel: str, a: Tensor, work: bool) -> None:
    """PyTorch's CPU BLAS kernels have no bool instance (`"addmm_impl_cpu_" not implemented for 'Bool'`); an
    empty product (`work` False) returns before them."""
    if a._dtype is dtypes.bool and work:
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(kernel, a._dtype)


def _finish(r: np.ndarray, out, op: str) -> Tensor:
    return write_out(out, r, op) if out is not None else wrap(r)


# --- primitives ----------------------------------------------------------------------------------
_mm = declare("mm", np.matmul, overlap=OVERLAP_INTERNAL, doc="mm(a, b) -> Tensor")


@_mm.meta
def _mm_meta(a, b, *, out=None) -> None:
    sa, sb = a._shape, b._shape
    if len(sa) != 2:
        raise RuntimeError("self must be a matrix")
    if len(sb) != 2:
        raise RuntimeError("mat2 must be a matrix")
    if sa[1] != sb[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})")
    if b._dtype is not a._dtype:
        _same_dtype(a, b)
    if out is not None:
        _check_out_dtype(out, a)
    if a._dtype is dtypes.bool:
        _refuse_bool("addmm_impl_cpu_", a, bool(sa[0] and sa[1] and sb[1]))


@_mm.register("cpu")
def _mm_cpu(a, b, *, out=None):
    """mm(a, b): (n, k) @ (k, m) -> (n, m), same dtypes."""
    sa, sb = a._shape, b._shape
    dt = a._dtype
    if dt.is_floating_point and dt.itemsize > 2:  # float16/bfloat16 accumulate in float32 (_product)
        c, d = a._npc, b._npc  # Tensor._np's cache, read inline
        xa = c[1] if c is not None and c[0] is a._storage._raw else a._np()
        xb = d[1] if d is not None and d[0] is b._storage._raw else b._np()
        r = _float_mm(xa, xb, sa, sb, a._strides, b._strides)
    else:
        r = _product(a, b, dt)
    return wrap(r) if out is None else write_out(out, r, "mm")


def _float_mm(xa: np.ndarray, xb: np.ndarray, sa: tuple, sb: tuple, ta: tuple, tb: tuple) -> np.ndarray:
    """The float32/float64 product of the (n, k) and (k, m) arrays `xa`, `xb`, whose element strides are `ta`, `tb`,
    as `mm` computes it."""
    if sa[1] == 1 and sa[0] > 1 and sb[1] > 1:
        # an outer product: BLAS's gemm call costs ~4x numpy's broadcast multiply (1024x1 @ 1x64:
        # 115 against 30 us), a Numba pass a fifth of it; each output is the one product a*b either way
        # (a zero keeps its sign)
        r = numba_rows.outer(xa[:, 0], xb[0])
        return np.multiply(xa, xb) if r is None else r
    # _blas on the tensors' strides, inlined (`n or 1` is max(n, 1) without the 0.3 us call): an operand that is
    # neither row- nor column-major is copied row-major
    if not (ta[1] == 1 and ta[0] >= (sa[1] or 1)) and not (ta[0] == 1 and ta[1] >= (sa[0] or 1)):
        xa = np.ascontiguousarray(xa)
    if not (tb[1] == 1 and tb[0] >= (sb[1] or 1)) and not (tb[0] == 1 and tb[1] >= (sb[0] or 1)):
        xb = np.ascontiguousarray(xb)
    w = sa[0] * sa[1] * sb[1]  # blas_threads.matmul's size rule, inlined (a large GEMM may be skinny: it decides)
    token = ERRSTATE.set(IGNORE_ALL)  # an overflow is inf without numpy's warning, as PyTorch's
    try:
        return np.matmul(xa, xb) if w <= _SERIAL else blas_threads.matmul(xa, xb)
    finally:
        ERRSTATE.reset(token)


def mm_untracked(a: Tensor, b: Tensor, ta: bool = False, tb: bool = False) -> Tensor:
    """`a @ b` of 2-D float32/float64 CPU tensors of one dtype, `a.t()` for `a` where `ta` (`b.t()` where `tb`): the
    bits of `mm`, without dispatching it (for a backward formula that made sure no hook, mode or gradient would see
    the op: NOTE [ Backward products computed at once ] in ember.autograd.untracked)."""
    xa, sa, sta = a._np(), a._shape, a._strides
    xb, sb, stb = b._np(), b._shape, b._strides
    if ta:
        xa, sa, sta = xa.T, (sa[1], sa[0]), (sta[1], sta[0])
    if tb:
        xb, sb, stb = xb.T, (sb[1], sb[0]), (stb[1], stb[0])
    return wrap(_float_mm(xa, xb, sa, sb, sta, stb))


def linear_untracked(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """`input @ weight.T (+ bias)` for an (n, k) input (or a contiguous (..., k) one, flattened to rows as `linear`
    does), (m, k) weight and (m,) bias (or None) of one float32/float64 dtype, all on the CPU: the bits of `linear`'s
    `mm` (`addmm`) and bias `add`, without dispatching either (for a caller that made sure no hook, mode or gradient
    would see those ops)."""
    ws, xs = weight._shape, input._shape
    x, sa, ta = input._np(), xs, input._strides
    if len(xs) != 2:
        x = x.reshape(-1, xs[-1])
        sa, ta = x.shape, (xs[-1], 1)
    r = _float_mm(x, weight._np().T, sa, (ws[1], ws[0]), ta, weight._strides[::-1])
    if len(xs) != 2:
        r = r.reshape(*xs[:-1], ws[0])
    return wrap(r) if bias is None else _plus(r, bias)


def _plus(r: np.ndarray, input: Tensor) -> Tensor:
    """The product `r` plus `input` (its shape, or a row broadcast along it) in place, as the add kernel sums."""
    b = input._np()
    token = ERRSTATE.set(IGNORE_ALL)  # as the add kernel: PyTorch makes inf and nan silently
    try:
        if b.ndim != 1 or numba_rows.row_broadcast("add", r, b, r) is None:
            np.add(r, b, out=r)
    finally:
        ERRSTATE.reset(token)
    return wrap(r)


def _addmm_direct(input, mat1, mat2) -> Tensor | None:
    """`input + mat1 @ mat2` computed at once where nothing but autograd would see `addmm`'s ops
    (`dispatch.untracked`, operands of no `__torch_function__`), recorded as PyTorch's one node (`dispatch.record`):
    float32/float64 CPU operands of one dtype, an (n, k) by (k, m) product none of whose sizes is 0, an (m,) or
    (n, m) input; None otherwise."""
    skip = _dispatch._SKIP
    if not (_dispatch.untracked and input.__class__ in skip and mat1.__class__ in skip and mat2.__class__ in skip
            and isinstance(input, Tensor) and isinstance(mat1, Tensor) and isinstance(mat2, Tensor)):
        return None
    dt, sa, sb, si = mat1._dtype, mat1._shape, mat2._shape, input._shape
    if not (dt in _DIRECT and mat2._dtype is dt and input._dtype is dt and len(sa) == 2 and len(sb) == 2
            and sa[1] == sb[0] and sa[0] and sa[1] and sb[1] and (si == (sb[1],) or si == (sa[0], sb[1]))
            and (_storage.only_cpu or all(t._storage.device.type == "cpu" for t in (input, mat1, mat2)))):
        return None
    try:
        xa, xb = mat1._np(), mat2._np()
        input._np()
    except NotImplementedError:  # a sparse operand has no dense array: the composite reroutes it
        return None
    r = _float_mm(xa, xb, sa, sb, mat1._strides, mat2._strides)
    return _dispatch.record("addmm", (input, mat1, mat2), _plus(r, input))


_bmm = declare("bmm", np.matmul, overlap=0, doc="bmm(a, b) -> Tensor")


def _bmm_shapes(a: Tensor, b: Tensor) -> None:
    """(B, n, k) and (B, k, m), or PyTorch's refusal."""
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b._shape[:2] != (a._shape[0], a._shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._shape[0]}, {a._shape[2]}] but got: [{b._shape[0]}, {b._shape[1]}].")


@_bmm.meta
def _bmm_meta(a, b, *, out=None) -> None:
    """(B, n, k) and (B, k, m) of one dtype, for every device's kernel (NOTE [ The meta step ])."""
    _bmm_shapes(a, b)
    _check_out_dtype(out, b)  # PyTorch's bmm.out checks `out` first, against mat2's dtype
    if a._dtype is not b._dtype or a._dtype is dtypes.bool:  # else bmm refuses nothing
        error = _bmm_dtype_error(a._dtype, b._dtype, *a._shape, b._shape[2])
        if error is not None:
            raise error


_BLAS_DTYPES = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def _bmm_dtype_error(first: dtypes.dtype, second: dtypes.dtype, batch: int, n: int, k: int, m: int,
                     kernel: str = "bmm") -> Exception | None:
    """What PyTorch's CPU bmm (or baddbmm, `kernel`) of (batch, n, k) by (batch, k, m) raises for its operands'
    dtypes (None: nothing; always None for two equal dtypes other than bool, which callers skip). An empty product
    returns first. A small one (k * n * m < 400) runs a loop dispatched on the first's dtype (no bool) that reads
    the second as that type; a larger one reads the first as the second's type where that is a BLAS type, and
    otherwise hands both to addmm (which has no bool), whose dtype check bmm words in C++ type names and baddbmm in
    PyTorch's."""
    from ember.core.ops.numeric import not_implemented_for

    names = dtypes.TORCH_NAMES
    if not (batch and n and k and m):
        return None
    if k * n * m < 400:
        if first is dtypes.bool:
            return not_implemented_for(kernel, first)
        if second is not first:
            return RuntimeError(f"expected scalar type {names[first.name]} but found {names[second.name]}")
        return None
    if second is not first and second in _BLAS_DTYPES:
        return RuntimeError(f"expected scalar type {names[second.name]} but found {names[first.name]}")
    if second is not first and kernel == "baddbmm":
        return RuntimeError(f"mat1 and mat2 must have the same dtype, but got {names[first.name]} and "
                            f"{names[second.name]}")
    if second is not first:
        return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_type(first)} != "
                            f"{_c_type(second)}")
    return not_implemented_for("addmm_impl_cpu_", first) if first is dtypes.bool else None


@_bmm.register("cpu")
def _bmm_cpu(a, b, *, out=None):
    """bmm(a, b): (B, n, k) @ (B, k, m) -> (B, n, m), same dtypes."""
    return _finish(_product(a, b, a._dtype), out, "bmm")


_mv = declare("mv", overlap=0, doc="mv(a, v) -> Tensor: (n, m) @ (m,), one op as PyTorch's (MvBackward0 saves v)")


@_mv.register("any")
def _mv_any(a, v):
    # the matrix product of a column, on every device (kernels run below autograd's recording)
    return S.squeeze(_mm(a, S.unsqueeze(v, 1)), 1)


_dot = declare("dot", np.dot, overlap=0, doc="dot(a, b) -> Tensor")


@_dot.meta
def _dot_meta(a, b, *, out=None) -> None:
    """(n,) and (n,) of one dtype, for every device's kernel."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._shape[0] != b._shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a._shape[0]}] and src [{b._shape[0]}] to "
                           f"have the same number of elements, but got {a._shape[0]} and {b._shape[0]} elements "
                           "respectively")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{dtypes.TORCH_NAMES[a._dtype.name]} and {dtypes.TORCH_NAMES[b._dtype.name]}")
    if out is not None and out._dtype is not a._dtype:
        raise RuntimeError(f"result dtype {dtypes.TORCH_NAMES[out._dtype.name]} does not match input dtype "
                           f"{dtypes.TORCH_NAMES[a._dtype.name]}")
    _refuse_bool("dot", a, True)


@_dot.register("cpu")
def _dot_cpu(a, b, *, out=None):
    """dot(a, b): (n,) . (n,) -> 0-dim, same dtypes."""
    return _finish(np.asarray(_product(a, b, a._dtype)), out, "dot")


_einsum = declare("einsum", np.einsum, overlap=0, doc="einsum(equation, *operands) -> Tensor")


@_einsum.meta
def _einsum_meta(equation, *operands, out=None) -> None:
    """The equation and the operands' dtypes: checked once for every device, raising what PyTorch raises."""
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    einsum_dtype(equation, operands)


def einsum_dtype(equation: str, operands) -> dtypes.dtype:
    """The result dtype of einsum, raising PyTorch's errors. PyTorch contracts left to right: a letter only one
    operand still has is summed out of it (`sum`: integers and bool give int64), a pair with no letter left to
    contract multiplies (promoting), and a pair with one calls bmm, which wants one dtype and refuses bool. So
    `einsum("i,i->i", f32, f64)` is float64, `einsum("i,i->", f32, f64)` raises and `einsum("ij->i", bool)` counts
    in int64."""
    return _einsum_dtype(equation, tuple(tuple(o._shape) for o in operands), tuple(o._dtype for o in operands))


@functools.lru_cache(maxsize=512)
def _einsum_dtype(equation: str, sizes: tuple[tuple[int, ...], ...], dts: tuple[dtypes.dtype, ...]) -> dtypes.dtype:
    from ember.core.ops.einsum_composite import _parse_shapes

    terms, out = _parse_shapes(equation, sizes)
    shapes = [dict(zip(t, n, strict=True)) for t, n in zip(terms, sizes, strict=True)]
    contracted = sorted({c for t in terms for c in t} - set(out))
    # PyTorch's dim order: the output's, then the ellipsis dims it drops, then the other contracted letters
    ell = [c for c in contracted if c not in equation]
    order = list(out) + ell + [c for c in contracted if c not in ell]

    def summed(dt: dtypes.dtype) -> dtypes.dtype:
        return dt if dt.is_floating_point or dt.is_complex else dtypes.int64

    if len(dts) == 1:
        return summed(dts[0]) if contracted else dts[0]
    counts = {c: sum(s.get(c, 1) != 1 for s in shapes) for c in contracted}
    ops = list(zip(dts, shapes, strict=True))
    while len(ops) > 1:
        (da, a), (db, b) = ops[0], ops[1]
        pair = []
        for c in contracted:
            if a.get(c, 1) != 1 and b.get(c, 1) != 1:
                counts[c] -= 1
                if counts[c] == 1:
                    pair.append(c)
                    counts[c] = 0
            elif counts[c] == 1 and (a.get(c, 1) != 1 or b.get(c, 1) != 1):
                if a.get(c, 1) != 1:
                    a, da = {**a, c: 1}, summed(da)
                else:
                    b, db = {**b, c: 1}, summed(db)
                counts[c] = 0
        merged = {c: 1 if c in pair else (a.get(c, 1) if a.get(c, 1) != 1 else b.get(c, 1)) for c in {*a, *b}}
        if not pair:
            dt = dtypes.promote_types(da, db)
        else:
            dt = _bmm_dtype(order, pair, a, b, da, db, merged)
        ops[:2] = [(dt, merged)]
    return ops[0][0]


def _bmm_dtype(order, pair, a, b, da, db, merged) -> dtypes.dtype:
    """The dtype of PyTorch's pairwise contraction (sumproduct_pair's bmm), raising what bmm raises for those
    sizes. Its operands go in swapped when every dim only the second has comes before every dim only the first has
    (in PyTorch's dim order); bmm computes in the first's dtype, but runs no kernel (checks nothing, and takes the
    second's dtype) when the result is empty or nothing is summed."""
    from ember.core.ops.numeric import not_implemented_for

    def size(letters, dims) -> int:
        return int(np.prod([dims.get(c, 1) for c in letters], dtype=np.int64))

    lo = [k for k, c in enumerate(order) if c not in pair and a.get(c, 1) != 1 and b.get(c, 1) == 1]
    ro = [k for k, c in enumerate(order) if c not in pair and a.get(c, 1) == 1]  # size 1 in both counts here
    first, second = (db, da) if lo and ro and max(ro) < min(lo) else (da, db)
    if not int(np.prod(list(merged.values()), dtype=np.int64)) or not size(pair, a):
        return second
    if first in dtypes.RESTRICTED:
        raise not_implemented_for("bmm", first)
    if second is not first or first is dtypes.bool:  # else bmm refuses nothing
        lro = [c for c in order if c not in pair and a.get(c, 1) != 1 and b.get(c, 1) != 1]
        error = _bmm_dtype_error(first, second, size(lro, a), size([order[k] for k in lo], a), size(pair, a),
                                 size([order[k] for k in ro], b))
        if error is not None:
            raise error
    return first


@_einsum.register("cpu")
def _einsum_cpu(equation, *operands, out=None):
    """einsum(equation: str, *operands): numpy's einsum (optimize=True picks BLAS contractions) on the equation
    with every dim named, the operands cast to the result dtype (integers counted in int64, half in float32)."""
    from ember.core.ops.einsum_composite import _parse

    dt = einsum_dtype(equation, operands)
    work = dtypes.int64 if not (dt.is_floating_point or dt.is_complex) else (
        dtypes.float32 if dt.is_floating_point and dt.itemsize == 2 else dt)
    # (a complex operand of a real result only where PyTorch's bmm ran no kernel: its values are never read)
    arrays = [o._np() if o._dtype is work else (o._np().real if o._dtype.is_complex and not work.is_complex
                                                else o._np()).astype(work.np) for o in operands]
    terms, out_term = _parse(equation, operands)
    r = np.einsum(",".join(terms) + "->" + out_term, *arrays, optimize=len(arrays) > 1)
    r = np.asarray(r).astype(dt.np, copy=False)
    if len(arrays) == 1:
        r = np.require(r, requirements="C")  # PyTorch sums a single operand into a contiguous result
    if builtins.any(np.may_share_memory(r, a) for a in arrays):
        r = r.copy()  # numpy returns views for "ii->i" and "ij->ji"; a result owns its storage
    if len(arrays) > 1 and out is None and r.ndim > 1:
        return _laid_out_as_pytorch(r, equation, terms, out_term, operands)
    return _finish(r, out, "einsum")


def _laid_out_as_pytorch(r: np.ndarray, equation: str, terms, out_term: str, operands) -> Tensor:
    """numpy's einsum result copied into the strides PyTorch's contraction leaves (`einsum_layout`)."""
    from ember.core.ops.einsum_layout import einsum_strides

    strides = einsum_strides(equation, terms, out_term, tuple((o._shape, o._strides) for o in operands))
    if strides is None or r.size == 0 or strides == _contiguous_strides_cached(r.shape):
        return wrap(np.ascontiguousarray(r))
    flat = np.empty(r.size, dtype=r.dtype)
    isz = r.dtype.itemsize
    np.lib.stride_tricks.as_strided(flat, r.shape, tuple(s * isz for s in strides))[...] = r
    t = wrap(flat)
    return Tensor._make(t._storage, 0, tuple(r.shape), tuple(strides), t._dtype)


# --- public API ------------------------------------------------------------------------------------
@method(method_form=method_positions)
def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """The matrix product of `input` (n, k) and `mat2` (k, m): (n, m).

    >>> from ember.core import mm, tensor
    >>> x = tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mm(x, x)
    tensor([[ 7., 10.],
            [15., 22.]])
    """
    try:
        return _mm(input, mat2, out=out)
    except (NotImplementedError, RuntimeError):  # NOTE [ Sparse tensors beside the dense path ]: a `try` costs
        return _sparse_reroute("mm", input, mat2, out)  # nothing until then; a dense shape check may raise first
    except AttributeError:  # a non-tensor operand: PyTorch's parser error, found only once the meta step failed
        for pos, (arg, v) in enumerate((("input", input), ("mat2", mat2)), 1):
            if not isinstance(v, Tensor):
                raise ew.not_a_tensor("mm", arg, pos, v) from None
        raise


@parsed("_int_mm", input="Tensor", mat2="Tensor", out="Tensor?")
def _int_mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """`torch._int_mm`: an int8 (or uint8) matrix times an int8 matrix, multiplied and summed in int32 (wrapping on
    overflow), the product quantized-embedding search uses; PyTorch's checks in its order and words."""
    if out is None:
        _ = input.size(0), mat2.size(1)  # PyTorch sizes its result first: a 1-D mat2 fails here with IndexError
    _int_mm_checks(input, mat2, out)
    # int64 products and sums, then int32: the same bits as int32 accumulation (both wrap mod 2**32), on every
    # device that multiplies int64 matrices (CUDA's kernels have no int32 instance)
    i64 = dtypes.int64
    r = mm(input.to(i64), mat2.to(i64)).to(dtypes.int32)
    return r if out is None else out.copy_(r)


def _int_mm_checks(a: Tensor, b: Tensor, out: Tensor | None) -> None:
    """_int_mm's argument checks (ATen's int_mm_out_cpu): ranks, inner sizes, dtypes, then the result's."""
    _require(a.ndim == 2, f"Expected self to be of dimension 2 but got {a.ndim}")
    _require(b.ndim == 2, f"Expected mat2 to be of dimension 2 but got {b.ndim}")
    _require(a._shape[1] == b._shape[0], f"self.size(1) needs to match mat2.size(0) but got {a._shape[1]} and "
             f"{b._shape[0]}")
    _require(a._dtype in (dtypes.int8, dtypes.uint8), f"Expected self dtype to be int8 or uint8 but got {_c_name(a)}")
    _require(b._dtype is dtypes.int8, f"Expected mat2 dtype to be of type int8 but got {_c_name(b)}")
    if out is None:
        return
    _require(out._dtype is dtypes.int32, f"Expected result dtype to be of type kInt but got {_c_name(out)}")
    _require(out.size(0) == a._shape[0], f"Expected result.size(0) to be {a._shape[0]} but got {out.size(0)}")
    _require(out.size(1) == b._shape[1], f"Expected result.size(1) to be {b._shape[1]} but got {out.size(1)}")
    _require(out.ndim == 2, f"Expected result to be of dimension 2 but got {out.ndim}")
    _require(out.is_contiguous(), "Expected result to be contiguous.")


def _require(ok: bool, message: str) -> None:
    """One of _int_mm's checks: PyTorch's RuntimeError under its kernel's name."""
    if not ok:
        raise RuntimeError("int_mm_out_cpu: " + message)


@method
def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """Batched matrix product: (B, n, k) @ (B, k, m) -> (B, n, m)."""
    return _bmm(input, mat2, out=out)


@method(method_form=method_positions)
@parsed("dot", input="Tensor", tensor="Tensor", out="Tensor?")
def dot(input: Tensor, tensor: Tensor, *, out=None) -> Tensor:
    """The dot product of two 1-D tensors (a 0-dim tensor)."""
    return _dot(input, tensor, out=out)


@method(method_form=method_positions)
@parsed("vdot", input="Tensor", other="Tensor", out="Tensor?")
def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The dot product, conjugating the first argument (the same as `dot` for real tensors)."""
    from ember.core.ops.complex import conj

    if input._dtype is dtypes.complex32 or other._dtype is dtypes.complex32:  # PyTorch checks, then names vdot
        _dot_meta(input, other)
        raise _c32_refusal("vdot")
    return node_name(_dot(conj(input), other, out=out), "DotBackward0", "VdotBackward0")  # PyTorch's one node


def _c32_refusal(kernel: str) -> Exception:
    from ember.core.ops.numeric import DtypeNotImplemented

    return DtypeNotImplemented(f"\"{kernel}\" not implemented for 'ComplexHalf'")


@method
@composite("mv", one_node=True)
def mv(input: Tensor, vec: Tensor, *, out=None) -> Tensor:
    """Matrix (n, m) times vector (m,): (n,)."""
    if input.ndim != 2 or vec.ndim != 1:  # PyTorch's addmv names its result (1-D), the matrix and the vector
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input._shape[1] != vec._shape[0] and (input.is_sparse or input.is_sparse_csr):
        raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    if input._shape[1] != vec._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._shape[0]}), mat ({input._shape[0]}x{input._shape[1]}),"
                           f" vec ({vec._shape[0]})")
    if input._dtype is not vec._dtype and (input.is_sparse or input.is_sparse_csr):  # PyTorch's sparse kernels
        raise RuntimeError(f"expected scalar type {dtypes.TORCH_NAMES[input._dtype.name]} but found "
                           f"{dtypes.TORCH_NAMES[vec._dtype.name]}")
    if input._dtype is not vec._dtype:  # the result takes the vector's dtype
        names = [dtypes.TORCH_NAMES[d.name] for d in (vec._dtype, input._dtype, vec._dtype)]
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, and "
                           f"{names[2]}")
    if out is not None and out._dtype is not input._dtype:  # addmv names out (its input), mat and vec
        names = [dtypes.TORCH_NAMES[d.name] for d in (out._dtype, input._dtype, vec._dtype)]
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, and "
                           f"{names[2]}")
    if input._dtype is dtypes.complex32 and input.numel():
        raise _c32_refusal("addmv_impl_cpu")
    _refuse_bool("addmv_impl_cpu", input, bool(input.numel()))
    try:
        r = _mv(input, vec)
    except NotImplementedError:  # NOTE [ Sparse tensors beside the dense path ]
        return _sparse_reroute("mv", input, vec, out)
    return S.copy_(_out_like(out, r), r) if out is not None else r


def _out_like(out: Tensor, r: Tensor) -> Tensor:
    if out._shape != r._shape:
        _resize_out(out, r._shape, None)
    return out


@method
def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """torch.matmul: dot (1-D, 1-D), mm (2-D), mv, and batched products that broadcast the batch
    dims; a 1-D operand gains a dim for the product and loses it after.

    >>> from ember.core import matmul, ones
    >>> matmul(ones(5, 2, 3), ones(3, 4)).shape
    ember.Size([5, 2, 4])
    """
    try:
        r = _matmul(input, other)
    except (NotImplementedError, RuntimeError):  # NOTE [ Sparse tensors beside the dense path ]; see mm
        if getattr(input, "is_nested", False) or getattr(other, "is_nested", False):  # NOTE [ Nested tensors ]
            from ember.core.nested_ops import handle

            return handle(matmul, (input, other), {})
        return _sparse_reroute("matmul", input, other, out)
    if r is NotImplemented:
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if out is not None:
        _check_out_dtype(out, r)
        return S.copy_(_out_like(out, r), r)
    return r


def _sparse_reroute(name: str, a, b, out, input=None, beta=1, alpha=1) -> Tensor:
    """Run `name` on a sparse operand's own product, or re-raise the dense op's error."""
    from ember.core.sparse import is_sparse_operand
    from ember.core.sparse_ops import sparse_addmm

    if not is_sparse_operand(a, b):
        raise
    if out is not None:
        raise RuntimeError(f"{name}: out= is not supported with a sparse operand")
    if name == "addmm":
        return sparse_addmm(input, a, b, beta=beta, alpha=alpha, dense_grad=True)
    if a.is_sparse or a.is_sparse_csr:
        return a.mm(b) if name == "mm" else a.matmul(b)  # torch.mm takes no vector, as PyTorch's
    return a @ b


def _matmul(a: Tensor, b: Tensor, *, _hooked: bool = False) -> Tensor:
    """The product of two tensors (`a @ b`), or NotImplemented where `b` is no Tensor (Python's fallback).
    The composite hook (autocast) sees it as `matmul`, checked inline: `@` pays no wrapper's call."""
    if b.__class__ is not Tensor and not isinstance(b, Tensor):
        return NotImplemented
    if not _hooked and _dispatch._composite_hook is not None:
        return _dispatch._composite_hook("matmul", _matmul_hooked, (a, b), {})
    da, db = len(a._shape), len(b._shape)
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return _dot(a, b)
    if da == 2 and db == 2:
        return _mm(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        return S.squeeze(_mm(S.unsqueeze(a, 0), b), 0)
    if da >= 3 and db <= 2:
        # fold a's batch dims into its rows: one mm, as PyTorch does
        from ember.core.ops.layout import reshape

        rows = int(np.prod(a._shape[:-1], dtype=np.int64))  # (not -1: a may be empty with k = 0)
        a2 = reshape(a, (rows, a._shape[-1]))
        r = mv(a2, b) if db == 1 else _mm(a2, b)  # a vector: one mv, as PyTorch folds it
        shape = a._shape[:-1] + (() if db == 1 else (b._shape[-1],))
        return _unsafe_reshape(r, shape)
    return _batched(a, b)


def _unsafe_reshape(r: Tensor, shape) -> Tensor:
    """`r` (a result this module just made) in `shape` as PyTorch's `_unsafe_view`: no view to autograd."""
    if S.view_strides(r._shape, r._strides, shape) is not None:
        return S._unsafe_view(r, shape)
    from ember.core.ops.layout import reshape

    return reshape(r, shape)


def _batched(a: Tensor, b: Tensor) -> Tensor:
    from ember.core.ops.layout import reshape

    a2 = S.unsqueeze(a, 0) if a.ndim == 1 else a
    b2 = S.unsqueeze(b, 1) if b.ndim == 1 else b
    n, k = a2._shape[-2:]
    k2, m = b2._shape[-2:]
    try:
        batch = tuple(np.broadcast_shapes(a2._shape[:-2], b2._shape[:-2]))
    except ValueError:
        raise RuntimeError(_mismatch([a2._shape[:-2], b2._shape[:-2]])) from None  # PyTorch's words for the batch
    nb = int(np.prod(batch, dtype=np.int64))
    a3 = reshape(S.expand(a2, batch + (n, k)), (nb, n, k))
    b3 = reshape(S.expand(b2, batch + (k2, m)), (nb, k2, m))
    r = _unsafe_reshape(_bmm(a3, b3), batch + (n, m))
    if a.ndim == 1:
        r = S.squeeze(r, -2)
    if b.ndim == 1:
        r = S.squeeze(r, -1)
    return r


_REDUCED = (dtypes.bfloat16, dtypes.float16)
_DIRECT = (dtypes.float32, dtypes.float64)  # the dtypes `_addmm_direct` computes
_UNIT = (int, float)  # the classes of a `beta` or `alpha` of 1 that `_addmm_direct` takes (not True)


def _opmath(fn, *mats) -> tuple:
    """`fn(*mats)` and the dtype to round the scaled sum to: bfloat16/float16 products are taken in float32 and
    rounded once, after `beta * input` is added, as PyTorch's (None: no rounding)."""
    dt = mats[0]._dtype
    if dt in _REDUCED and all(m._dtype is dt for m in mats):
        return fn(*[S.to_dtype(m, dtypes.float32) for m in mats]), dt
    return fn(*mats), None


def _scaled_sum(input, prod_dt: tuple, beta, alpha, out, op: str) -> Tensor:
    """beta * input + alpha * prod; beta == 0 ignores input (NaN and inf included), as PyTorch."""
    prod, dt = prod_dt
    if dt is not None:
        if isinstance(input, Tensor) and input._dtype is dt:
            input = S.to_dtype(input, dtypes.float32)
        r = _scaled_sum(input, (prod, None), beta, alpha, None, op)
        if out is not None:
            return S.copy_(_out_like(out, r), r)
        # the rounding back is part of the one op in PyTorch: its node takes the name the float32 sum's would
        return node_name(S.to_dtype(r, dt), "ToCopyBackward0", type(getattr(r, "_grad_fn", None)).__name__)
    if prod._dtype is dtypes.bool and op in ("addmm", "baddbmm", "addbmm") and isinstance(input, Tensor) \
            and input._dtype is dtypes.bool:
        return _bool_empty_product(input, prod, beta, out)
    beta, alpha = real_value(prod, beta), real_value(prod, alpha)  # a complex scalar of a real product: its real part
    if isinstance(input, Tensor) and _integral(input._dtype) and _integral(prod._dtype):
        beta, alpha = _truncated(beta), _truncated(alpha)  # PyTorch casts them to the integral dtype
    if isinstance(input, Tensor):
        _expand_self(input, prod._shape, op)
    if alpha != 1:
        prod = ew.mul(prod, alpha)
    if beta == 0:
        if isinstance(input, Tensor) and input.requires_grad:  # PyTorch's node still gives input `grad * 0`
            from ember.core.ops.numeric import nan_to_num

            prod = ew.add(prod, ew.mul(nan_to_num(input, 0.0, 0.0, 0.0), 0))  # its NaN and inf are still ignored
        return S.copy_(_out_like(out, prod), prod) if out is not None else prod
    if beta != 1:
        input = ew.mul(input, beta)
    try:  # the product first: the sum takes its row-major layout whatever input's, as PyTorch's result; in place
        return ew.add(input, prod, out=out) if out is input else ew.add(prod, input, out=out)  # `input` is written
    except ValueError:
        raise RuntimeError(f"{op}: the input of shape {tuple(getattr(input, '_shape', ()))} can't be broadcast to "
                           f"the product's shape {tuple(prod._shape)}") from None


def _refuse_out_with_grad(op: str, out, *operands) -> None:
    """PyTorch's refusal of an add*-product's `out=` (not the in-place form, whose `out` is `input`) while an
    operand requires grad, naming the op (its composite's `add` would name itself)."""
    if out is not None and out is not operands[0]:
        refuse_out_with_grad(op, *operands)


def _op_node(result, name: str):
    """The fresh result of an add*-product op named as PyTorch's one node, whichever step made it last (the sum,
    the product when beta is 0, the scaling by alpha)."""
    fn = getattr(result, "_grad_fn", None)
    return node_name(result, type(fn).__name__, name) if fn is not None else result


def _integral(dt) -> bool:
    return not (dt.is_floating_point or dt.is_complex or dt is dtypes.bool)


def _truncated(v):
    return int(v) if isinstance(v, float) else v


def _expand_self(input, sizes: tuple, op: str) -> None:
    """PyTorch expands `input` to the product's shape before it checks the operands: its error first."""
    if isinstance(input, Tensor):
        S.expand(input, sizes)


def _bool_empty_product(input: Tensor, prod: Tensor, beta, out) -> Tensor:
    """A bool addmm/baddbmm/addbmm that got past the BLAS refusal: its product sums nothing. PyTorch then
    scales `input` by `beta` in place, in bool: 0 zeroes it, True keeps it, any other number can't be cast."""
    if prod.numel() == 0 or beta == 0:
        r = ew.mul(prod, False)
    elif beta is True:
        r = ew.logical_or(input, prod)
    else:
        name = "Long" if isinstance(beta, int) else "ComplexFloat" if isinstance(beta, complex) else \
            dtypes.TORCH_NAMES[dtypes.get_default_dtype().name]
        raise RuntimeError(f"result type {name} can't be cast to the desired output type Bool")
    return S.copy_(_out_like(out, r), r) if out is not None else r


@method
@composite("addmm", one_node=True)
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """`beta * input + alpha * (mat1 @ mat2)`; `input` broadcasts to (n, m)."""
    from ember.core.ops.tensor_utils import strided

    for name, m in (("mat1", mat1), ("mat2", mat2)):  # addmm's own wording (mm says "self must be a matrix")
        if isinstance(m, Tensor) and m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if all(isinstance(t, Tensor) and t.layout is strided for t in (input, mat1, mat2)):
        for names, (a, b) in ((("self", "mat2"), (input, mat2)), (("mat1", "mat2"), (mat1, mat2))):
            if a._dtype is not b._dtype:  # PyTorch's checks, before the shapes and out=
                raise RuntimeError(f"{names[0]} and {names[1]} must have the same dtype, but got "
                                   f"{dtypes.TORCH_NAMES[a._dtype.name]} and {dtypes.TORCH_NAMES[b._dtype.name]}")
    if out is None and beta.__class__ in _UNIT and beta == 1 and alpha.__class__ in _UNIT and alpha == 1 and (
            r := _addmm_direct(input, mat1, mat2)) is not None:
        return r
    if out is not None:
        _refuse_out_with_grad("addmm", out, input, mat1, mat2)
        _check_out_dtype(out, mat1)
    try:
        prod = _opmath(_mm, mat1, mat2)
    except NotImplementedError:  # NOTE [ Sparse tensors beside the dense path ]
        return _sparse_reroute("addmm", mat1, mat2, out, input, beta, alpha)
    return _op_node(_scaled_sum(input, prod, beta, alpha, out, "addmm"), "AddmmBackward0")


@method
@composite("addmv", one_node=True)
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """`beta * input + alpha * (mat @ vec)`."""
    if isinstance(input, Tensor):  # PyTorch's checks, in its order
        if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
        if mat._shape[1] != vec._shape[0] or (mat._shape[0] != input.numel() and input.numel() != 1):
            raise RuntimeError(f"size mismatch, got input ({input._shape[0] if input.ndim else 1}), mat "
                               f"({mat._shape[0]}x{mat._shape[1]}), vec ({vec._shape[0]})")
        if not (input._dtype is mat._dtype is vec._dtype):
            names = [dtypes.TORCH_NAMES[t._dtype.name] for t in (input, mat, vec)]
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, and "
                               f"{names[2]}")
    _refuse_out_with_grad("addmv", out, input, mat, vec)
    prod = _opmath(mv, mat, vec)
    if out is not None and out is input and 0 in out._strides:  # NOTE [ In-place products into an expanded self ]
        done = aliased_products.addmv_expanded(out, prod[0], mat, vec, beta, alpha)
        if done is not None:
            return done
    return _op_node(_scaled_sum(input, prod, beta, alpha, out, "addmv"), "AddmvBackward0")


@method
@composite("baddbmm", one_node=True)
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """`beta * input + alpha * bmm(batch1, batch2)`."""
    if out is not None:
        _refuse_out_with_grad("baddbmm", out, input, batch1, batch2)
        _check_out_dtype(out, batch1)
    if isinstance(input, Tensor):  # PyTorch's checks, in its order
        _expand_self(input, (batch1.size(0), batch1.size(1), batch2.size(2)), "baddbmm")
        _bmm_shapes(batch1, batch2)
        if input._dtype is not batch1._dtype:
            raise RuntimeError(f"Input dtypes must be the same, got: input {_c_name(input)}, batch1: "
                               f"{_c_name(batch1)}, batch2: {_c_name(batch2)}")
        if batch1._dtype is not batch2._dtype or batch1._dtype is dtypes.bool:  # else bmm refuses nothing
            error = _bmm_dtype_error(batch1._dtype, batch2._dtype, *batch1._shape, batch2._shape[2], "baddbmm")
            if error is not None:
                raise error
    elif batch1._dtype is dtypes.bool and batch2._dtype is dtypes.bool and batch1.ndim == batch2.ndim == 3:
        _refuse_bool("baddbmm", batch1, bool(batch1.numel() and batch2._shape[2]))
    prod = _opmath(_bmm, batch1, batch2)
    if out is not None and out is input and 0 in out._strides:  # NOTE [ In-place products into an expanded self ]
        done = aliased_products.baddbmm_expanded(out, prod[0], batch1, batch2, beta, alpha)
        if done is not None:
            return done
    return _op_node(_scaled_sum(input, prod, beta, alpha, out, "baddbmm"), "BaddbmmBackward0")


@method
@composite("addbmm", one_node=True)
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """`beta * input + alpha * sum_b(batch1[b] @ batch2[b])`."""
    _refuse_out_with_grad("addbmm", out, input, batch1, batch2)
    if batch1._dtype is dtypes.bool and batch2._dtype is dtypes.bool and batch1.ndim == batch2.ndim == 3:
        _refuse_bool("addmm_impl_cpu_", batch1, bool(batch1.numel() and batch2._shape[2]))
    if isinstance(input, Tensor):  # PyTorch's checks, in its order
        _expand_self(input, (batch1.size(1), batch2.size(2)), "addbmm")
        for name, b in (("batch1", batch1), ("batch2", batch2)):
            if b.ndim != 3:
                raise RuntimeError(f"{name} must be a 3D tensor")
        if batch1._shape[0] != batch2._shape[0]:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1._shape[0]} and "
                               f"{batch2._shape[0]}")
        if batch1._shape[2] != batch2._shape[1]:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1._shape[1]}x{batch1._shape[2]} and "
                               f"{batch2._shape[1]}x{batch2._shape[2]})")
        for names, (a, b) in ((("self", "mat2"), (input, batch2)), (("mat1", "mat2"), (batch1, batch2))):
            if a._dtype is not b._dtype:
                raise RuntimeError(f"{names[0]} and {names[1]} must have the same dtype, but got "
                                   f"{dtypes.TORCH_NAMES[a._dtype.name]} and {dtypes.TORCH_NAMES[b._dtype.name]}")
    if batch1._dtype in _REDUCED and batch1._dtype is batch2._dtype and batch1._shape[0] > 0:
        return _op_node(_addbmm_by_batch(input, batch1, batch2, beta, alpha, out), "AddbmmBackward0")
    prod = _opmath(lambda a, b: _sum(_bmm(a, b), (0,), False, None), batch1, batch2)
    if batch1._dtype is dtypes.bool:  # an empty bool product (the others were refused): no int64 count
        prod = (S.to_dtype(prod[0], dtypes.bool), None)
    return _op_node(_scaled_sum(input, prod, beta, alpha, out, "addbmm"), "AddbmmBackward0")


def _addbmm_by_batch(input, batch1: Tensor, batch2: Tensor, beta, alpha, out) -> Tensor:
    """bfloat16/float16 addbmm as PyTorch's CPU kernel runs it: one addmm per batch into the result, each taken in
    float32 and rounded to the dtype, beta applied at the first only."""
    r, last = input, batch1._shape[0] - 1
    for b in range(last + 1):
        prod = _opmath(_mm, S.select(batch1, 0, b), S.select(batch2, 0, b))
        r = _scaled_sum(r, prod, beta if b == 0 else 1, alpha, out if b == last else None, "addbmm")
    return r


@method
@composite("addr", one_node=True)
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """`beta * input + alpha * outer(vec1, vec2)`; of bools, `(beta and input) or (alpha and outer)`."""
    _refuse_out_with_grad("addr", out, input, vec1, vec2)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    if isinstance(input, Tensor):
        if not (input._dtype.is_floating_point or input._dtype.is_complex):
            for name, v in (("beta", beta), ("alpha", alpha)):
                if isinstance(v, (float, complex)):
                    raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point "
                                       "number.")
        _expand_self(input, (vec1._shape[0], vec2._shape[0]), "addr")
        if input._dtype is vec1._dtype is vec2._dtype is dtypes.bool:
            r = ew.logical_and(outer(vec1, vec2), bool(alpha))
            if beta:
                r = ew.logical_or(r, input)
            return r if out is None else S.copy_(_out_like(out, r), r)
    return _op_node(_scaled_sum(input, _opmath(outer, vec1, vec2), beta, alpha, out, "addr"), "AddrBackward0")


for _fn in (addmm, addmv, baddbmm, addbmm, addr):
    inplace(_fn)


@method
def outer(input: Tensor, vec2: Tensor, *, out=None) -> Tensor:
    """The outer product of two 1-D tensors: (n,) x (m,) -> (n, m)."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return ew.mul(S.unsqueeze(input, 1), vec2, out=out)


ger = outer
attach("ger", outer)


@method(method_form=method_positions)
@parsed("inner", input="Tensor", other="Tensor", out="Tensor?")
def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The sum of products over the last dims (a scalar operand multiplies)."""
    if input.ndim == 0 or other.ndim == 0:
        return ew.mul(input, other, out=out)
    if input._shape[-1] != other._shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._shape)} and {list(other._shape)}")
    r = tensordot(input, other, ([-1], [-1]))
    return S.copy_(_out_like(out, r), r) if out is not None else r


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contract `dims` (a count of trailing/leading dims, or two lists of dims) of `a` and `b`."""
    from ember.core.ops.layout import reshape

    if not isinstance(dims, tuple | list | Tensor | int):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor) and dims.numel() <= 1:
        dims = int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > builtins.min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = dims.tolist() if isinstance(dims, Tensor) else dims
        for k, (name, d) in enumerate((("dims_self", da), ("dims_other", db))):
            if not isinstance(d, tuple | list | Tensor):  # PyTorch's parser for its int lists
                raise TypeError(f"tensordot(): argument '{name}' (position {k + 3}) must be tuple of ints, not "
                                f"{type(d).__name__}")
        da, db = list(da), list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [a._wrap_dim(d) for d in da]
    db = [b._wrap_dim(d) for d in db]
    for x, y in zip(da, db, strict=True):
        # a size-1 contracted dim broadcasts against the other operand's, which is summed at once (PyTorch's rule)
        if b._shape[y] == 1 and a._shape[x] != 1:
            a = _sum(a, (x,), True)
        elif a._shape[x] == 1 and b._shape[y] != 1:
            b = _sum(b, (y,), True)
        elif a._shape[x] != b._shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a._shape[x]} in dim {x} "
                               f"and second has size {b._shape[y]} in dim {y}")
    for ds in (da, db):
        for d in ds:
            if ds.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = int(np.prod([a._shape[d] for d in da], dtype=np.int64))
    a2 = reshape(S.permute(a, tuple(free_a + da)), (-1, k))
    b2 = reshape(S.permute(b, tuple(db + free_b)), (k, -1))
    if not free_a and not free_b:  # every dim contracted: one dot product, as PyTorch
        r = _dot(reshape(a2, (k,)), reshape(b2, (k,)))
    else:
        r = reshape(_mm(a2, b2), tuple(a._shape[d] for d in free_a) + tuple(b._shape[d] for d in free_b))
    return S.copy_(_out_like(out, r), r) if out is not None else r


@composite("einsum")
def einsum(*args) -> Tensor:
    """Einstein summation, e.g. `einsum("bij,bjk->bik", a, b)`; operands may also come as one list, or in the
    sublist format `einsum(a, [0, 1], b, [1, 2], [0, 2])` (subscripts 0-51, `...` as Ellipsis).

    >>> from ember.core import einsum, tensor
    >>> einsum("ij->j", tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([4., 6.])
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], Tensor):
        def letters(sub) -> str:
            return "".join(_sublist_letter(n) for n in sub)

        equation = ",".join(letters(sub) for sub in args[1::2])
        if len(args) % 2:
            equation += "->" + letters(args[-1])
        operands = args[:-1:2] if len(args) % 2 else args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        return einsum(equation, *operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {type(equation).__name__}")
    for i, o in enumerate(operands):
        if not isinstance(o, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {tp_name(o)}")
    if len(operands) == 1:
        view = _einsum_view(equation, operands[0])
        if view is not None:
            return view
    r = _einsum(equation, *operands)
    if len(operands) > 1:
        name = "ViewBackward0" if einsum_contracts(args) else "MulBackward0"
    else:
        lhs, arrow, out = equation.replace(" ", "").replace(".", "").partition("->")
        out = out if arrow else [v for v in lhs if lhs.count(v) == 1]
        name = "SumBackward1" if any(v not in out for v in lhs) else "PermuteBackward0"
    return node_name(r, "EinsumBackward0", name)  # the last node of PyTorch's decomposition


def _einsum_view(equation: str, x: Tensor) -> Tensor | None:
    """One operand that sums nothing out ("ij->ji", "ii->i", "...ij->...ji"): PyTorch returns a view of it,
    its repeated letters taken as diagonals and the rest permuted into the output's order (None: a sum)."""
    from ember.core.ops.einsum_composite import _diagonals, _parse

    (term,), out = _parse(equation, (x,))
    if set(term) != set(out):
        return None
    x, term = _diagonals(x, term)
    return S.permute(x, tuple(term.index(c) for c in out))


def einsum_contracts(args: tuple) -> bool:
    """Whether an einsum call (its arguments, string or sublist form) sums out an index that two or more operands
    share: PyTorch then contracts through bmm (autocast casts it; its result is a view of bmm's)."""
    if isinstance(args[0], str):
        eq = args[0].replace(" ", "").replace(".", "")
        lhs, arrow, out = eq.partition("->")
        subs = lhs.split(",")
    else:
        subs = [tuple(v for v in sub if v is not Ellipsis) for sub in args[1::2]]
        arrow, out = (True, args[-1]) if len(args) % 2 == 1 else ("", ())
    counts: dict = {}
    for sub in subs:
        for v in set(sub):
            counts[v] = counts.get(v, 0) + 1
    if not arrow:  # implicit output: the indices that appear once in all
        out = [v for sub in subs for v in sub if sum(x.count(v) for x in subs) == 1]
    return any(n >= 2 and v not in out for v, n in counts.items())


def _sublist_letter(n) -> str:
    """A sublist subscript as PyTorch spells it: 0-25 are A-Z, 26-51 a-z, Ellipsis `...`."""
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


@method
def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The Kronecker product: a block tensor of `input[i] * other`."""
    from ember.core.ops.layout import reshape

    nd = max(input.ndim, other.ndim)
    a = reshape(input, (1,) * (nd - input.ndim) + tuple(input._shape))
    b = reshape(other, (1,) * (nd - other.ndim) + tuple(other._shape))
    # interleave: a's dims at even positions, b's at odd, then merge each pair
    a2 = reshape(a, tuple(x for s in a._shape for x in (s, 1)))
    b2 = reshape(b, tuple(x for s in b._shape for x in (1, s)))
    r = _unsafe_reshape(ew.mul(a2, b2), tuple(x * y for x, y in zip(a._shape, b._shape, strict=True)))
    return S.copy_(_out_like(out, r), r) if out is not None else r


_C_NAME = {"float32": "float", "float64": "double"}


_euclidean_dist = declare("_euclidean_dist", doc="_euclidean_dist(x1, x2) -> Tensor")


@_euclidean_dist.register("any")
def _euclidean_dist_any(x1: Tensor, x2: Tensor) -> Tensor:
    """Euclidean distances of the rows of x1 (*, P, M) and x2 (*, R, M) by one matmul of [-2 x1, |x1|^2, 1] with
    [x2, 1, |x2|^2], clamped at 0 (PyTorch's _euclidean_dist: the same rounding, an exact 0 for equal rows)."""
    from ember.core.ops.join import cat

    sq1 = _sum(ew.mul(x1, x1), (x1.ndim - 1,), True, None)
    sq2 = _sum(ew.mul(x2, x2), (x2.ndim - 1,), True, None)
    a = cat([ew.mul(x1, -2), sq1, ew.add(ew.mul(sq1, 0), 1)], -1)
    b = cat([x2, ew.add(ew.mul(sq2, 0), 1), sq2], -1)
    return ew.sqrt(ew.clamp(_matmul(a, S.transpose(b, -2, -1)), 0, None))


@composite("cdist")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of x1 (*, P, M) and each row of x2 (*, R, M): (*, P, R).
    Euclidean distances of more than 25 rows go through one matmul, as PyTorch does."""
    if not isinstance(p, Tensor | numbers.Real):  # `p="fro"`: torch.cdist hands it to its parser at position 3
        raise TypeError(f"cdist(): argument 'p' (position 3) must be float, not {type(p).__name__}")
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if x1.ndim < 2 else 2} got: "
                           f"{min(x1.ndim, x2.ndim)}D")
    for i, x in ((1, x1), (2, x2)):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, X{i} got: "
                               f"{dtypes.TORCH_NAMES[x._dtype.name]}")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: {x2._shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    rows = max(x1._shape[-2], x2._shape[-2])
    mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or
                     (compute_mode == "use_mm_for_euclid_dist_if_necessary" and rows > 25))
    names = dtypes.TORCH_NAMES
    if mm and x1._dtype is not x2._dtype and {x1._dtype, x2._dtype} <= {dtypes.float32, dtypes.float64}:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_C_NAME[x1._dtype.name]} != "
                           f"{_C_NAME[x2._dtype.name]}")
    if not mm and x1._dtype in (dtypes.float16, dtypes.bfloat16):  # PyTorch's kernel has no reduced instance
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("cdist", x1._dtype)
    if not mm and x1._dtype is not x2._dtype:  # the kernel takes X1's dtype
        raise RuntimeError(f"expected scalar type {names[x1._dtype.name]} but found {names[x2._dtype.name]}")
    if mm:  # PyTorch's cdist_impl: one _euclidean_dist over the broadcast batch, viewed to the output's shape
        batch = tuple(np.broadcast_shapes(x1._shape[:-2], x2._shape[:-2]))
        (r1, c), r2 = x1._shape[-2:], x2._shape[-2]
        a = S.expand(x1, batch + (r1, c)) if batch else x1
        b = S.expand(x2, batch + (r2, c)) if batch else x2
        if len(batch) > 1:
            from ember.core.ops.layout import reshape

            a, b = reshape(a, (-1, r1, c)), reshape(b, (-1, r2, c))
        return S.view(_euclidean_dist(a, b), batch + (r1, r2))
    if _one_cdist_node(x1, x2):  # PyTorch's one CdistBackward0, whose own backward has no derivative
        a, b = (Tensor._make(x._storage, x._offset, x._shape, x._strides, x._dtype) for x in (x1, x2))
        return _dispatch.record("cdist", (x1, x2, p), _cdist_distances(a, b, p))
    return _cdist_distances(x1, x2, p)


def _cdist_distances(x1: Tensor, x2: Tensor, p: float) -> Tensor:
    """cdist's p-norm distances by composition (differentiable: autograd's CdistBackward0 rule runs them again),
    row-major whatever the operands' layouts, as PyTorch's kernel writes them (a node-free copy when untracked)."""
    r = _distances(ew.sub(S.unsqueeze(x1, -2), S.unsqueeze(x2, -3)), p, "CdistBackward0")
    return r if r._requires_grad or r.is_contiguous() else S.clone(r)


def _one_cdist_node(x1: Tensor, x2: Tensor) -> bool:
    """Whether cdist may compute on detached operands and record one node (NOTE [ One node computed outside
    dispatch ] in ember.autograd.record): an operand requires grad, and autograd's hook is the only one to see it."""
    skip = _dispatch._SKIP
    return (_dispatch.untracked and (x1._requires_grad or x2._requires_grad) and x1.__class__ in skip
            and x2.__class__ in skip and not (x1._conj or x1._neg or x2._conj or x2._neg))


def _distances(diff: Tensor, p: float, name: str) -> Tensor:
    """The p-norms of `diff`'s rows, their node named `name`. For p = inf the gradient reaches every tied
    coordinate whole, as PyTorch's cdist/pdist backwards give it (vector_norm's splits it among the ties):
    r + (r - r') (c - 1), r' r detached and c the tie count, adds nothing to the value and multiplies the
    gradient by c."""
    r = vector_norm(diff, p, -1)
    if p not in (0.0, 1.0, 2.0, float("inf")) and r._dtype is dtypes.float32 and r.numel():
        return _root_in_double(r, diff, p, name)
    tracked = sys.modules["ember.core.tensor"]._grad_mode_enabled() and r._requires_grad
    if p == 0 and tracked:  # vector_norm's ord-0 gradient is undefined; cdist's and pdist's are zeros (sign's)
        zero = ew.mul(_sum(ew.sign(diff), (diff.ndim - 1,), False, r._dtype), 0.0)
        return node_name(ew.add(r, zero), "AddBackward0", name)
    if not (p == float("inf") and tracked):
        return node_name(r, "LinalgVectorNormBackward0", name)
    plain = r.detach()
    ties = _sum(ew.eq(ew.abs(diff.detach()), S.unsqueeze(plain, -1)), (diff.ndim - 1,), False, r._dtype)
    return node_name(ew.add(r, ew.mul(ew.sub(r, plain), ew.sub(ties, 1))), "AddBackward0", name)


def _root_in_double(r: Tensor, diff: Tensor, p: float, name: str) -> Tensor:
    """float32 p-norms `r` (vector_norm's) given PyTorch's cdist/pdist values: its kernels sum |d|^p in float32 and
    take the 1/p root in double (vector_norm's float32 root is an ulp off for a third of them); the gradient is
    r's, as r + (exact - r') with r' r detached."""
    agg = _sum(ew.pow(ew.abs(diff.detach() if diff._requires_grad else diff), p), (diff.ndim - 1,), False,
               dtypes.float32)
    exact = S.to_dtype(ew.pow(S.to_dtype(agg, dtypes.float64), 1.0 / p), dtypes.float32)
    if not (sys.modules["ember.core.tensor"]._grad_mode_enabled() and r._requires_grad):
        return exact
    return node_name(ew.add(r, ew.sub(exact, r.detach())), "AddBackward0", name)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between rows i < j of input (N, M), as `torch.pdist`: (N (N - 1) / 2,),
    the pairs in row-major order. Its gradient at a zero distance is 0, as PyTorch's.

    >>> from ember.core import tensor
    >>> pdist(tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]])).tolist()
    [5.0, 0.0, 5.0]
    """
    from ember.core.ops.indexing import index_select
    from ember.core.ops.join import triu_indices

    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input._dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if input._dtype in (dtypes.float16, dtypes.bfloat16):
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("pdist", input._dtype)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input._shape[0]
    ij = triu_indices(n, n, 1, device=input.device)
    rows = S.select(ij, 0, 0), S.select(ij, 0, 1)
    return _distances(ew.sub(index_select(input, 0, rows[0]), index_select(input, 0, rows[1])), p, "PdistBackward0")


@method
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of `input - other` (broadcast), as one number; its node is PyTorch's DistBackward0."""
    ew.check_tensors("dist", input, other)
    refuse_bool_subtraction(input, other)
    common = dtypes.result_type(input, other)
    if not (common.is_floating_point or common.is_complex):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. Got "
                           f"{dtypes.TORCH_NAMES[common.name]} instead.")
    # PyTorch's DistBackward0 negates the 0-norm's undefined gradient for `other`: its backward raises
    refuse = _UNDEFINED_SELF if p == 0 and other.requires_grad else None
    return node_name(vector_norm(ew.sub(input, other), p), "LinalgVectorNormBackward0", "DistBackward0", refuse)


_UNDEFINED_SELF = "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #0 'self'"


# a non-tensor operand leaves `@` to Python (NotImplemented, from `_matmul`), as PyTorch's operators do. No
# `__imatmul__`, as PyTorch's Tensor: `y @= x` rebinds y to `y @ x`
_matmul_hooked = functools.partial(_matmul, _hooked=True)
attach("__matmul__", _matmul)
attach("__rmatmul__", lambda self, other: _matmul(other, self) if isinstance(other, Tensor) else NotImplemented)


@numpy_aliases
@composite("linalg_vecdot")
@parsed("linalg_vecdot", x="Tensor", y="Tensor", dim="int")
def _vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """The dot product of `x` and `y` along `dim`, broadcasting the other dims (`x` conjugated, as PyTorch);
    floating or complex operands of one dtype. `out=` is checked as PyTorch's: its dtype first, then grad (named
    after the kernel PyTorch's out= form runs: `vdot` for two vectors, `sum` otherwise)."""
    if out is not None:
        if isinstance(x, Tensor) and out._dtype is not x._dtype:
            raise RuntimeError(f"linalg.vecdot: Expected out of dtype{dtypes.TORCH_NAMES[x._dtype.name]} but found "
                               f"{dtypes.TORCH_NAMES[out._dtype.name]}")
        refuse_out_with_grad("vdot" if x.ndim == y.ndim == 1 else "sum", x, y)
        r = _vecdot(x, y, dim=dim)
        return S.copy_(_out_like(out, r), r)
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.TORCH_NAMES[x._dtype.name]}")
    if y._dtype is not x._dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{dtypes.TORCH_NAMES[x._dtype.name]} and y of type {dtypes.TORCH_NAMES[y._dtype.name]} "
                           "instead")
    if x.ndim == y.ndim == 1 and x._shape != y._shape:  # PyTorch's 1-D vecdot is its dot, with dot's words
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{x._shape[0]}] and src [{y._shape[0]}] to "
                           f"have the same number of elements, but got {x._shape[0]} and {y._shape[0]} elements "
                           "respectively")
    p = ew.mul(x.conj() if x._dtype.is_complex else x, y)
    return _sum(p, (dim % max(p.ndim, 1),) if p.ndim else (), False, None)


# `torch.linalg`, for the functions ember has
# (`ember.core.ops.linalg_solvers` adds the matrix functions and norms)
linalg = types.SimpleNamespace(vector_norm=vector_norm, matmul=matmul, vecdot=_vecdot)
