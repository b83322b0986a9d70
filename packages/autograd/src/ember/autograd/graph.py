"""The recorded graph: nodes, edges, saved tensors and the per-tensor autograd metadata.

NOTE [ Graph ownership ]
Ownership only points backwards in time, so plain reference counting frees a graph the moment
its last output dies: a tensor owns its `grad_fn`; a node owns its `next_functions` (the
producers of its inputs) and what its rule saved. Two references would point forwards and make
cycles, so they are weak or recreated instead: a leaf's `AccumulateGrad` node refers back to the
leaf through a weak reference (the leaf owns its node, not the other way round), and
a node that saves its own output keeps a grad_fn-less alias of it (`SavedTensor.is_output`),
re-attaching itself only when backward unpacks it.
"""

from __future__ import annotations

import itertools
import re
import sys
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable

import numpy as np

from ember.core import dispatch as _dispatch
from ember.core import dtypes as _dtypes
from ember.core import dtypes
from ember.core.creation import empty_strided
from ember.core.dispatch import Op
from ember.core.ops._util import ERRSTATE, IGNORE_ALL
from ember.core.ops.elementwise import add as _add
from ember.core.ops.memfmt import dense_strides
from ember.core.settings import contiguous_format
from ember.core.sparse import SparseTensor, add_sparse_
from ember.core.tensor import Tensor, contiguous_strides

from ember.autograd.grad_mode import _enabled
from ember.autograd import saved_hooks as _saved_hooks
from ember.autograd.saved_hooks import (allow_mutation_on_saved_tensors, disable_saved_tensors_hooks, save_on_cpu,
                                       saved_tensors_hooks)

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "RemovableHandle", "meta", "edge_of", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge", "get_gradient_edge", "increment_version",
           "register_multi_grad_hook", "allow_mutation_on_saved_tensors"]

_sequence = itertools.count()
_UINT64_MAX = 2**64 - 1  # PyTorch's sequence number of an AccumulateGrad

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
         "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
         "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
         "or if you need to access saved tensors after calling backward.")


class AutogradMeta:
    """What autograd keeps per tensor beyond the core slots (`Tensor._ag`), made on demand.

    Every view gets one, so only a view's own fields are slots; the rest are class-level
    defaults that an instance overrides in its `__dict__` when it needs them.
    """

    __slots__ = ("base", "chain", "view_gen", "__dict__")

    gen = 0               # bumped when this (base) tensor's history is rebased in place
    output_nr = 0
    hooks = None          # OrderedDict of a leaf's tensor hooks
    post_hooks = None     # OrderedDict of post-accumulate-grad hooks
    retains_grad = False
    acc = None            # the leaf's AccumulateGrad node
    custom_view = None    # "Output i of Fn": a custom Function returned an input (or a view of one) as this tensor
    made_in = None        # "no_grad" / "inference": a view made in that mode (PyTorch's CreationMeta), no grad edge
    multi_view = False    # an output of a multi-view op (unbind, split) or a view of one: no in-place writes
    grad_views = None     # weak refs to the views made of this base in grad mode while it required no grad
    #                       (NOTE [ Waking views ])
    attr_version = None   # the storage's version when a made_in or multi-view view was made (`refuse_stale_view`)

    def __init__(self, base: Tensor | None = None, chain: tuple = (), view_gen: int = 0) -> None:
        self.base = base          # the tensor this is a view of (never itself a view)
        self.chain = chain        # ((op, args, kwargs), ...) that rebuild this view from `base`
        self.view_gen = view_gen  # base's `gen` when this view's grad_fn was made


def meta(t: Tensor) -> AutogradMeta:
    m = t._ag
    if m is None:
        m = t._ag = AutogradMeta()
    return m


def _dict_ref(d: dict) -> Callable[[], dict | None]:
    """A weak reference to a hooks dict where the dict takes one (OrderedDict does), else a strong one."""
    try:
        return weakref.ref(d)
    except TypeError:
        return lambda: d


