"""Custom differentiable ops: `Function` with static `forward(ctx, ...)` / `backward(ctx, ...)`.

As in PyTorch, the `ctx` that `forward` receives *is* the backward node of that call: an
instance of `<Name>Backward`, a class made for each Function subclass, whose `apply` calls the
user's `backward`. `forward` runs with grad mode off; its outputs are then attached to the node.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ember.core.tensor import Tensor

from ember.autograd import anomaly, record
from ember.autograd.graph import FREED, AutogradMeta, Node, SavedTensor, edge_of, meta
from ember.autograd.grad_mode import _state
from ember.autograd.record import check_inplace

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


_LINK = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


class FunctionCtx:
    """The `ctx` API: saving tensors and flags for backward."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Save tensors (or None) for backward; `ctx.saved_tensors` returns them, version-checked."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of "
                                f"type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Save tensors (or None) for `jvp`, where `ctx.saved_tensors` returns them."""
        self._to_save_forward = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare that forward modified these inputs in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that never require grad (indices, masks)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward receives zeros (True, the default) or None for outputs with no gradient."""
        self._materialize = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one `Function.apply` call."""

    _forward_cls: type
    _user_code = True
    _python_defined = True  # no `__call__` (Node.__init_subclass__): PyTorch's Python-defined nodes have none

    def __init__(self) -> None:
        Node.__init__(self)
        self._to_save: tuple = ()
        self._to_save_forward: tuple = ()
        self._jvp_saved: tuple | None = None  # what `saved_tensors` gives inside `jvp`
        self._saved: list | None = None
        self._dirty: tuple = ()
        self._non_differentiable: tuple = ()
        self._materialize = True
        self._out_meta: list = []
        self._n_inputs = 0
        self._input_tensor_pos: list[int] = []
        self.needs_input_grad: tuple[bool, ...] = ()

    def __repr__(self) -> str:
        # a Python-defined node prints as a Python object, module-qualified (PyTorch's C++ nodes do not); every
        # node class lives in this module, which prints as torch.autograd.function under ember.torch
        return f"<{BackwardCFunction.__module__}.{type(self).__qualname__} object at {id(self):#x}>"

    @property
    def saved_tensors(self) -> tuple:
        if self._jvp_saved is not None:  # PyTorch's jvp sees the tensors of `save_for_forward`
            return self._jvp_saved
        if self._saved is None:
            if self._to_save:  # inside forward or setup_context, before the node is recorded
                return tuple(self._to_save)
            raise RuntimeError(FREED)
        return tuple(s.unpack(self) if s is not None else None for s in self._saved)

    @property
    def _raw_saved_tensors(self) -> tuple:
        """PyTorch's `_raw_saved_tensors`: the SavedTensor objects themselves (their `register_hooks`), until
        backward frees them."""
        if self._saved is None:
            raise RuntimeError(FREED)
        return tuple(self._saved)

    @property
    def saved_variables(self) -> tuple:
        return self.saved_tensors

    def release(self) -> None:
        if self._saved is not None:
            for s in self._saved:
                if s is not None:
                    s.release()
        self._saved = None
        self._to_save = ()

    def apply(self, grads: list) -> list:
        from ember.core import zeros

        if self in _cutting:  # a source of the running tangent computation (NOTE [ Custom jvp on the tape ])
            return [None] * len(self.next_functions)
        grads = list(grads)
        if self._materialize:
            for i, g in enumerate(grads):
                if g is None and i < len(self._out_meta) and self._out_meta[i] is not None:
                    shape, dtype, device = self._out_meta[i]
                    grads[i] = zeros(shape, dtype=dtype, device=device)
        res = _user_backward(self._forward_cls)(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = self._n_inputs
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                                   f"{n}, got {len(res)})")
        out = []
        for pos, g in enumerate(res):
            if pos not in self._input_tensor_pos:
                if g is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                       f"{pos + 1}, but the corresponding forward input was not a Variable")
                continue
            out.append(g)
        from ember.autograd.engine import reduce_grad

        return [None if g is None or nf[0] is None else reduce_grad(self, i, g, self._in_meta[i])
                for i, (g, nf) in enumerate(zip(out, self.next_functions))]


