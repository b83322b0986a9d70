"""complex32 (ComplexHalf): the ops PyTorch 2.13 has for it on the CPU, and its casts.

numpy has no complex-half type, so ember stores a complex32 element as a numpy record of two
float16s (`dtypes.complex32.np`, PyTorch's memory layout). numpy moves records (views, copies,
fancy indexing, concatenation) but computes nothing on them. `install()`, run by the first use of
the dtype, adds a dispatch hook beneath autograd (so the graph records the op on the complex32
tensors themselves) that, for an op with a complex32 operand:

- lets the storage ops through (views, `clone`, `copy_`, casts, indexing, filling, random fills);
- runs the ops PyTorch computes in ComplexHalf (`add`, `mul`, `abs`, `eq`, `where`, `index_put_`
  ...) on complex64 copies of the complex32 operands, and rounds the result back to complex32
  (float16 for a real result): PyTorch's CPU kernels compute each complex-half element in float
  and round it once, which is what one complex64 op and one rounding give;
- refuses every other op with PyTorch's exception and message (`"exp_vml_cpu" not implemented
  for 'ComplexHalf'`).
"""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import get_op, register_dispatch_hook, remove_dispatch_hook
from ember.core.ops._util import warn_complex_to_real
from ember.core.ops.structseq import rebuilt
from ember.core.tensor import Tensor

__all__ = ["install", "uninstall", "to_complex64", "from_array", "to_c64", "to_c32", "half_complex_binary"]

C32 = dtypes.complex32

# ops whose kernels handle complex32 records themselves (views, copies, casts, moves of elements)
_NATIVE = frozenset({
    "view", "_unsafe_view", "view_dtype", "as_strided", "permute", "transpose", "expand", "squeeze", "unsqueeze",
    "select", "slice", "narrow", "unfold", "diagonal", "real", "imag", "view_as_real", "conj", "clone", "copy_",
    "to_dtype", "fill_", "index", "masked_select", "resize_", "normal_", "uniform_", "set_",
    "mv"})  # mv: its kernel is mm's, which this hook checks (the public mv refuses a non-empty complex32 first)
# ops PyTorch computes for complex32 on the CPU: run in complex64 here, rounded back once
_COMPUTED = frozenset({
    "add", "sub", "mul", "neg", "abs", "conj_physical", "eq", "ne", "isnan", "isinf", "isfinite", "isclose",
    "where", "cat", "masked_fill", "index_put_", "index_fill", "index_copy", "index_add", "index_select", "tril",
    "triu", "diag_embed", "nonzero", "any", "all", "count_nonzero", "vector_norm", "var", "std", "var_mean",
    "std_mean"})
# PyTorch's kernel name in "... not implemented for 'ComplexHalf'", where it is not "<op>_cpu"
_KERNEL_NAMES = {
    "exp": "exp_vml_cpu", "log": "log_vml_cpu", "sqrt": "sqrt_vml_cpu", "sin": "sin_vml_cpu", "cos": "cos_vml_cpu",
    "tan": "tan_vml_cpu", "tanh": "tanh_vml_cpu", "log10": "log10_vml_cpu", "log2": "log2_vml_cpu",
    "log1p": "log1p_vml_cpu", "expm1": "expm1_vml_cpu", "asin": "asin_vml_cpu", "acos": "acos_vml_cpu",
    "atan": "atan_vml_cpu", "sinh": "sinh_vml_cpu", "cosh": "cosh_vml_cpu", "rsqrt": "rsqrt_cpu",
    "sum": "sum_cpu", "mean": "sum_cpu", "nansum": "nansum_cpu", "prod": "prod_out_cpu", "cumsum": "cumsum_out_cpu",
    "cumprod": "cumprod_out_cpu", "pow": "pow", "square": "pow", "mm": "addmm_impl_cpu_", "bmm": "bmm", "dot": "dot",
    "amax": "max_values_cpu", "amin": "min_values_cpu", "gather": "scatter_gather_tensor_cpu",
    "scatter": "scatter_gather_tensor_cpu", "scatter_add": "scatter_gather_tensor_cpu",
    "scatter_reduce": "scatter_gather_tensor_cpu", "take": "take_cpu", "lerp": "lerp_kernel_scalar", "unique": "unique",
    "trace": "trace", "bernoulli_": "bernoulli_tensor_cpu_self_",
    "softmax": "softmax_lastdim_kernel_impl", "log_softmax": "log_softmax_lastdim_kernel_impl", "flip": "flip_cpu",
    "logsumexp": "exp_vml_cpu", "einsum": "bmm", "masked_scatter": "masked_scatter"}