class RemovableHandle:
    """What every `register_*_hook` returns (tensor, node, module and optimizer hooks: one class, as PyTorch's
    `torch.utils.hooks.RemovableHandle`): `.remove()` takes the hook out of `hooks_dict` and of `extra_dict`
    (a dict or a list of dicts) again. Also a context manager."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict: dict | list | None = None) -> None:
        self.id = next(RemovableHandle._ids)
        self.hooks_dict_ref = _dict_ref(hooks_dict)
        extra = [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict or ())
        self.extra_dict_ref = tuple(_dict_ref(d) for d in extra)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None:
                hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class _Hooks(OrderedDict):
    """An OrderedDict that a handle can reference weakly (printed as one, as `Tensor._backward_hooks` is)."""

    def __repr__(self) -> str:
        return repr(OrderedDict(self))


def add_hook(hooks: _Hooks | None, fn: Callable) -> tuple[_Hooks, RemovableHandle]:
    hooks = hooks if hooks is not None else _Hooks()
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return hooks, handle


class Node:
    """A backward function: gradients w.r.t. its outputs in, w.r.t. its inputs out.

    `next_functions` holds one `(node, output_nr)` per differentiable input, `(None, 0)` where an
    input does not require grad. What most nodes never set lives in class-level defaults, so a
    new node costs two attribute writes (one node is made per recorded op); a node that gets
    hooks or an anomaly trace keeps them in its instance `__dict__`.
    """

    __slots__ = ("next_functions", "_seq", "__dict__", "__weakref__")

    _pre_hooks = None
    _post_hooks = None
    _tensor_hooks = None  # {output_nr: _Hooks} registered through Tensor.register_hook
    _retained = None      # {output_nr: weakref to the tensor that retains its grad}
    _trace = None         # the forward stack, under detect_anomaly
    _hooked = False       # True once any of the five above is set: the engine reads one flag per node
    _n_out = 1            # how many outputs (gradients in)
    _metadata = None
    _user_code = False    # whether apply runs the user's Python (a custom Function's backward, a leaf's hooks)

    def __init__(self) -> None:
        self.next_functions: tuple = ()
        self._seq = next(_sequence)

    def name(self) -> str:
        n = type(self).__name__  # PyTorch's C++ nodes keep their namespace in name() (a composite's CopySlices too)
        return f"torch::autograd::{n}" if n in ("NotImplemented", "CopySlices", "CopyBackwards") else n

    def apply(self, grads: list) -> list:
        """Gradients w.r.t. the inputs (one per `next_functions` entry, None for none)."""
        raise NotImplementedError

    def release(self) -> None:
        """Free what was saved for backward (after a backward without retain_graph)."""

    def __init_subclass__(cls, **kwargs) -> None:
        """Each node class is callable (`_call`), as PyTorch's C++ nodes, but a Python-defined one (a custom
        Function's, `_python_defined`): PyTorch's have no `__call__`, so `callable(node)` is False for them."""
        super().__init_subclass__(**kwargs)
        if Node in cls.__bases__ and not cls.__dict__.get("_python_defined", False):
            cls.__call__ = Node._call

    def _call(self, *grads):
        """Run this node on one gradient per output, as PyTorch's C++ nodes are called: one gradient comes back
        alone, several (or none) as a tuple."""
        if len(grads) != self._n_out:
            raise TypeError(f"expected {self._n_out} arguments, got {len(grads)} instead")
        out = self.apply(list(grads))
        return out[0] if len(out) == 1 else tuple(out)

    @property
    def metadata(self) -> dict:
        """A dict for the user's own annotations of this node."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """`fn(grad_inputs, grad_outputs)` after this node runs; may return new grad_inputs."""
        self._post_hooks, h = add_hook(self._post_hooks, fn)
        self._hooked = True
        return h

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """`fn(grad_outputs)` before this node runs; may return new grad_outputs."""
        self._pre_hooks, h = add_hook(self._pre_hooks, fn)
        self._hooked = True
        return h

    def _sequence_nr(self) -> int:
        return self._seq

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: runs the leaf's hooks and adds into `.grad`.

    The leaf owns its AccumulateGrad (one per leaf, made once); the node refers back to the leaf
    weakly, so the pair is no reference cycle (a leaf nobody holds has no `.grad` to fill).
    """

    __module__ = "builtins"  # PyTorch's nodes are C++ types: `<class 'AccumulateGrad'>`

    __slots__ = ("_variable",)
    _user_code = True

    def __init__(self, variable: Tensor) -> None:
        super().__init__()
        # PyTorch's priority: a leaf's sink runs as soon as its gradient is complete, before every
        # other ready node, so `.grad` and post-accumulate hooks (DDP's bucket launches) come as
        # early in backward as they can (the engine takes ready sinks first in, first out)
        self._seq = _UINT64_MAX
        self._variable = weakref.ref(variable)

    @property
    def variable(self) -> Tensor | None:
        return self._variable()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch's C++ node keeps its namespace in name()

    def apply(self, grads: list) -> list:
        t = self._variable()
        g = grads[0]
        if t is not None and g is not None:
            m = t._ag
            if m is not None and m.hooks:
                g = _leaf_hooks(t, g)
            # nothing but `grads` and this frame refers to `g` (the engine keeps no other reference):
            # `.grad` may take it as it is, as PyTorch's AccumulateGrad steals its incoming buffer
            sole = sys.getrefcount(g) <= (_SOLE_REFS if g is grads[0] else _SOLE_REFS - 1)
            _accumulate(t, g, sole)
        return []


def _probe_refs(grads: list) -> int:
    """`sys.getrefcount` of `grads[0]` read as AccumulateGrad.apply reads it, when nothing else holds it."""
    g = grads[0]
    return sys.getrefcount(g)


def _probe_storage_refs() -> int:
    """`sys.getrefcount` of a storage that one tensor alone holds, read as `_stealable` reads it."""
    g = Tensor._wrap(np.zeros(1, np.float32))
    st = g._storage
    return sys.getrefcount(st)


def _probe_base_refs() -> int:
    """`sys.getrefcount` of a view's base that only the view's record holds, read as `_stealable` reads it."""
    m = AutogradMeta(Tensor._wrap(np.zeros(1, np.float32)))
    b = m.base
    return sys.getrefcount(b)


_SOLE_REFS = _probe_refs([object()])
_SOLE_STORAGE_REFS = _probe_storage_refs()
_SOLE_BASE_REFS = _probe_base_refs()


def accumulate_into(t: Tensor, g: Tensor | None) -> None:
    """AccumulateGrad: run the leaf's hooks, then add `g` into `t.grad` (creating it if None)."""
    if g is not None:
        _accumulate(t, _leaf_hooks(t, g))