def _user_backward(cls) -> Callable:
    """The Function's `backward`, or its `vjp` (PyTorch's alias) where only that one is overridden."""
    backward, vjp = cls.backward, cls.vjp
    if backward is not Function.backward and vjp is not Function.vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                           "only implement one of them.")
    return vjp if vjp is not Function.vjp else backward


# the custom Function nodes the running tangent computation treats as sources (NOTE [ Custom jvp on the tape ] in
# ember.autograd.forward_ad): their backward gives no gradient
_cutting: frozenset = frozenset()


@contextlib.contextmanager
def cutting(nodes):
    """Inside: the custom Function nodes `nodes` give no gradient."""
    global _cutting
    prev, _cutting = _cutting, frozenset(nodes)
    try:
        yield
    finally:
        _cutting = prev


class _FunctionMeta(type):
    """Gives each Function subclass its own backward node class, `<Name>Backward`."""

    def __init__(cls, name, bases, attrs) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls,
                                                                         "__module__": BackwardCFunction.__module__})
        super().__init__(name, bases, attrs)


# the torch.func transforms running the current code, innermost last ("vmap", "grad", ...): a custom Function
# meets PyTorch's requirements for them (see `_check_transforms`)
_TRANSFORMS: ContextVar[tuple[str, ...]] = ContextVar("ember_func_transforms", default=())


@contextlib.contextmanager
def func_transform(kind: str):
    """Mark the user's function as running under the torch.func transform `kind` ("vmap" or another)."""
    token = _TRANSFORMS.set(_TRANSFORMS.get() + (kind,))
    try:
        yield
    finally:
        _TRANSFORMS.reset(token)


def _check_transforms(cls) -> None:
    """PyTorch's refusals of a custom Function under torch.func: it needs `setup_context`, and under vmap a
    `vmap` staticmethod or `generate_vmap_rule = True` (ember's vmap runs per sample, so it needs neither)."""
    kinds = _TRANSFORMS.get()
    if not kinds or cls.__module__.startswith("ember."):  # ember's own Functions stand for PyTorch's native ops
        return
    if cls.setup_context is Function.setup_context:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
                           "...), it must override the setup_context staticmethod. For more details, please see "
                           "https://pytorch.org/docs/main/notes/extending.func.html")
    if "vmap" not in kinds:
        return
    overridden = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule and overridden:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an "
                           "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the overridden "
                           f"vmap staticmethod to avoid ambiguity. {_LINK}")
    if not cls.generate_vmap_rule and not overridden:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please override "
                           "and implement the vmap staticmethod or set generate_vmap_rule=True. For more details, "
                           "please see https://pytorch.org/docs/main/notes/extending.func.html")


