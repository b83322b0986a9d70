"""Gradient tracking on `Tensor`: attributes and methods attached through core's `attach`.

`requires_grad`, `grad`, `grad_fn`, `is_leaf`, `data`, `output_nr` become settable/working
properties and `backward`, `detach`, `register_hook`, `retain_grad` ... methods, on the one
tensor type of the stack, so every tensor (from a data loader, from `ember.core`) has them.
"""

from __future__ import annotations

import importlib
import warnings
import weakref
from collections.abc import Callable

from ember.core.methods import attach
from ember.core.ops._util import warn_at_caller
from ember.core.storage import Storage, VersionAlias
from ember.core.tensor import Tensor, describe

from ember.autograd import engine
from ember.autograd.graph import Node, RemovableHandle, _Hooks, add_hook, edge_of, meta, refuse_stale_view
from ember.autograd.grad_mode import _enabled, _inference, _state
from ember.autograd.record import is_inference

__all__ = ["install", "is_tensor", "is_floating_point", "numel", "is_nonzero", "detach", "Variable"]


def _check_can_require_grad(t: Tensor, what: str = "floating point and complex") -> None:
    if not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError(f"only Tensors of {what} dtype can require gradients")


def _get_requires_grad(self: Tensor) -> bool:
    """PyTorch's: a view also requires grad while its base does, read from the base each time (a view made in
    `no_grad` of a tensor that later calls `requires_grad_()`). Ops read `_requires_grad` itself: they record
    nothing for such a view (PyTorch records a graph that reaches no leaf), so the op path costs nothing more."""
    if self._requires_grad:
        return True
    m = self._ag
    return m is not None and m.base is not None and m.base._requires_grad


def _set_requires_grad(self: Tensor, value: bool, what: str = "floating point and complex") -> None:
    if type(value) is not bool:  # numpy bools, ints and 0-dim tensors are refused too (the method: TypeError)
        raise RuntimeError("requires_grad must be a bool")
    if self._grad_fn is not None:
        if not value:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        return
    if value:
        _check_can_require_grad(self, what)
        if self._is_inference and not _inference.get():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
    self._requires_grad = value