def _accumulate(t: Tensor, g: Tensor, sole: bool = False) -> None:
    """Add `g` into `t.grad` (in place unless recording a graph), then run post-accumulate hooks.
    `sole`: nothing else refers to the tensor `g`, so a new `.grad` may be `g` itself (see _stealable).
    NOTE [ Gradient layout contract ]: a new `.grad` has the leaf's strides when the leaf is dense, else is
    row-major (PyTorch's AccumulateGrad), so a channels_last or transposed parameter gets a gradient laid out
    as itself; a stolen `g` is taken as it is when it already is (no copy); a later accumulation keeps
    `.grad`'s layout (in place) or takes `.grad + g`'s (under create_graph)."""
    m = t._ag
    old = t._grad
    if old is None:
        if _enabled.get():
            t._grad = _recorded_copy(g, t)  # never `g` itself, which a later backward would update
        elif sole and _stealable(g, t):
            g._ag = None  # a sole view of an otherwise unreferenced base: nothing else aliases its memory
            t._grad = g
        else:
            t._grad = _fresh(g, t)
    elif _enabled.get():
        t._grad = old + g if type(old) is not SparseTensor else g + old
    elif (_dispatch._top_next is _REDISPATCH and type(old) is Tensor and type(g) is Tensor and old._dtype is g._dtype
          and old._dtype in _NUMPY_ADD and old._shape == g._shape and old._storage is not g._storage
          and old._storage.device.type == "cpu" and g._storage.device.type == "cpu" and 0 not in old._strides):
        # old.add_(g) as the CPU kernel runs it, without the dispatcher: its one hook is autograd's, which passes
        # the call through outside grad mode, and nothing here needs its overlap checks (two storages, no
        # zero stride). Another hook (profiler, autocast, a mode) or a subclass takes the dispatcher's path.
        x = old._np()
        token = ERRSTATE.set(IGNORE_ALL)
        try:
            np.add(x, g._np(), out=x)
        finally:
            ERRSTATE.reset(token)
        old._storage.version += 1
    elif type(old) is SparseTensor or type(g) is SparseTensor:
        _accumulate_sparse(t, old, g)
    else:
        _add(old, g, out=old)  # old.add_(g)
    if m is not None and m.post_hooks:
        for h in tuple(m.post_hooks.values()):
            h(t)