class Function(FunctionCtx, metaclass=_FunctionMeta):
    """Base class of custom differentiable operations.

    Example:
        >>> from ember.autograd import tensor
        >>> class Square(Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * grad
        >>> x = tensor([3.0], requires_grad=True)
        >>> Square.apply(x).backward()
        >>> x.grad
        tensor([6.])
    """

    # ember's own Functions whose outputs alias their inputs (time steps, checkpointed segments) set this: their
    # outputs may be written in place, where a user Function's aliasing outputs get PyTorch's view+inplace error
    _internal = False

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward
    generate_vmap_rule = False

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, so "
                      "you should invoke them on the class itself. Instantiating an autograd function will raise an "
                      "error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    generate_vmap_rule = False

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run `forward` and, when an input requires grad, record a `<Name>Backward` node."""
        _check_transforms(cls)
        ctx = cls._backward_cls()
        is_setup_separate = cls.setup_context is not Function.setup_context
        if is_setup_separate or kwargs:
            args = _positional_inputs(cls.forward, args, kwargs, is_setup_separate)
        prev, level = _state.enabled, record._level
        # forward and setup_context may read it; under no_grad no input needs a gradient, as PyTorch's
        ctx.needs_input_grad = tuple(prev and isinstance(a, Tensor) and a._requires_grad for a in args)
        _state.enabled = False
        if level > 0 and not cls.__module__.startswith("ember."):  # PyTorch runs a user's forward with forward
            record._level = -1  # grad off: its ops carry no tangent (ember's own Functions' tangents come through them)
        try:
            if is_setup_separate:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        finally:
            _state.enabled, record._level = prev, level
        if ctx._dirty:
            outs = output if isinstance(output, tuple) else (output,)
            if not all(any(t is o for o in outs) for t in ctx._dirty):
                raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                                   "output. The inputs that are modified inplace must all be outputs of the Function.")
        for t in ctx._dirty:  # PyTorch's mark_dirty bumps each dirty tensor's version once more
            t._storage.version += 1
        tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if prev and any(ctx.needs_input_grad):
            output = _attach(ctx, args, tensor_pos, output)
        forward = _forward_mode(cls, ctx, args, output, prev)
        if forward is not None:
            output = _with_tangents(output, *forward)
        return output


_MISSING = object()
_signature = functools.lru_cache(maxsize=256)(inspect.signature)


def _positional_inputs(forward: Callable, args: tuple, kwargs: dict, bind: bool) -> tuple:
    """`apply`'s arguments as PyTorch passes them to `forward`: all positional (each is an input with its own
    gradient). With `setup_context`, `forward`'s signature first binds them and fills in the defaults (so
    `setup_context`'s `inputs` hold them all); a keyword left over must name a positional parameter of `forward`
    after `ctx`, read from its code object as PyTorch's C++ `apply` does, and takes that place."""
    if bind:
        bound = _signature(forward).bind(*args, **kwargs)
        bound.apply_defaults()
        args, kwargs = bound.args, bound.kwargs
    if not kwargs:
        return tuple(args)
    code = getattr(forward, "__code__", None)
    names = code.co_varnames[1:code.co_argcount] if code is not None else ()
    slots = list(args)
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
        i = names.index(name)
        if i < len(args):
            raise TypeError(f"forward() got multiple values for argument '{name}'")
        slots.extend([_MISSING] * (i + 1 - len(slots)))
        slots[i] = value
    for i, value in enumerate(slots):
        if value is _MISSING:
            raise TypeError(f"forward() missing required argument: '{names[i]}' (position {i})")
    return tuple(slots)


_NO_TANGENT = ('(new_grad_base.is_floating_point() || new_grad_base.is_complex()) && (self_base.is_floating_point() '
               '|| self_base.is_complex()) INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/csrc/autograd/'
               'autograd_meta.cpp":159, please report a bug to PyTorch. Expected both tensor and its forward grad to '
               'be floating point or complex')  # PyTorch's message for a jvp returning None for a differentiable output


def _forward_mode(cls, ctx: BackwardCFunction, args: tuple, output, grad_enabled: bool):
    """Where an input carries a tangent (of the open forward-AD level or a running torch.func.jvp/jacfwd), call the
    user's `jvp` as PyTorch does (NOTE [ Custom jvp on the tape ]): with the tangent of each input (zeros for a
    tensor without one, None for a non-tensor), the `save_for_forward` tensors as `ctx.saved_tensors`, grad mode as
    it was and forward AD off. Returns (frame, per column the output tangents, the differentiable outputs'
    positions), or None where no input carries a tangent. A Function without `jvp` raises PyTorch's error; ember's
    own Functions stand in for ATen ops, whose tangents come through their backward."""
    from ember.autograd import forward_ad

    if cls.__module__.startswith("ember."):
        return None
    frame = forward_ad.frame_of(args)
    if frame is None:
        return None
    if cls.jvp is Function.jvp:
        Function.jvp(ctx)
    pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    outs = list(output) if isinstance(output, tuple) else [output]
    non_diff = {id(t) for t in ctx._non_differentiable}
    diff = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and id(o) not in non_diff
            and (o._dtype.is_floating_point or o._dtype.is_complex)]
    storages = {id(args[j]._storage): j for j in pos}
    dirty = {id(t) for t in ctx._dirty}
    views = {i: storages[id(outs[i]._storage)] for i in diff  # outputs that are an input as-is or its view
             if id(outs[i]._storage) in storages and id(outs[i]) not in dirty}
    columns = []
    saved = tuple(forward_ad.primal_in_jvp(frame, t) for t in ctx._to_save_forward)
    for ts in forward_ad.input_tangents(frame, [args[i] for i in pos]):
        full = [None] * len(args)
        for i, t in zip(pos, ts):
            full[i] = t
        prev, level = _state.enabled, record._level
        _state.enabled, record._level, ctx._jvp_saved = grad_enabled, -1, saved
        try:
            with forward_ad.framed(None):
                res = cls.jvp(ctx, *full)
        finally:
            _state.enabled, record._level, ctx._jvp_saved = prev, level, None
        res = _check_jvp(outs, res if isinstance(res, tuple) else (res,), diff)
        for i, j in views.items():
            _check_view_tangent(res[i], full[j])
        columns.append(res)
    return frame, columns, diff


