"""`Parameter`: a tensor that a `Module` registers as one of its learnable weights."""

from __future__ import annotations

from collections import OrderedDict

from typing import Any

from ember.autograd import is_inference
from ember.core import Tensor, empty, preserve_format
from ember.core.overrides import _disabled_torch_function_impl  # noqa: F401 - where PyTorch's module has it too
from ember.core.sparse import SparseTensor

__all__ = ["Parameter", "Buffer", "UninitializedTensorMixin", "UninitializedParameter", "UninitializedBuffer",
           "is_lazy"]


def _detached(t: Tensor) -> Tensor:
    """A plain tensor over `t`'s storage (shared version counter) that carries no gradient; a sparse tensor's
    own `detach` (it has no storage: its indices and values are the state)."""
    if isinstance(t, SparseTensor):
        return t.detach()
    return Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)


class _ParameterMeta(type):
    """`isinstance(t, Parameter)` also holds for the tensor-subclass instance `Parameter(t)` returned flagged
    `_is_param`, as PyTorch's metaclass says."""

    def __instancecheck__(cls, instance) -> bool:
        c = instance.__class__
        if c is Tensor or not issubclass(c, Tensor):  # the common answers first: Module.__setattr__ asks each value
            return False
        return issubclass(c, cls) or cls is Parameter and instance.__dict__.get("_is_param", False)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that, assigned as a `Module` attribute, joins the module's `parameters()`.

    It shares the storage of `data` (no copy) and is a leaf with `requires_grad=True` by default. Of an
    instance of a user's Tensor subclass it is, as PyTorch's, that instance detached, flagged `_is_param`
    (so it keeps its class, and `isinstance(p, Parameter)` holds).

    >>> import ember.core as ec
    >>> p = Parameter(ec.zeros(2))
    >>> isinstance(p, Tensor), p.requires_grad, p.shape
    (True, True, ember.Size([2]))
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):  # PyTorch calls data.detach(): Python's AttributeError names the type
            data.detach  # noqa: B018
            raise TypeError(f"Parameter: data must be a Tensor; got {type(data).__name__}")
        if type(data) is not Tensor and type(data) is not Parameter and not isinstance(data, SparseTensor):
            t = data.detach().requires_grad_(requires_grad)
            if type(t) is not type(data):
                raise RuntimeError(f"Creating a Parameter from an instance of type {type(data).__name__} requires that "
                                   f"detach() returns an instance of the same type, but return type "
                                   f"{type(t).__name__} was found instead. To use the type as a Parameter, please "
                                   "correct the detach() semantics defined by its __torch_dispatch__() "
                                   "implementation.")
            t._is_param = True
            return t
        if requires_grad and not (data._dtype.is_floating_point or data._dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        if isinstance(data, SparseTensor):  # PyTorch's keeps the layout: indices and values shared, a sparse grad
            p = data.detach()
            p.__class__ = _SparseParameter
            return p.requires_grad_(requires_grad)
        p = Tensor._make(data._storage, data._offset, data._shape, data._strides, data._dtype, cls)
        if not p._is_inference and is_inference(data):  # PyTorch detaches `data`: an inference tensor stays one
            p._is_inference = True
        if requires_grad:
            p.requires_grad_()  # which refuses an inference tensor outside inference mode, in PyTorch's words
        return p

    def __repr__(self) -> str:
        body = super().__repr__()
        if type(self) is not Parameter:  # a subclass: PyTorch wraps its `MyParam([...])` as `Parameter(...)`
            body = f"Parameter({body})"
        return "Parameter containing:\n" + body

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_detached(self).clone(memory_format=preserve_format), self.requires_grad)  # PyTorch's
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (_detached(self), self.requires_grad, OrderedDict()))


class _SparseParameter(SparseTensor, Parameter):
    """`Parameter(sparse)`: a sparse tensor (COO, CSR, CSC) that is a Parameter, named as PyTorch's class."""

    def __repr__(self) -> str:
        return "Parameter containing:\n" + SparseTensor.__repr__(self)

    __str__ = __repr__
    __deepcopy__ = Parameter.__deepcopy__
    __reduce_ex__ = Parameter.__reduce_ex__