_REDISPATCH = Op.redispatch  # the dispatcher's `call_next` below its topmost hook when that hook is the only one
_NUMPY_ADD = frozenset((_dtypes.float32, _dtypes.float64))


def _obeys_layout(g: Tensor, t: Tensor) -> bool:
    """Whether `g` keeps the gradient layout contract for leaf `t`: `t`'s strides when `t` is dense (a size-1
    dim's stride aside, so long as it is not 0), else row-major."""
    ts = t._strides
    shape = t._shape
    if g._strides == ts and ts == contiguous_strides(shape):
        return True
    if dense_strides(shape, ts):
        gs = g._strides
        for d, n in enumerate(shape):
            if (gs[d] != ts[d]) if n != 1 else gs[d] == 0:
                return False
        return True
    return g.is_contiguous()


def _accumulate_sparse(t: Tensor, old: Tensor, g: Tensor) -> None:
    """`.grad` += `g` when either is sparse, as PyTorch's AccumulateGrad: sparse + sparse merges in place (the
    same `.grad` object, `SparseTensor.add_`), a dense gradient into a sparse `.grad` makes it dense, and a
    sparse one adds into a dense `.grad` in place."""
    if type(old) is SparseTensor:
        if type(g) is SparseTensor:
            old.add_(g)
        else:
            t._grad = g + old
    else:
        add_sparse_(old, g)


def row_major_copy(g: Tensor) -> Tensor:
    """A row-major copy of `g`; a sparse gradient's own clone (which, as PyTorch's, takes no memory format)."""
    return g.clone(memory_format=contiguous_format) if g._dense_like else g.clone()


def _laid_out_copy(g: Tensor, t: Tensor) -> Tensor:
    """A copy of `g` with the layout the contract gives leaf `t`: `t`'s exact strides when `t` is dense and not
    plainly row-major, else row-major; recorded when `g` has a history (under create_graph)."""
    ts = t._strides
    if ts == contiguous_strides(t._shape) or not dense_strides(t._shape, ts) or not g._dense_like:
        return row_major_copy(g)
    out = empty_strided(t._shape, ts, dtype=g._dtype, device=g.device)
    return out.copy_(g)


def _recorded_copy(g: Tensor, t: Tensor) -> Tensor:
    """A new `.grad` under create_graph, as PyTorch's clone_obey_contract records it: copied into an empty tensor
    with the strides of a dense leaf (the node `CopyBackwards`), else cloned row-major (`CloneBackward0`)."""
    if g._dense_like and dense_strides(t._shape, t._strides):
        return empty_strided(t._shape, t._strides, dtype=g._dtype, device=g.device).copy_(g)
    return row_major_copy(g)


def _fresh(g: Tensor, t: Tensor | None = None) -> Tensor:
    """A gradient `.grad` may own and later update in place: a copy, because the engine hands one
    gradient object to several inputs (`x + y`) and may pass the user's own tensor; detached
    first when it carries a history (under create_graph). Laid out for leaf `t` by the contract
    (NOTE [ Gradient layout contract ]); row-major for a non-leaf (a retained or `inputs=` gradient)."""
    if g._requires_grad:
        g = g.detach()
    return row_major_copy(g) if t is None else _laid_out_copy(g, t)