def _check_jvp(outs: list, res: tuple, diff: list[int]) -> tuple:
    """PyTorch's checks of what a `jvp` returned against the forward's outputs."""
    if len(res) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outs)} "
                           f"but got {len(res)})")
    for i, (o, t) in enumerate(zip(outs, res)):
        if t is not None and not isinstance(t, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(t).__name__}) for grad output {i}.")
        if i not in diff:
            if t is not None:
                raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the corresponding "
                                   "forward output is not a differentiable Tensor.You should return None at that "
                                   "position instead.")
        elif t is None:
            raise RuntimeError(_NO_TANGENT)
        elif tuple(t.shape) != tuple(o.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(o.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    return res


def _check_view_tangent(t_out: Tensor, t_in: Tensor) -> None:
    """PyTorch's checks of the tangent of an output that is an input as-is or its view: a view of that input's
    tangent (of its base where it is itself a view)."""
    if not t_out._is_view():
        raise RuntimeError("A custom Function's forward is returning a view (or an input as-is) but the jvp is not "
                           "returning a view.")
    if t_in._is_view():
        if t_out._base is not t_in._base:
            raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the same "
                               "base as the given grad input.")
    elif t_out._base is not t_in:
        raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the given "
                           "grad input.")


def _with_tangents(output, frame, columns: list[tuple], diff: list[int]):
    """The Function's outputs made sources of `frame` with the tangents its `jvp` returned."""
    from ember.autograd import forward_ad

    single = not isinstance(output, tuple)
    outs = [output] if single else list(output)
    for i in diff:
        outs[i] = forward_ad.add_output(frame, outs[i], [col[i] for col in columns])
    return outs[0] if single else tuple(outs)


def _attach(ctx: BackwardCFunction, args: tuple, tensor_pos: list[int], output):
    ctx._n_inputs = len(args)
    ctx._input_tensor_pos = tensor_pos
    ctx.next_functions = tuple(edge_of(args[i]) if args[i]._requires_grad else (None, 0) for i in tensor_pos)
    ctx._in_meta = [(args[i]._shape, args[i]._dtype, args[i]._storage.device) for i in tensor_pos]
    if anomaly._enabled:
        import traceback

        ctx._trace = traceback.extract_stack()[:-3]
        ctx._hooked = True
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    inputs = {id(args[i]) for i in tensor_pos}
    storages = {id(args[i]._storage) for i in tensor_pos}
    single = not isinstance(output, tuple)
    outs = [output] if single else list(output)
    ctx._n_out = len(outs)
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            ctx._out_meta.append(None)
            continue
        nd = id(o) in non_diff  # before an input returned as-is becomes a new tensor
        if id(o) in dirty:
            if len(outs) > 1 and o._ag is not None and o._ag.base is not None:
                raise RuntimeError(_DIRTY_VIEW_OUTPUTS)  # before the view-of-a-leaf check, as PyTorch's
            check_inplace(o, dirtied=True)
        elif id(o) in inputs:
            o = outs[i] = (Tensor._make(o._storage, o._offset, o._shape, o._strides, o._dtype)
                           if nd or type(ctx)._forward_cls._internal else _as_is_view(o))
        ctx._out_meta.append((o._shape, o._dtype, o.device))
        if nd or not (o._dtype.is_floating_point or o._dtype.is_complex):
            continue
        if id(o) in dirty and o._ag is not None and o._ag.base is not None:
            _rebase_dirty_view(ctx, o, next(k for k, p in enumerate(tensor_pos) if args[p] is o))
            continue
        o._grad_fn = ctx
        o._requires_grad = True
        if i or o._ag is not None:
            meta(o).output_nr = i
        fn_cls = type(ctx)._forward_cls
        if id(o._storage) in storages and id(o) not in dirty and not fn_cls._internal:  # an input as-is, or its view
            m = meta(o)
            m.custom_view = f"Output {i} of {fn_cls.__name__}"
            m.made_in = None  # a view made in forward (grad off) is the Function's output, not a no_grad view
    out_ids = {id(o): i for i, o in enumerate(outs) if isinstance(o, Tensor)}
    saved = []
    for t in ctx._to_save:
        if t is None:
            saved.append(None)
        elif id(t) in out_ids and id(t) not in dirty:
            saved.append(SavedTensor(t, is_output=True, output_nr=out_ids[id(t)]))
        else:
            saved.append(SavedTensor(t))
    ctx._saved = saved
    ctx._to_save = ()
    return outs[0] if single else tuple(outs)