# refusals of another kind than "... not implemented for 'ComplexHalf'"
_OTHER_REFUSALS = {
    "random_": (RuntimeError, "check_random_bounds handles only integral, floating-point and boolean types"),
    "exponential_": (RuntimeError, "Exponential distribution is a continuous probability distribution. dtype must be "
                                   "a floating point but you specified ComplexHalf"),
    "fft_c2c": (RuntimeError, "MKL FFT doesn't support tensors of type: Half"),
    "fft_c2r": (RuntimeError, "MKL FFT doesn't support tensors of type: Half"),
}


def to_complex64(a: np.ndarray) -> np.ndarray:
    """The complex64 values of an array of complex32 records (exact)."""
    r = np.empty(a.shape, np.complex64)
    r.real = a["real"]
    r.imag = a["imag"]
    return r


def from_array(a) -> np.ndarray:
    """`a` (an array or number of any dtype) as complex32 records, with PyTorch's conversion: wider
    floats round to float32 first, then to float16 (so float64 -> complex32 rounds twice, as in PyTorch)."""
    a = np.asarray(a)
    if a.dtype == C32.np:
        return np.array(a, copy=True)
    out = np.empty(a.shape, C32.np)
    with np.errstate(over="ignore", invalid="ignore"):  # out of float16's range: inf, as PyTorch
        if a.dtype.kind == "c":
            out["real"] = a.real.astype(np.float32).astype(np.float16)
            out["imag"] = a.imag.astype(np.float32).astype(np.float16)
        else:
            out["real"] = a.astype(np.float32).astype(np.float16)
            out["imag"] = 0
    return out


def _rd(name: str, *args):
    """The kernel of op `name`, beneath every hook (a step of this module's own work, not recorded)."""
    return get_op(name).redispatch(args, {})


def _pairs(x: Tensor) -> Tensor:
    return _rd("view_as_real", x)


def to_c64(x: Tensor) -> Tensor:
    """A complex32 tensor's values as complex64, on its device (exact)."""
    if x._storage.device.type == "cpu":
        return Tensor._wrap(to_complex64(x._np()))
    return _rd("view_as_complex", _rd("to_dtype", _pairs(x), dtypes.float32))


def to_c32(x: Tensor) -> Tensor:
    """Any tensor cast to complex32 on its device, with PyTorch's rounding (through float32)."""
    if x._dtype is C32:
        return x
    if x._storage.device.type == "cpu":
        return Tensor._wrap(from_array(x._np()))
    if x._dtype is not dtypes.complex64:
        x = _rd("to_dtype", x, dtypes.complex64)
    return _rd("view_as_complex", _rd("to_dtype", _pairs(x), dtypes.float16))


def _from_c32(x: Tensor, dt: dtypes.dtype) -> Tensor:
    """A complex32 tensor cast to `dt` (not complex32) on CUDA: through its float16 pairs."""
    if dt.is_complex:
        return _rd("view_as_complex", _rd("to_dtype", _pairs(x), dt.to_real()))
    if dt is dtypes.bool:
        return _rd("logical_or", _rd("real", x), _rd("imag", x))
    return _rd("to_dtype", _rd("real", x), dt)


def _up(v):
    """A complex32 tensor as a complex64 one (other values unchanged); lists and tuples elementwise."""
    if isinstance(v, Tensor):
        return to_c64(v) if v._dtype is C32 else v
    if isinstance(v, list | tuple) and v and any(isinstance(x, Tensor) for x in v):
        return type(v)(_up(x) for x in v)
    return v