def _stealable(g: Tensor, t: Tensor) -> bool:
    """Whether `.grad` of `t` may be the gradient `g` itself rather than a copy: `g` is a plain
    tensor outside any graph, laid out as the contract asks (NOTE [ Gradient layout contract ]), with
    `t`'s shape, dtype and device, and it alone holds its storage, which it covers exactly (no other
    tensor over the memory), so updating `.grad` in place later changes nothing else. The caller has
    checked that no one else refers to `g`. `g` may be a view whose base nothing but `g` refers to
    (the contiguous weight gradient that `w.t()`'s backward hands back from linear's GEMM, as
    PyTorch's AccumulateGrad steals it); the caller then drops its view record."""
    if type(g) is not Tensor or g._requires_grad or g._shape != t._shape or g._dtype is not t._dtype:
        return False
    st = g._storage
    m = g._ag
    if m is not None:
        b = m.base
        if b is None or type(b) is not Tensor or b._ag is not None or b._requires_grad \
                or sys.getrefcount(b) > _SOLE_BASE_REFS or b._storage is not st \
                or sys.getrefcount(st) > _SOLE_STORAGE_REFS + 1 \
                or st.device is not t._storage.device and st.device != t._storage.device:  # `is` first: no __eq__
            return False
        return _covers(g, st) and _obeys_layout(g, t)
    if sys.getrefcount(st) > _SOLE_STORAGE_REFS or (st.device is not t._storage.device
                                                     and st.device != t._storage.device):
        return False
    c = g._npc  # on the CPU: `g` views its storage's whole C-contiguous array exactly
    if c is not None and c[1] is st._raw:
        return t._strides == g._strides or _obeys_layout(g, t)
    return _covers(g, st) and _obeys_layout(g, t)


def _covers(g: Tensor, st) -> bool:
    """`g` is dense from the start of `st` and covers all of it: no other element lies in the storage."""
    n = g._dtype.itemsize
    for s in g._shape:  # g.numel(), inlined
        n *= s
    return g._offset == 0 and st.nbytes == n and dense_strides(g._shape, g._strides)


def _leaf_hooks(t: Tensor, g: Tensor) -> Tensor:
    m = t._ag
    if m is not None and m.hooks:
        for h in tuple(m.hooks.values()):
            r = h(g)
            if r is not None:
                g = checked_hook_result(h, g, r)
    return g


def checked_hook_result(hook, g: Tensor, r) -> Tensor:
    """A tensor hook's replacement gradient, refused in PyTorch's words when it is no tensor or changes the
    gradient's type, device or size."""
    if not isinstance(r, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
    name = getattr(hook, "__name__", "<unknown>")
    if r._dtype is not g._dtype or r._storage.device.type != g._storage.device.type:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {g.type()} got {r.type()})")
    if r._shape != g._shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return r


def acc_node(t: Tensor) -> AccumulateGrad:
    """The AccumulateGrad node of leaf `t` (the same object for every op that uses `t`)."""
    m = meta(t)
    node = m.acc
    if node is None:
        node = m.acc = AccumulateGrad(t)
    return node


_STALE_VIEW = "A view was created in {} mode and its base or another view of its base has been modified inplace {}. "
_STALE_ADVICE = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                 "moving both the view and the inplace either both inside the {} block (if you don't want the inplace "
                 "to be tracked) or both outside (if you want the inplace to be tracked).")
_STALE_VIEWS = {
    "no_grad": _STALE_VIEW.format("no_grad", "with grad mode enabled") + _STALE_ADVICE.format("no_grad"),
    "inference": _STALE_VIEW.format("inference", "in normal mode") + _STALE_ADVICE.format("inference_mode"),
    None: _STALE_VIEW.format("no_grad", "with grad mode enabled") + (
        "This view is the output of a function that returns multiple views. Such functions do not allow the output "
        "views to be modified inplace. You should replace the inplace operation by an out-of-place one."),
}


def refuse_stale_view(t: Tensor) -> None:
    """PyTorch's refusal to read the grad_fn of a view without one, made in no_grad/inference mode or by a
    multi-view op (its CreationMeta), once its base requires grad and their storage was written since."""
    m = t._ag
    if m is not None and m.attr_version is not None and m.base._requires_grad \
            and t._storage.version != m.attr_version:
        raise RuntimeError(_STALE_VIEWS[m.made_in])