def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Set `requires_grad` in place (leaves only, floating dtypes only) and return self."""
    if type(requires_grad) is not bool:
        kind = type(requires_grad)
        plain = kind.__module__ in ("builtins", "ember.core.tensor")
        name = kind.__name__ if plain else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not {name}")
    _set_requires_grad(self, requires_grad, "floating point")  # PyTorch's wording for the method
    return self


def _get_grad(self: Tensor):
    if self._grad_fn is not None and self._grad is None and not (self._ag is not None and self._ag.retains_grad):
        warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                      "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
                      "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access "
                      "the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
                      "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
                      "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)", UserWarning, stacklevel=2)
    return self._grad


def _set_grad(self: Tensor, value) -> None:
    if value is not None:
        if not isinstance(value, Tensor):
            cls = type(value)  # numpy's C types print their module, as Python's tp_name does
            name = f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {name}")
        from ember.core.dtypes import TORCH_NAMES
        from ember.core.ops.linalg import _c_name

        if value._dtype is not self._dtype:  # PyTorch's order: dtype, device, size
            raise RuntimeError(f"attempting to assign a gradient with dtype '{_c_name(value)}' to a tensor with "
                               f"grad_dtype '{TORCH_NAMES[self._dtype.name]}'. The gradient must match the tensor's "
                               "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                               "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
                               "caution. Diverging the dtypes of a tensor and its gradient may break downstream "
                               "systems that assume they match.")
        if value.device.type != self.device.type:
            raise RuntimeError(f"attempting to assign a gradient with device type '{value.device.type}' to a tensor "
                               f"with device type '{self.device.type}'. Please ensure that the gradient and the tensor "
                               "are on the same device")
        if value.device != self.device:
            raise RuntimeError(f"assigned grad has data located on a different device; got {describe(value)} for "
                               f"{describe(self)}")
        if value._shape != self._shape:
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value._shape)}' to a tensor of size "
                               f"'{list(self._shape)}'. Please ensure that the gradient and the tensor are the same "
                               "size")
    self._grad = value


def _del_grad(self: Tensor) -> None:
    self._grad = None


def _get_grad_fn(self: Tensor):
    if self._grad_fn is None:
        if self._ag is not None and self._ag.attr_version is not None:
            refuse_stale_view(self)
        if not self._requires_grad:
            return None
    return edge_of(self)[0] if self._grad_fn is not None or _woken(self) else None


def _woken(t: Tensor) -> bool:
    """A view whose base an in-place op made require grad since (NOTE [ Waking views ]): its node is made on use."""
    m = t._ag
    if m is None or m.base is None or m.made_in is not None:
        return False
    bm = m.base._ag
    return bm is not None and m.view_gen != bm.gen


def _get_is_leaf(self: Tensor) -> bool:
    return _get_grad_fn(self) is None  # PyTorch's Python is_leaf reads grad_fn, so a woken view gets its node


def _get_data(self: Tensor) -> Tensor:
    """`Tensor.data`: the same memory, outside autograd, under a version counter of its own (NOTE [ .data's
    version counter ] in ember.core.storage)."""
    st = self._storage
    if not isinstance(st, Storage):  # a sparse tensor (no storage of its own): its detached self, sparse as PyTorch's
        return self.detach()
    t = Tensor._make(VersionAlias(st), self._offset, self._shape, self._strides, self._dtype)
    if self._conj:  # `.data` of a conjugate view reads conjugated too
        t._conj = True
    if self._neg:  # and a negative view's negated
        t._neg = True
    return t


def _set_data(self: Tensor, value: Tensor) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    if self._requires_grad and not (value._dtype.is_floating_point or value._dtype.is_complex):
        raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
    self._set_meta(value._storage, value._offset, value._shape, value._strides)
    self._dtype = value._dtype


def _get_output_nr(self: Tensor) -> int:
    return self._ag.output_nr if self._ag is not None else 0


def _get_name(self: Tensor) -> None:
    """`Tensor.name`: the name a graph tracer gives a value; ember traces nothing, so always None."""
    return None


def _get_base(self: Tensor):
    return self._ag.base if self._ag is not None else None


def _get_version(self: Tensor) -> int:
    """`Tensor._version`: the storage's version counter, which PyTorch's inference tensors do not have."""
    if self._is_inference:
        raise RuntimeError("Inference tensors do not track version counter.")
    return self._storage.version


def _get_is_view(self: Tensor) -> bool:
    return self._ag is not None and self._ag.base is not None


def backward(self: Tensor, gradient: Tensor | None = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs=None) -> None:
    """Accumulate the gradient of this tensor w.r.t. the graph's leaves into their `.grad`.

    Args:
        gradient: d(loss)/d(self), required unless self has one element.
        retain_graph: keep the graph's saved tensors for another backward (default: create_graph).
        create_graph: record the backward pass (for higher-order derivatives).
        inputs: accumulate only into these tensors' `.grad`.
    """
    engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def detach(self: Tensor) -> Tensor:
    """A new tensor sharing this one's memory (and version counter), outside the graph; an inference tensor
    exactly when this one is (made inside inference mode too, as PyTorch's)."""
    t = Tensor._make(self._storage, self._offset, self._shape, self._strides, self._dtype)
    inference = self._is_inference or is_inference(self)
    if t._is_inference is not inference:
        t._is_inference = inference
    if self._conj:  # a conjugate view's detached alias reads conjugated too
        t._conj = True
    if self._neg:  # and a negative view's negated
        t._neg = True
    return t


def detach_(self: Tensor) -> Tensor:
    """Take this tensor out of the graph in place (it becomes a leaf that does not require grad)."""
    m = self._ag
    if m is not None and m.base is not None:  # any view, as PyTorch (its base need not require grad)
        raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                           "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
                           "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
                           "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
                           "torch/optim/optimizer.py as the solution.")
    self._grad_fn = None
    self._requires_grad = False
    if m is not None:
        m.output_nr = 0
    return self


def retain_grad(self: Tensor) -> None:
    """Populate `.grad` of this non-leaf tensor during backward (a no-op on leaves)."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None:
        return
    m = meta(self)
    if m.retains_grad:
        return
    m.retains_grad = True
    node, nr = edge_of(self)
    if node._retained is None:
        node._retained = {}
        node._hooked = True
    node._retained[nr] = weakref.ref(self)


def _get_retains_grad(self: Tensor) -> bool:
    return self._grad_fn is not None and self._ag is not None and self._ag.retains_grad


def register_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    """Call `hook(grad)` when this tensor's gradient is computed; a returned tensor replaces it."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is None:
        m = meta(self)
        m.hooks, handle = add_hook(m.hooks, hook)
        return handle
    node, nr = edge_of(self)
    if node._tensor_hooks is None:
        node._tensor_hooks = {}
        node._hooked = True
    hooks = node._tensor_hooks.setdefault(nr, _Hooks())
    _, handle = add_hook(hooks, hook)
    return handle


def _get_backward_hooks(self: Tensor):
    """`Tensor._backward_hooks`: the tensor hooks by handle id (PyTorch's OrderedDict), None before the first."""
    if self._grad_fn is None:
        return self._ag.hooks if self._ag is not None else None
    node, nr = edge_of(self)
    return node._tensor_hooks.get(nr) if node._tensor_hooks is not None else None


def warn_if_has_hooks(tensor: Tensor) -> None:
    """PyTorch's warning, as a tensor is saved, for each of its hooks not marked `unserializable_hook`."""
    for hook in (tensor._backward_hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)


