"""The ops PyTorch 2.13's CPU build has for its shell dtypes (NOTE [ Shell dtypes ] in dtypes.py), and its
refusals of the others.

`install()` (run by the first use of a shell dtype) adds a dispatch hook that lets views, `cat` and outer-dim
`flip` through for every shell dtype, copies for the bits types and float4_e2m1fn_x2 (and float4's `eq`), and
raises PyTorch's NotImplementedError for anything else, naming the kernel PyTorch names; `zeros`/`zero_` write
zero bytes (`zero_bytes`), as PyTorch's memset does.
"""

from __future__ import annotations

from ember.core import dtypes
from ember.core.dispatch import register_dispatch_hook
from ember.core.ops.numeric import DtypeNotImplemented
from ember.core.tensor import Tensor

__all__ = ["install", "refuse_values"]

# ops that move no element or move them as raw bytes
_VIEWS = frozenset({
    "view", "_unsafe_view", "view_dtype", "as_strided", "permute", "transpose", "expand", "squeeze", "unsqueeze",
    "select", "slice", "narrow", "unfold", "diagonal", "cat", "resize_", "alias", "detach"})
_COPIES = frozenset({"clone", "copy_"})
# their kernels return a fresh numpy array, which ember reads as uint8/uint16
_FRESH = frozenset({"clone", "cat", "flip"})
# PyTorch's kernel names where they are not "<op>_cpu": arithmetic first copies its scalar operand
_KERNEL_NAMES = {"add": "copy_", "sub": "copy_", "mul": "copy_", "div": "copy_", "clone": "copy_kernel",
                 "fill_": "fill_cpu"}
_installed = False


def _no_quantizer() -> RuntimeError:
    """PyTorch's error for a quantized tensor that `empty` made without a quantizer."""
    return RuntimeError('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/quantized/Quantizer.cpp"'
                        ":447, please report a bug to PyTorch. cannot call qscheme on UnknownQuantizer")


def _shell_operand(args: tuple) -> dtypes.dtype | None:
    for a in args:
        if isinstance(a, Tensor) and a._dtype._category == dtypes._SHELL:
            return a._dtype
        if isinstance(a, list | tuple) and a and isinstance(a[0], Tensor) and a[0]._dtype._category == dtypes._SHELL:
            return a[0]._dtype
    return None


def _refusal(op, dt: dtypes.dtype, args: tuple, kwargs: dict) -> Exception | None:
    """PyTorch's error for `op` over a tensor of shell dtype `dt`, or None where PyTorch runs it."""
    name = op.name
    if name in _VIEWS:
        return None
    if dt.kind == "quant" and name in ("to_dtype", "copy_"):
        return RuntimeError("empty_strided not supported on quantized tensors yet see "
                            "https://github.com/pytorch/pytorch/issues/74540")
    if dt.kind == "quant" and name in ("fill_", "clone"):  # `empty` made it without a quantizer
        return _no_quantizer()
    if name == "eq" and dt.kind == "float4":
        return None
    if name == "flip" and all(d % args[0].ndim < args[0].ndim - 1 for d in args[1]):
        return None  # PyTorch flips outer dims by moving whole rows of bytes
    if name == "to_dtype":
        return _cast_refusal(args[0]._dtype, dtypes.as_dtype(args[1] if len(args) > 1 else kwargs["dtype"]))
    if name in _COPIES:
        src, dst = (args[0], args[0]) if name == "clone" else (args[1], args[0])
        if not isinstance(src, Tensor):  # `x[i] = 3`: PyTorch fills, or copies a wrapped number
            kernel = "fill_out" if dt.kind in ("bits", "float4") else "copy_kernel"
            return DtypeNotImplemented(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")
        if src._dtype is not dst._dtype:
            return _cast_refusal(src._dtype, dst._dtype)
        if dt.kind in ("bits", "float4"):
            return None
        name = "clone"
    kernel = _KERNEL_NAMES.get(name, name + "_cpu")
    return DtypeNotImplemented(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")


def _cast_refusal(src: dtypes.dtype, dst: dtypes.dtype) -> Exception:
    """PyTorch's error for casting between two dtypes one of which is a shell dtype: its copy kernel names the
    destination if that is one, else the source; float32 <-> float4_e2m1fn_x2 fails in a deeper kernel."""
    named = dst if dst._category == dtypes._SHELL else src
    kernel = "copy_kernel" if {src, dst} == {dtypes.float32, dtypes.float4_e2m1fn_x2} else "copy_"
    return DtypeNotImplemented(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[named.name]}'")


def _guard(op, args, kwargs, call_next):
    dt = _shell_operand(args)
    if dt is None and op.name == "to_dtype" and getattr(args[1] if len(args) > 1 else kwargs.get("dtype"),
                                                       "_category", 0) == dtypes._SHELL:
        dt = args[1] if len(args) > 1 else kwargs["dtype"]
    if dt is None:
        return call_next(op, args, kwargs)
    if (err := _refusal(op, dt, args, kwargs)) is not None:
        raise err
    out = call_next(op, args, kwargs)
    if op.name in _FRESH and out._dtype is not dt:
        out._dtype = dt  # a kernel's fresh numpy result (clone, cat) comes back as uint8/uint16: the same bytes
    return out


# factories of other dtypes and calls on float32/float64 tensors pass straight down: the fast paths stay open
# (`dispatch.bare`, `dispatch.untracked`) once a shell dtype is used; a factory of a shell dtype takes the general path
_guard.ignores_fresh = True
_guard.ignores_untracked = True


def refuse_values(t: Tensor, how: str) -> None:
    """PyTorch's error for reading a shell tensor's elements as Python numbers or a numpy array (`how`:
    "item", "tolist", "numpy", "print"); printing float4_e2m1fn_x2 reads each byte as a number (PyTorch's output)."""
    name = dtypes.TORCH_NAMES[t._dtype.name]
    if how == "print" and t._dtype.kind == "quant":  # a quantized tensor made by `empty` has no quantizer
        raise _no_quantizer()
    if how == "tolist":
        raise RuntimeError("load_scalar: invalid type")
    if how == "numpy":
        raise TypeError(f"Got unsupported ScalarType {name}")
    raise DtypeNotImplemented(f"\"_local_scalar_dense_cpu\" not implemented for '{name}'")


def zero_bytes(t: Tensor) -> Tensor:
    """`zero_` of a shell tensor: PyTorch's memset of its bytes (`zeros` is `zero_` for these dtypes), which
    its quantized backend lacks."""
    if t._dtype.kind == "quant":
        raise NotImplementedError("Could not run 'aten::zero_' with arguments from the 'QuantizedCPU' backend. This "
                                  "could be because the operator doesn't exist for this backend, or was omitted "
                                  "during the selective/custom build process (if using custom build).")
    t._host_array()[...] = 0
    t._storage.bump()
    return t


def install() -> None:
    """Install the hook (once)."""
    global _installed
    if not _installed:
        _installed = True
        register_dispatch_hook(_guard)