_SparseParameter.__name__ = _SparseParameter.__qualname__ = "Parameter"


def _rebuild_parameter(data: Tensor, requires_grad: bool, hooks) -> Parameter:
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    """`isinstance(t, Buffer)` holds for a tensor that `Buffer(...)` marked (PyTorch's test)."""

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a `Module` attribute: as PyTorch's, the
    result is a tensor (detached, keeping requires_grad) carrying `persistent`."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:
        t = (empty(0) if data is None else data).detach().requires_grad_(False if data is None else data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


_UNINIT_ALLOWED_METHODS = frozenset({
    "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char", "short", "int", "long",
    "cuda", "cpu", "to", "get_device", "requires_grad_", "materialize"})
_UNINIT_RUN_ON_PLAIN = frozenset({"size", "is_complex", "is_floating_point", "half", "float", "double", "char",
                                  "short", "int", "long", "cuda", "cpu", "to", "get_device"})


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (lazy modules): it holds no elements; only its dtype
    and device can change until `materialize(shape)` gives it storage and turns it into `cls_to_become`."""

    cls_to_become: type = Tensor
    _dense_like = False

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Allocate uninitialised storage of `shape` (keeping this object, so optimizers holding it stay valid)
        and become `cls_to_become`."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        data = empty(tuple(shape), device=device, dtype=dtype)
        self._set_meta(data._storage, data._offset, data._shape, data._strides)
        self._dtype = data._dtype
        self.__class__ = self.cls_to_become

    def __getattribute__(self, name: str):
        # PyTorch refuses every op on an uninitialized tensor except conversions: ember has no
        # __torch_function__, so its public methods are filtered here (private slots pass for the kernels)
        # tensor properties (dtype, device, requires_grad, grad, data ...) stay readable, as PyTorch's descriptors
        if name[0] == "_" or name in ("cls_to_become", "persistent", "shape") or \
                isinstance(getattr(Tensor, name, None), property):
            return object.__getattribute__(self, name)
        if name in _UNINIT_RUN_ON_PLAIN:
            return getattr(_detached(self), name)
        if name in _UNINIT_ALLOWED_METHODS:
            return object.__getattribute__(self, name)
        raise _uninitialized_use(type(self), name)

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))


# the TensorBase method PyTorch's __torch_function__ names for an operator; the rest are Python-level functions
_TORCH_METHOD = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
                 "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__itruediv__": "div_",
                 "__matmul__": "matmul", "__neg__": "neg", "__pos__": "positive", "__abs__": "abs", "__lt__": "lt",
                 "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__ne__": "ne", "__mod__": "remainder",
                 "__imod__": "remainder_", "__rand__": "bitwise_and", "__ror__": "bitwise_or",
                 "__rxor__": "bitwise_xor", "__iter__": "dim", "nelement": "numel"}
_TORCH_FUNCTION = {"__rsub__": "Tensor.__rsub__", "__rtruediv__": "Tensor.__rdiv__", "__pow__": "TensorBase.pow",
                   "__ipow__": "TensorBase.pow_", "__rpow__": "Tensor.__rpow__", "__floordiv__": "Tensor.__floordiv__",
                   "__rfloordiv__": "Tensor.__rfloordiv__", "__rmod__": "Tensor.__rmod__",
                   "__rmatmul__": "Tensor.__rmatmul__", "__rlshift__": "Tensor.__rlshift__",
                   "__rrshift__": "Tensor.__rrshift__", "__len__": "Tensor.__len__", "__array__": "Tensor.__array__",
                   "__contains__": "Tensor.__contains__", "__reversed__": "Tensor.__reversed__",
                   "__format__": "Tensor.__format__", "norm": "Tensor.norm", "split": "Tensor.split",
                   "unique": "Tensor.unique", "unflatten": "Tensor.unflatten", "backward": "Tensor.backward",
                   "register_hook": "Tensor.register_hook", "stft": "Tensor.stft", "istft": "Tensor.istft",
                   "lu": "Tensor.lu", "storage": "Tensor.storage", "is_shared": "Tensor.is_shared"}


def _torch_callable(name: str) -> str:
    """How PyTorch's message names the refused call: `<method 'add' of 'torch._C.TensorBase' objects>`."""
    if name in ("__getitem__", "__setitem__"):
        return f"<slot wrapper '{name}' of 'torch._C.TensorBase' objects>"
    if name in _TORCH_FUNCTION:
        return f"<function {_TORCH_FUNCTION[name]} at {id(_TORCH_FUNCTION):#x}>"
    return f"<method '{_TORCH_METHOD.get(name, name)}' of 'torch._C.TensorBase' objects>"


def _uninitialized_use(cls: type, what: str) -> ValueError:
    what = _torch_callable(what)
    return ValueError(f"Attempted to use an uninitialized parameter in {what}. This error happens when you are "
                      f"using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{cls.__name__}` objects. "
                      "When using LazyModules Call `forward` with a dummy batch to initialize the parameters before "
                      "calling torch functions")


def _refuse(name: str):
    def method(self, *args, **kwargs):
        raise _uninitialized_use(type(self), name)
    method.__name__ = name
    return method


# the operators Python looks up on the type (not through __getattribute__)
for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
            "rshift"):
    for _name in (f"__{_op}__", f"__r{_op}__", f"__i{_op}__"):
        setattr(UninitializedTensorMixin, _name, _refuse(_name))