def register_post_accumulate_grad_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    """Call `hook(tensor)` after this leaf's `.grad` has been accumulated."""
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    m = meta(self)
    m.post_hooks, handle = add_hook(m.post_hooks, hook)
    return handle


class ToCopyBackward0(Node):
    """A copy to another device (core's device transfers are not ops): the gradient goes back."""

    __module__ = "builtins"  # PyTorch's nodes are C++ types: `<class 'ToCopyBackward0'>`

    __slots__ = ("_src",)

    def __init__(self, src: Tensor) -> None:
        super().__init__()
        self._src = (src._shape, src._dtype, src.device)
        self.next_functions = (edge_of(src),)

    def apply(self, grads: list) -> list:
        return [engine.reduce_grad(self, 0, grads[0], self._src)]


def _tracking_device(fn: Callable) -> Callable:
    """Wrap core's `to`/`cuda`/`cpu` so a transfer of a tensor that requires grad is recorded."""
    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        if (out is not self and self._requires_grad and _state.enabled and out._grad_fn is None
                and out.device != self.device):
            out._grad_fn = ToCopyBackward0(self)
            out._requires_grad = True
        return out

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    return method


def _leaf_only_deepcopy(fn: Callable) -> Callable:
    """Wrap core's `__deepcopy__`: as in PyTorch, only graph leaves can be deep-copied."""
    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        return fn(self, memo)

    __deepcopy__.__wrapped__ = fn
    return __deepcopy__


def install() -> None:
    """Attach everything above to `Tensor`; `replace=True` where it redefines core's own (NOTE [ Attaching
    methods ]). A second call does nothing."""
    if Tensor.__dict__.get("backward") is backward:
        return
    attach("is_nonzero", is_nonzero)
    attach("is_inference", is_inference)
    attach("module_load", _module_load)
    attach("requires_grad", property(_get_requires_grad, _set_requires_grad), replace=True)
    attach("grad", property(_get_grad, _set_grad, _del_grad), replace=True)
    attach("grad_fn", property(_get_grad_fn), replace=True)
    attach("is_leaf", property(_get_is_leaf), replace=True)
    attach("data", property(_get_data, _set_data))
    attach("output_nr", property(_get_output_nr))
    attach("name", property(_get_name))
    attach("_base", property(_get_base))
    attach("_backward_hooks", property(_get_backward_hooks))
    attach("_is_view", _get_is_view)
    attach("_version", property(_get_version), replace=True)
    attach("retains_grad", property(_get_retains_grad))
    attach("volatile", property(_get_volatile, _set_volatile))
    for fn in (requires_grad_, backward, detach, detach_, retain_grad, register_hook,
               register_post_accumulate_grad_hook):
        attach(fn.__name__, fn)
    for name in ("to", "cuda", "cpu"):
        fn = getattr(Tensor, name)
        attach(name, _tracking_device(getattr(fn, "__wrapped__", fn)), replace=True)
    fn = Tensor.__deepcopy__
    attach("__deepcopy__", _leaf_only_deepcopy(getattr(fn, "__wrapped__", fn)), replace=True)
    # float(t) warns under grad mode only, as PyTorch (`ember.core.tensor` the attribute is the creator function)
    importlib.import_module("ember.core.tensor")._grad_mode_enabled = _enabled.get


# --- torch-level functions that ember.core does not provide ---------------------------------
def is_tensor(obj) -> bool:
    """Whether `obj` is an ember tensor (of any subclass, such as nn.Parameter)."""
    return isinstance(obj, Tensor)


def _tensor_arg(op: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}")


def _type_name(obj) -> str:
    cls = obj.__class__
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def is_floating_point(input: Tensor) -> bool:
    _tensor_arg("is_floating_point", input)
    return input.is_floating_point()


def numel(input: Tensor) -> int:
    _tensor_arg("numel", input)
    return input.numel()


def _module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What `load_state_dict` puts in place of self: other detached if `assign`, else self holding other's values."""
    return other.detach() if assign else self.copy_(other).detach()


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor (PyTorch's errors for other sizes)."""
    if input.numel() != 1:
        what = "no values" if input.numel() == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
    return bool(input.item())


_VOLATILE_SET = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


def _get_volatile(self) -> bool:
    """The pre-0.4 flag: always False, with PyTorch's warning."""
    warn_at_caller("volatile was removed (Variable.volatile is always False)")
    return False


def _set_volatile(self, value) -> None:
    warn_at_caller(_VOLATILE_SET)


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """The pre-0.4 PyTorch wrapper, kept for old programs: `Variable(t, requires_grad=True)` is a
    tensor sharing `t`'s memory, a leaf with the given `requires_grad`; every tensor is a Variable."""

    def __new__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Tensor:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warn_at_caller(_VOLATILE_SET)
        return detach(data).requires_grad_(requires_grad)