def _down(r):
    """An op's complex64 (float32) result rounded to complex32 (float16)."""
    if isinstance(r, Tensor):
        if r._dtype is dtypes.complex64:
            return to_c32(r)
        if r._dtype is dtypes.float32:
            return Tensor._wrap(r._np().astype(np.float16)) if r._storage.device.type == "cpu" else \
                _rd("to_dtype", r, dtypes.float16)
        return r
    if isinstance(r, tuple):
        return rebuilt(r, [_down(x) for x in r])
    return r


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, list | tuple):
            yield from (x for x in a if isinstance(x, Tensor))


def _refusal(op) -> Exception:
    from ember.core.ops.numeric import DtypeNotImplemented

    if op.name in _OTHER_REFUSALS:
        exc, message = _OTHER_REFUSALS[op.name]
        return exc(message)
    refusal = None if op.name in _KERNEL_NAMES else op.complex_refusal(C32)
    if refusal is not None:
        return refusal
    return DtypeNotImplemented(f"\"{_KERNEL_NAMES.get(op.name, op.name + '_cpu')}\" not implemented for 'ComplexHalf'")


def half_complex_binary(op, a, b, out):
    """A binary op whose operands promote to complex32 without one being complex32 (`half_tensor + 1j`, a
    float16 tensor with a 0-dim complex tensor): computed in complex64, rounded once, where PyTorch has the
    ComplexHalf kernel (`half_tensor / 1j` has none)."""
    if op.name not in _COMPUTED:
        raise _refusal(op)

    def c64(v):
        return v.to(dtypes.complex64) if isinstance(v, Tensor) else complex(v)

    r = op(c64(a), c64(b))
    if r._dtype is dtypes.complex64:
        r = to_c32(r)
    return r if out is None else out.copy_(r)


def _write(dst: Tensor, src: Tensor) -> None:
    """Store `src`'s values into the complex32 tensor `dst` (same shape)."""
    if dst._storage.device.type == "cpu" and src._storage.device.type == "cpu":
        dst._np()[...] = from_array(src._np())
        dst._storage.bump()
    else:
        _rd("copy_", _pairs(dst), _pairs(to_c32(src)))  # redispatch bumps the shared storage's version


# the storage ops whose kernels would compute on the records on CUDA: done there on the float16 pairs
_PAIRWISE = frozenset({"clone", "copy_", "to_dtype", "fill_"})


def _on_cuda(args) -> bool:
    return any(t._storage.device.type != "cpu" for t in _tensors(args))


def _pairwise(name: str, args):
    """clone, copy_, casts and fill_ of complex32 tensors on CUDA, as float16 work on their pairs."""
    x = args[0]
    if name == "clone":
        return _rd("view_as_complex", _rd("clone", _pairs(x)))
    if name == "to_dtype":
        if x._dtype is C32:  # PyTorch's once-per-process warning for a cast to a real dtype
            warn_complex_to_real(C32, args[1])
        return to_c32(x) if args[1] is C32 else _from_c32(x, args[1])
    if name == "fill_":
        v = args[1].item() if isinstance(args[1], Tensor) else args[1]
        v = complex(v)
        _rd("fill_", _rd("real", x), v.real)
        _rd("fill_", _rd("imag", x), v.imag)
        return x
    src = args[1]  # copy_
    if not isinstance(src, Tensor):
        from ember.core.creation import tensor

        src = tensor(src, dtype=x._dtype)
    if x._dtype is C32:
        _write(x, src)
    else:
        warn_complex_to_real(C32, x._dtype)
        _rd("copy_", x, _from_c32(src, x._dtype) if src._storage.device.type != "cpu" else
            Tensor._wrap(to_complex64(src._np())))
    return x


def _computed_here(name: str, args) -> bool:
    """The ops PyTorch computes for complex32 in some calls only: `sum` into another dtype (`dtype=`), and
    `flip` of dims other than the innermost in memory (PyTorch moves whole elements there; its kernel has no
    ComplexHalf)."""
    if name == "sum":
        return len(args) > 3 and args[3] is not None and args[3] is not C32
    if name == "flip":
        from ember.core.ops.restricted_dtypes import flip_moves_whole_rows

        return flip_moves_whole_rows(args[0], args[1])
    return False


