"""`torch.masked.MaskedTensor`: a tensor's data with a bool mask of the elements that exist.

Elementwise ops apply to the data and keep the mask (two masked operands must have one mask);
reductions ignore the masked-out elements and mask the results that had none. Unlike PyTorch's,
ember's MaskedTensor is a wrapper, not a `Tensor` subclass: `isinstance(mt, Tensor)` is False,
and only the methods below are defined on it (NOTE [ MaskedTensor is no Tensor subclass ]); the
`torch.<op>(mt, ...)` functions reach them through `__torch_function__`.
Gradients flow to the data tensor (`mt.grad` is the data's gradient under the same mask).

NOTE [ MaskedTensor is no Tensor subclass ]
PyTorch's MaskedTensor is a storage-less wrapper subclass whose `__torch_dispatch__` receives every
aten op any of its arguments reaches, composites' decompositions included, and answers each with
the masked semantics or a TypeError. ember's ops consult no per-type protocol (`ember.core.overrides`
reaches only the functions that opt in): an Op call runs the dispatch hooks, then the device kernel,
which reads the tensor's own storage, offset, shape and strides. A subclass would therefore hand its
data to every op it does not override (`ember.core.exp(mt)`, `matmul`, `cat`, and every composite
that reads `_np()` directly) and return plain tensors computed over the masked-out values, silently.
Routing them to the masked semantics needs a dispatch hook, which costs a frame and a scan of the
arguments on every op of the process (the op-path budget), or a per-type check in `Op.__call__`,
which costs every op the same. Until ember's dispatch has a subclass key that costs nothing when no
subclass is alive, the wrapper keeps unknown ops failing loudly instead.
"""

from __future__ import annotations

from ember.core import dtypes
from ember.core.ops._util import warn_at_caller
from ember.core.tensor import Tensor

__all__ = ["MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor"]

_UNARY = ("abs", "neg", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "tan",
          "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "relu", "sign",
          "floor", "ceil", "round", "trunc", "frac", "reciprocal", "square", "erf", "erfc", "isnan", "isinf",
          "isfinite", "logical_not", "bitwise_not", "angle", "positive", "nan_to_num", "clamp", "pow", "float",
          "double", "half", "int", "long", "bool", "detach", "clone", "contiguous")
_REDUCTIONS = ("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "var", "std",
               "logsumexp")
# PyTorch's MaskedTensor warns at every construction, an op's result included
_PROTOTYPE = ("The PyTorch API of MaskedTensors is in prototype stage and will change in the near future. Please open "
              "a Github issue for features requests and see our documentation on the torch.masked module for further "
              "information about the project.")


def _check(data, mask) -> None:
    if not isinstance(data, Tensor):
        raise TypeError("data must be a Tensor")
    if not isinstance(mask, Tensor):
        raise TypeError("mask must be a Tensor")
    if mask.dtype != dtypes.bool:
        raise TypeError("mask must have dtype bool.")
    if data.ndim != mask.ndim:
        raise ValueError("data.dim() must equal mask.dim()")
    if data.shape != mask.shape:
        raise ValueError("data.size() must equal mask.size()")


def _made() -> None:
    """What making a MaskedTensor does besides: PyTorch's prototype warning, and the op-level `__torch_function__`
    check switched on (once), so that `torch.exp(mt)` reaches `mt.exp` before any reduction has seen one."""
    from ember.core.overrides import _activate

    warn_at_caller(_PROTOTYPE)
    _activate()