def _as_is_view(t: Tensor) -> Tensor:
    """A new tensor over input `t`'s memory, a view of `t`'s base as PyTorch makes an input returned as-is (its
    `_base`, and the error when that base is later written in place: `record.regenerate_view`)."""
    o = Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)
    tm = t._ag
    base, chain = (tm.base, tm.chain) if tm is not None and tm.base is not None else (t, ())
    bm = base._ag
    o._ag = AutogradMeta(base, chain, bm.gen if bm is not None else 0)
    return o


_DIRTY_VIEW_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more "
    "than one Tensor. This is not supported by the current autograd engine. You should either make sure the input is "
    "not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting it "
    "into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change.")


def _rebase_dirty_view(ctx: BackwardCFunction, view: Tensor, slot: int) -> None:
    """A view the Function wrote in place (mark_dirty) rebases its base as an in-place op on a view does (NOTE
    [ In-place ops and views ] in ember.autograd.record): the base's history becomes a CopySlices around the
    Function's node, and the view replays its chain on it (PyTorch's AsStridedBackward0)."""
    base = view._ag.base
    cs = record.CopySlices(base, view, ctx, slot)
    record._rebase(base, cs, 0)
    meta(base).gen += 1
    record.regenerate_view(view)


class _DelayedError(Node):
    """The node of a once_differentiable backward's outputs under create_graph: differentiating
    them again raises."""

    __slots__ = ("msg",)

    def __init__(self, msg: str) -> None:
        super().__init__()
        self.msg = msg

    def apply(self, grads: list) -> list:
        raise RuntimeError(self.msg)


_DelayedError.__name__ = _DelayedError.__qualname__ = "Error"  # as PyTorch's node prints: grad_fn=<Error>

def once_differentiable(fn: Callable) -> Callable:
    """Decorate a Function's `backward` that is not itself differentiable (runs under no_grad)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _state.enabled
        _state.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _state.enabled = prev
        if not prev:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        err = _DelayedError("trying to differentiate twice a function that was marked with @once_differentiable")
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        res, edges = [], []
        for o in outs:
            if isinstance(o, Tensor) and (o._dtype.is_floating_point or o._dtype.is_complex):
                # As PyTorch, the error node leads to fresh leaves, not to the backward's inputs: gradients
                # asked of those inputs are unused (None), and only a backward through the outputs raises.
                leaf = Tensor._make(o._storage, o._offset, o._shape, o._strides, o._dtype)
                leaf._requires_grad = True
                edges.append(edge_of(leaf))
                o = Tensor._make(o._storage, o._offset, o._shape, o._strides, o._dtype)
                o._grad_fn = err
                o._requires_grad = True
            res.append(o)
        err.next_functions = tuple(edges)
        return res[0] if single else tuple(res)
    return wrapper


def cpp_node(fn: type, name: str) -> None:
    """Give `fn`'s backward node PyTorch's C++ node name: printed `<Name object at ...>`, without a module."""
    fn._backward_cls = type(name, (fn._backward_cls,), {
        "__module__": "builtins", "__qualname__": name, "_user_code": False, "__call__": Node._call,
        "__repr__": lambda self: f"<{type(self).__qualname__} object at {id(self):#x}>"})