for _name in ("__neg__", "__pos__", "__abs__", "__invert__", "__getitem__", "__setitem__", "__lt__", "__le__",
              "__gt__", "__ge__", "__eq__", "__ne__", "__len__", "__contains__", "__reversed__", "__format__",
              "__iter__", "__bool__", "__float__", "__int__", "__index__",
              "__array__"):
    setattr(UninitializedTensorMixin, _name, _refuse(_name))
UninitializedTensorMixin.__hash__ = Tensor.__hash__  # ids, so parameters key optimizer state before init


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A `Parameter` whose shape a lazy module infers at its first forward.

    >>> from ember.nn.parameter import UninitializedParameter
    >>> p = UninitializedParameter()
    >>> p
    <UninitializedParameter>
    >>> p.materialize((2, 3)); type(p).__name__, tuple(p.shape)
    ('Parameter', (2, 3))
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        data = empty(0, device=device, dtype=dtype)
        if requires_grad and not (data._dtype.is_floating_point or data._dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        if isinstance(data, SparseTensor):  # PyTorch's keeps the layout: indices and values shared, a sparse grad
            p = data.detach()
            p.__class__ = _SparseParameter
            return p.requires_grad_(requires_grad)
        p = Tensor._make(data._storage, data._offset, data._shape, data._strides, data._dtype, cls)
        if not p._is_inference and is_inference(data):  # PyTorch detaches `data`: an inference tensor stays one
            p._is_inference = True
        if requires_grad:
            p.requires_grad_()  # which refuses an inference tensor outside inference mode, in PyTorch's words
        return p

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.device, self.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy module infers at its first forward (assigning one to a module attribute
    registers it as a buffer, persistent or not)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        data = empty(0, device=device, dtype=dtype)
        b = Tensor._make(data._storage, data._offset, data._shape, data._strides, data._dtype, cls)
        b._requires_grad = bool(requires_grad)
        b.persistent = persistent
        b._is_buffer = True
        return b

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.device, self.dtype, self.persistent)
        memo[id(self)] = result
        return result


def is_lazy(param: Any) -> bool:
    """True for an `UninitializedParameter` or `UninitializedBuffer` (a lazy module's not-yet-shaped tensor)."""
    return isinstance(param, UninitializedTensorMixin)