class MaskedTensor:
    """Data and a same-shape bool mask (True where an element exists).

    Args:
        data: the values (any strided tensor); copied and detached, like `masked_tensor`.
        mask: bool tensor of `data`'s shape.
        requires_grad: make the (copied) data a leaf that requires grad.

    Raises:
        TypeError: `data` or `mask` is not a tensor, or `mask` is not bool.
        ValueError: `data` and `mask` differ in shape.
    """

    def __init__(self, data: Tensor, mask: Tensor, requires_grad: bool = False) -> None:
        _check(data, mask)
        _made()
        # a tensor requires grad only once the autograd layer is installed, which gives it `detach`
        copy = (data.detach() if data.requires_grad else data).clone()
        self._data = copy.requires_grad_() if requires_grad else copy
        self._mask = mask.clone()

    @classmethod
    def _wrap(cls, data: Tensor, mask: Tensor) -> MaskedTensor:
        """A MaskedTensor over `data` itself (no copy; the autograd graph is kept)."""
        _made()
        mt = cls.__new__(cls)
        mt._data, mt._mask = data, mask
        return mt

    def get_data(self) -> Tensor:
        """The data, masked-out elements included (their values are unspecified)."""
        return self._data

    def get_mask(self) -> Tensor:
        """The bool mask: True where an element exists."""
        return self._mask

    def to_tensor(self, value) -> Tensor:
        """A plain tensor: the data where the mask is True, `value` elsewhere."""
        from ember.core import where

        return where(self._mask, self._data, value)

    # --------------------------------------------------------------- tensor-like attributes

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    device = property(lambda self: self._data.device)
    ndim = property(lambda self: self._data.ndim)
    layout = property(lambda self: self._data.layout)
    is_sparse = False

    def dim(self) -> int:
        return self._data.ndim

    def size(self, dim: int | None = None):
        return self._data.size() if dim is None else self._data.size(dim)

    def numel(self) -> int:
        return self._data.numel()

    def __len__(self) -> int:
        return len(self._data)

    # ---------------------------------------------------------------------------- autograd

    @property
    def requires_grad(self) -> bool:
        return self._data.requires_grad

    def requires_grad_(self, requires_grad: bool = True) -> MaskedTensor:
        self._data.requires_grad_(requires_grad)
        return self

    @property
    def grad(self) -> MaskedTensor | None:
        """The data's gradient under this mask (None before a backward)."""
        g = self._data.grad
        return None if g is None else MaskedTensor._wrap(g, self._mask)

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False) -> None:
        if isinstance(gradient, MaskedTensor):
            gradient = gradient.to_tensor(0)
        self._data.backward(gradient, retain_graph=retain_graph, create_graph=create_graph)

    # ------------------------------------------------------------------------- operations

    def _binary(self, other, fn, reflected: bool = False) -> MaskedTensor:
        if isinstance(other, MaskedTensor):
            if other._mask.shape != self._mask.shape or not bool((other._mask == self._mask).all()):
                raise ValueError("Input masks must match. If you need support for this, please open an issue on "
                                 "Github.")
            other = other._data
        a, b = (other, self._data) if reflected else (self._data, other)
        return MaskedTensor._wrap(fn(a, b), self._mask)

    def _reduce(self, name: str, *args, **kwargs) -> MaskedTensor:
        """`torch.masked.<name>` under this mask; the result's mask says which outputs had an element."""
        import inspect

        from ember.core import masked

        fn = getattr(masked, name)
        bound = inspect.signature(fn).bind(self._data, *args, **kwargs)
        bound.apply_defaults()
        data = fn(*bound.args, **{**bound.kwargs, "mask": self._mask})
        dim, keepdim = bound.arguments["dim"], bool(bound.arguments["keepdim"])
        mask = self._mask
        if dim is None:
            mask = mask.any()
        elif mask.ndim:
            for d in reversed(masked._canonical_dim(dim, mask.ndim)):
                mask = mask.any(d, keepdim=keepdim)
        return MaskedTensor._wrap(data, mask.reshape(data.shape))

    def __repr__(self) -> str:
        if self._data.ndim == 0:
            text = _format(self._data.item()) if bool(self._mask.item()) else "--"
            return f"MaskedTensor({text}, {bool(self._mask.item())})"
        body = "\n".join("  " + line for line in _masked_str(self._data, self._mask).split("\n"))
        return f"MaskedTensor(\n{body}\n)"

    def __getitem__(self, index) -> MaskedTensor:
        return MaskedTensor._wrap(self._data[index], self._mask[index])

    def _normalized(self, name: str, dim: int, dtype=None) -> MaskedTensor:
        """`torch.masked.<name>` (softmax, log_softmax, softmin) along `dim`; the mask is kept."""
        from ember.core import masked

        return MaskedTensor._wrap(getattr(masked, name)(self._data, dim, dtype=dtype, mask=self._mask), self._mask)

    def all(self, dim=None, keepdim: bool = False) -> MaskedTensor:  # noqa: A003 - PyTorch's name
        """Whether every present element is true; results with no element are masked out."""
        data, mask = self.to_tensor(True), self._mask
        if dim is None:
            return MaskedTensor._wrap(data.all(), mask.any())
        return MaskedTensor._wrap(data.all(dim, keepdim=keepdim), mask.any(dim, keepdim=keepdim))

    def softmax(self, dim: int, dtype=None) -> MaskedTensor:
        return self._normalized("softmax", dim, dtype)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """`torch.<op>(mt, ...)` as `mt.<op>(...)`, and `torch.where(cond, a, b)` over same-mask operands: the
        functions PyTorch's MaskedTensor answers; any other returns NotImplemented (a TypeError)."""
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name == "where" and len(args) == 3:
            cond, a, b = args
            masked = [x for x in (a, b) if isinstance(x, MaskedTensor)]
            if any(not bool((x._mask == masked[0]._mask).all()) for x in masked[1:]):
                raise ValueError("Input masks must match. If you need support for this, please open an issue on "
                                 "Github.")
            a, b = (x._data if isinstance(x, MaskedTensor) else x for x in (a, b))
            from ember.core import where

            return MaskedTensor._wrap(where(cond, a, b), masked[0]._mask)
        if args and isinstance(args[0], MaskedTensor) and callable(getattr(MaskedTensor, name, None)):
            return getattr(args[0], name)(*args[1:], **kwargs)
        return NotImplemented