def edge_of(t: Tensor) -> tuple:
    """`(node, output_nr)` through which gradients reach `t`, or `(None, 0)`."""
    fn = t._grad_fn
    m = t._ag
    if fn is None:
        if m is not None and m.attr_version is not None:
            refuse_stale_view(t)
        if t._requires_grad and (m is None or m.made_in is None):  # a view made in no_grad has no edge
            if m is not None and m.base is not None and m.view_gen != meta(m.base).gen:  # woken: NOTE [ Waking views ]
                from ember.autograd.record import regenerate_view

                regenerate_view(t)
                return t._grad_fn, m.output_nr
            return acc_node(t), 0
        return None, 0
    if m is None:
        return fn, 0
    if m.base is not None and m.view_gen != (m.base._ag.gen if m.base._ag is not None else 0):
        from ember.autograd.record import regenerate_view

        regenerate_view(t)
        fn = t._grad_fn
    return fn, m.output_nr


def type_name(t: Tensor) -> str:
    """`[torch.FloatTensor [3, 4]]`, as PyTorch names a tensor in autograd errors."""
    return f"[{t.type()} {list(t._shape)}]"


_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")  # "ExpBackward0" -> "Exp", as PyTorch's in-place error


class SavedTensor:
    """A tensor saved for backward, with its storage version at save time."""

    __slots__ = ("tensor", "version", "producer", "is_output", "output_nr", "__dict__")

    view_ref = None  # weakref to the CopySlices of an in-place op on a view (see unpack); rarely set

    unpack_hook = None  # set when saved under `saved_tensors_hooks`: `tensor` then holds what pack_hook gave
    leaf = None         # under hooks, a weak reference to a saved leaf that requires grad (double backward)

    def __init__(self, t: Tensor, is_output: bool = False, output_nr: int = 0) -> None:
        self.is_output = is_output
        self.output_nr = output_nr
        if is_output:
            self.producer = None
            a = Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)
            if t._conj:  # (inline: this runs for each saved output) a conjugate view's alias keeps the bit
                a._conj = True
            if t._neg:
                a._neg = True
            t = a
        else:
            fn = t._grad_fn
            self.producer = (fn, t._ag.output_nr if t._ag is not None else 0) if fn is not None else None
        self.version = t._storage.version
        hooks = _saved_hooks.current_hooks() if _saved_hooks.active else None
        if hooks is not None:
            if not is_output and self.producer is None and t._requires_grad:
                self.leaf = weakref.ref(t)
            self.unpack_hook = hooks[1]
            self.tensor = _Packed(hooks[0](t))
            return
        self.tensor = t

    def _modified_message(self, t: Tensor, node: Node | None) -> str:
        """PyTorch's words: a saved output names its node, a saved input its tensor's grad_fn now (after the
        in-place op), each without the `Backward0` suffix ("output 0 of Exp")."""
        if self.is_output:
            fn, nr = node, self.output_nr
        elif t._grad_fn is not None:  # a view of a base modified since names its regenerated node (AsStrided)
            fn, nr = edge_of(t)
        else:
            fn, nr = None, 0
        which = f", which is output {nr} of {_BACKWARD_SUFFIX.sub('', fn.name())}," if fn is not None else ""
        return (f"one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"{type_name(t)}{which} is at version {t._storage.version}; expected version {self.version} "
                "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                f"gradient, with {dtypes._repr_namespace}.autograd.set_detect_anomaly(True, check_nan=False).")

    def unpack(self, node: Node | None = None) -> Tensor:
        t = self.tensor
        if t is None:
            raise RuntimeError(FREED)
        if self.unpack_hook is not None:
            return self._unpack_hooked(t.value, node)
        if t._storage.version != self.version:
            raise RuntimeError(self._modified_message(t, node))
        if self.is_output and node is not None:
            if _enabled.get():
                cs = self.view_ref() if self.view_ref is not None else None
                if cs is not None:
                    return _view_of_copyslices(t, cs)
                a = Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)
                if t._conj:
                    a._conj = True
                if t._neg:
                    a._neg = True
                t = a
                t._grad_fn = node
                t._requires_grad = True
                if self.output_nr:
                    meta(t).output_nr = self.output_nr
        return t

    def _unpack_hooked(self, packed, node: Node | None) -> Tensor:
        # no version check: what the hooks hand back is not the tensor that was saved (PyTorch checks none either)
        t = self.unpack_hook(packed)
        if not isinstance(t, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        if not _enabled.get():
            return t
        if self.is_output and node is not None:
            fn, nr = node, self.output_nr
        elif self.producer is not None:
            fn, nr = self.producer
        else:
            leaf = self.leaf() if self.leaf is not None else None
            return leaf if leaf is not None else t
        a = Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)
        if t._conj:
            a._conj = True
        if t._neg:
            a._neg = True
        t = a
        t._grad_fn = fn
        t._requires_grad = True
        if nr:
            meta(t).output_nr = nr
        return t

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        """PyTorch's `_raw_saved_<name>.register_hooks`: pack the saved tensor now, unpack it on use."""
        if self.tensor is None:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
                               "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph a second time or if you "
                               "need to access saved variables after calling backward.")
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
                               "one pair of hooks is allowed at a time.")
        t = self.tensor
        if not self.is_output and self.producer is None and t._requires_grad:
            self.leaf = weakref.ref(t)
        self.unpack_hook = unpack_hook
        self.tensor = _Packed(pack_hook(t))

    def release(self) -> None:
        self.tensor = None