def _product_computed(name: str, op, args, kwargs) -> bool:
    """mm, bmm and dot of complex32 check their operands first as PyTorch does (shapes; mm and dot their dtypes,
    bmm only its shapes); an mm or bmm with nothing to multiply (an empty result, or k = 0) then gives its empty
    or zero result, which PyTorch does before reaching the refused kernel."""
    a, b = args[0], args[1]
    if name == "bmm" and a._dtype is not b._dtype:
        from ember.core.creation import zeros

        b = zeros((), dtype=a._dtype, device=b.device).expand(b._shape)  # its shape only, a's dtype
    op._meta(a, b, **(kwargs or {}))
    return name != "dot" and (a._shape[-1] == 0 or a.numel() == 0 or b.numel() == 0)


def _hook(op, args, kwargs, call_next):
    out = kwargs.get("out") if kwargs else None
    name = op.name
    for a in _tensors(args):
        if a._dtype is C32:
            break
    else:
        if name == "to_dtype" and args[1] is C32 and isinstance(args[0], Tensor) and _on_cuda(args):
            return _pairwise(name, args)
        if not (isinstance(out, Tensor) and out._dtype is C32):
            return call_next(op, args, kwargs)
    if name in _NATIVE:
        if name in _PAIRWISE and _on_cuda(args):
            return _pairwise(name, args)
        if name in _CPU_ONLY and _on_cuda(args):
            raise NotImplementedError(f"{name}: complex32 on CUDA: ember makes, views, copies and computes such "
                                      "tensors there but has no kernel for this one; move the tensor with .cpu() "
                                      "(docs/complex.md)")
        return call_next(op, args, kwargs)
    if name not in _COMPUTED and not _computed_here(name, args) and not (
            name in _PRODUCTS and _product_computed(name, op, args, kwargs)):
        raise _refusal(op)
    down = dtypes.result_type(*_tensors(args)) is C32 and name != "sum"  # sum: only into the dtype= given
    up = tuple(_up(a) for a in args)
    kw = kwargs
    if isinstance(out, Tensor) and out._dtype is C32:
        kw = {k: v for k, v in kwargs.items() if k != "out"}
    if name in ("index_add", "index_copy"):  # their CPU kernels move float pairs, not complex numbers
        x, dim, index, src = up
        up = (_pairs(x), dim % max(x.ndim, 1), index, _pairs(src if src._dtype.is_complex else
                                                             _rd("to_dtype", src, dtypes.complex64)))
        r = _rd("view_as_complex", call_next(op, up, kw))
    else:
        r = call_next(op, up, kw)
    for i in op.mutates:  # the op wrote into a complex64 copy: store it back
        if up[i] is not args[i]:
            _write(args[i], up[i])
            if r is up[i]:
                r = args[i]
    if kw is not kwargs:
        _write(out, r)
        return out
    return _down(r) if down else r


# the hook acts only where a tensor is complex32, which the factories' and `cat`'s fast paths (`dispatch.bare`)
# refuse: they stay open once complex32 is used
_hook.ignores_fresh = True

_PRODUCTS = frozenset({"mm", "bmm", "dot"})
# a call on float32/float64 tensors only that writes nothing passes straight down (`dispatch.untracked`)
_hook.ignores_untracked = True
# the storage ops with no complex32 path on CUDA yet
_CPU_ONLY = frozenset({"index", "masked_select", "normal_", "uniform_"})


_installed = False


def install() -> None:
    """Install the hook (once), beneath every other hook."""
    global _installed
    if not _installed:
        _installed = True
        register_dispatch_hook(_hook, innermost=True)


def uninstall() -> None:
    """Remove the hook (tests that measure the op path use it); the next `as_dtype(complex32)` reinstalls it."""
    global _installed
    if _installed:
        remove_dispatch_hook(_hook)
        _installed = False
        dtypes._c32_installed = False