def _format(v) -> str:
    return f"{v:8.4f}" if isinstance(v, float) else str(v)


def _masked_str(data: Tensor, mask: Tensor) -> str:
    """PyTorch's layout: one bracketed row per line, '--' for a masked-out element."""
    if data.ndim == 1:
        items = [_format(v) for v in data.tolist()]
        keep = mask.tolist()
        width = max((len(s) if k else 8 for s, k in zip(items, keep)), default=0)
        return "[" + ", ".join(s if k else "--".rjust(width) for s, k in zip(items, keep)) + "]"
    rows = ["\n".join("  " + line for line in _masked_str(d, m).split("\n")) for d, m in zip(data, mask)]
    return "[\n" + ",\n".join(rows) + "\n]"


def _unary(name: str):
    def op(self, *args, **kwargs):
        return MaskedTensor._wrap(getattr(self._data, name)(*args, **kwargs), self._mask)

    op.__name__ = name
    op.__doc__ = f"`Tensor.{name}` of the data; the mask is kept."
    return op


def _reduction(name: str):
    def op(self, *args, **kwargs):
        return self._reduce(name, *args, **kwargs)

    op.__name__ = name
    op.__doc__ = f"`torch.masked.{name}` of the data under the mask; results with no element are masked out."
    return op


for _name in _UNARY:
    setattr(MaskedTensor, _name, _unary(_name))
for _name in _REDUCTIONS:
    setattr(MaskedTensor, _name, _reduction(_name))


def _binary_ops() -> None:
    import operator

    table = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
             "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
             "or": operator.or_, "xor": operator.xor}
    for name, fn in table.items():
        setattr(MaskedTensor, f"__{name}__", lambda self, other, fn=fn: self._binary(other, fn))
        setattr(MaskedTensor, f"__r{name}__", lambda self, other, fn=fn: self._binary(other, fn, reflected=True))
    for name in ("lt", "le", "gt", "ge", "eq", "ne"):
        fn = getattr(operator, name)
        setattr(MaskedTensor, f"__{name}__", lambda self, other, fn=fn: self._binary(other, fn))
    MaskedTensor.__neg__ = lambda self: MaskedTensor._wrap(-self._data, self._mask)
    MaskedTensor.__abs__ = lambda self: MaskedTensor._wrap(abs(self._data), self._mask)
    MaskedTensor.__hash__ = object.__hash__
    for name in ("add", "sub", "mul", "div", "true_divide", "maximum", "minimum", "atan2", "fmod", "remainder",
                 "logical_and", "logical_or", "logical_xor"):
        setattr(MaskedTensor, name, lambda self, other, *a, name=name, **k:
                self._binary(other, lambda x, y: getattr(x, name)(y, *a, **k)))


_binary_ops()


def is_masked_tensor(obj) -> bool:
    """Whether `obj` is a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


def masked_tensor(data: Tensor, mask: Tensor, requires_grad: bool = False) -> MaskedTensor:
    """A MaskedTensor of a copy of `data` (a new leaf, which requires grad if asked) and `mask`.

    Example:
        >>> import ember.core as ec
        >>> masked_tensor(ec.tensor([1.0, 2.0]), ec.tensor([True, False]))
        MaskedTensor(
          [  1.0000,       --]
        )
    """
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data: Tensor, mask: Tensor) -> MaskedTensor:
    """A MaskedTensor over `data` itself (no copy): gradients reach `data` through the ops on it.

    Raises:
        TypeError, ValueError: as `masked_tensor`.
    """
    _check(data, mask)
    return MaskedTensor._wrap(data, mask)