class _Packed:
    """What a pack hook returned (None included), told apart from a released SavedTensor's None."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value


GradientEdge = namedtuple("GradientEdge", ["node", "output_nr"])
GradientEdge.__doc__ = "The edge through which gradients reach a tensor: its `grad_fn` (or leaf accumulator), output."


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """`GradientEdge(node, output_nr)` of a tensor that requires grad."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    return GradientEdge(*edge_of(tensor))


def increment_version(tensor) -> None:
    """Bump the version counter of a tensor (or of each in an iterable), as an in-place write would: backward
    then refuses the tensors saved before it."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._storage.version += 1


def _view_of_copyslices(t: Tensor, cs) -> Tensor:
    """The output of an in-place op on a view, for double backward: the view replayed (as_strided)
    on the base, whose history is the CopySlices node (the op's own node is inside it)."""
    from ember.core.ops.shape import as_strided

    shape, strides, offset = cs.base_geom
    base = Tensor._make(t._storage, offset, shape, strides, t._dtype)
    base._grad_fn = cs
    base._requires_grad = True
    vshape, vstrides, voffset, vconj, vneg = cs.view_geom
    v = as_strided(base, vshape, vstrides, voffset)
    if vneg:
        from ember.core.ops.complex import _neg_view

        return _neg_view(v)
    return v.conj() if vconj else v


class _MultiHandle:
    """The handle of `register_multi_grad_hook`: removes each tensor hook it registered."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def register_multi_grad_hook(tensors, fn: Callable, *, mode: str = "all") -> _MultiHandle:
    """`fn(grads)` once per backward when the gradients of all `tensors` it reaches are computed (None for the
    others), or (`mode="any"`) `fn(grad)` with the first one computed, as PyTorch's."""
    from ember.autograd import engine

    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        ran: set = set()

        def first(grad):
            task = engine.current_task_id()
            if task not in ran:
                ran.add(task)
                fn(grad)
        return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))
    nodes = [edge_of(t)[0] if t.requires_grad else None for t in tensors]
    count: dict = {}
    buffer: dict = {}
    expected: dict = {}

    def inner(idx: int) -> Callable:
        def hook(grad):
            task = engine.current_task_id()
            if task not in count:
                count[task] = 0
                buffer[task] = [None] * len(tensors)
                expected[task] = sum(engine.will_execute(n) for n in nodes if n is not None)
            buffer[task][idx] = grad
            count[task] += 1
            if count[task] == expected[task]:
                grads = buffer.pop(task)
                del count[task], expected[task]
                fn(grads)
        return hook

    return _MultiHandle(tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors) if t.requires_grad))
