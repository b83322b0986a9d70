"""Recording the graph: the one dispatch hook, in-place ops, views and CopySlices.

NOTE [ In-place ops and views ]
An op writes in place when it is called with `out=` being its first argument (`x.add_(y)` is
`add(x, y, out=x)`) or when its `mutates` flag names arguments (`copy_`, `fill_`: the first). The
written tensor's history is rebased onto the op's node: its old `grad_fn` becomes the node's
input edge (so `x.mul_(2)` chains onto whatever made `x`). A rule that needs the old value of
the written tensor gets a clone taken before the kernel runs.

Every view (an op declared `view=True`) remembers its `base` (the root tensor that owns the
memory, never a view itself) and the chain of view ops that rebuild it from the base; this is
tracked even when nothing requires grad, because `buf[0] = w` must make `buf` require grad.
An in-place op on a view rebases the *base*: its new node is a `CopySlices` that sends the
base's gradient through unchanged outside the view and through the op's node inside it. The
base's `gen` counter is bumped, and every view whose `view_gen` lags behind regenerates its
`grad_fn` by replaying its chain on the base (`regenerate_view`), as PyTorch's views do.

NOTE [ Waking views ]
A view made in grad mode of a base that requires no grad records nothing, and ops read its `_requires_grad` slot
only. When an in-place op first makes that base require grad (`buf.view(2, 4)[0] = w`, `b.copy_(w)`), PyTorch's
other views of it require grad too and replay their chain on the base's new history. ember keeps no list of a base's
views but those it had made before it first required grad: weak references to them (`grad_views`, the dead ones
dropped now and then), which `_wake_views` walks once, when an in-place op first makes it require grad. A woken
view gets its node when used (`edge_of`) or asked for its grad_fn; until then it is a leaf to an in-place check, as
PyTorch's (whose `is_leaf` check reads the view's node without regenerating it).

A multi-view op (`unbind`, `split`: `op.pieces`) makes all its views in one call, and one node for them all;
each view's chain ends in its own single-view step (`select`, `narrow`), so it is rebuilt alone. PyTorch
refuses both an in-place write into such a view and, for one that requires grad, a replay after its base
was written (`_MULTI_VIEW_NODES`).

NOTE [ One node computed outside dispatch ]
PyTorch records some composites as one node (`F.linear`: AddmmBackward0 over the weight's TBackward0), where
ember's composite dispatches several ops. Where autograd's hook is the only one that would see those ops
(`dispatch.untracked`: the other hooks pass float32/float64 calls down whether or not they require grad), the
composite may compute its result at once and hand it to `computed`, which records it as a call of the op PyTorch's
node is named for (`derivatives.COMPOSITES`, or a primitive's entry in `TABLE`): the same edges, saved tensors and
rules as a dispatched op's, one node instead of several.
"""

from __future__ import annotations

import contextlib
import traceback
import weakref

from ember.core import storage as _storage
from ember.core.dispatch import SAVES_IN_ARGUMENT_ORDER as _ONE_NODE
from ember.core.dispatch import Op, node_name, register_dispatch_hook, remove_dispatch_hook
from ember.core.ops import elementwise, tensor_utils
from ember.core.tensor import Tensor

from ember.autograd import anomaly
from ember.autograd.derivatives import COMPOSITES, TABLE
from ember.autograd.derivatives._entry import _NUMBERS, _OPTIONAL_TENSORS, _WRAPPED_NUMBERS, RuleNode
from ember.autograd.graph import AutogradMeta, Node, SavedTensor, _sequence, edge_of, meta
from ember.autograd.grad_mode import _enabled, _inference, _state

__all__ = ["dispatch_hook", "regenerate_view", "check_inplace", "is_inference", "computed", "no_forward_ad",
           "refusing_forward_ad"]

_new = object.__new__
_weak = weakref.ref
_SEQ = (list, tuple)  # for isinstance: an inline `list | tuple` builds a Union object per call


def dispatch_hook(op, args: tuple, kwargs: dict, call_next):
    """Autograd's dispatch hook: the fast path returns at once when nothing requires grad."""
    if _enabled.get():
        for a in args:
            if isinstance(a, Tensor):
                if a._requires_grad:
                    return _recorder(op, args, kwargs, call_next)
            elif isinstance(a, _SEQ) and a and type(a[0]) is not int:  # not a shape or dims
                for b in a:
                    if isinstance(b, Tensor) and b._requires_grad:
                        return _recorder(op, args, kwargs, call_next)
        if kwargs:
            for v in kwargs.values():
                if isinstance(v, Tensor) and v._requires_grad:
                    return _recorder(op, args, kwargs, call_next)
    elif _inference.get():
        return _inference_result(op, args, kwargs, call_next(op, args, kwargs))
    elif _level and _carries_tangent(args, kwargs) and _records_in_no_grad(op, args, kwargs):
        return _record_tangents(op, args, kwargs, call_next)  # grad mode stays off: views are no_grad's views
    if op.tracked_view and op.differentiable and not _inference.get():  # view(dtype): no view to autograd (PyTorch)
        r = call_next(op, args, kwargs)
        if args[0]._is_inference:  # a view of an inference tensor is one, untracked (no `_base`), as PyTorch's
            _mark_inference(r)
        else:
            _track_view(r, op, args, kwargs)
        return r
    # outside inference mode here: no write into an inference tensor (inlined, no call: every op passes)
    if op.mutates:
        o = args[op.mutates[0]]
        if o._is_inference:
            _refuse_inference_write(op, args, kwargs, call_next)
        if o._ag is not None and o._ag.made_in is not None:
            _check_made_in(o)
    elif kwargs and "out" in kwargs:  # `x.add_(y)` is add(x, y, out=x)
        o = kwargs["out"]
        if o is not None and o.__class__ not in _SEQ:
            if o._is_inference:
                _refuse_inference_write(op, args, kwargs, call_next)
            if o._ag is not None and o._ag.made_in is not None:
                _check_made_in(o)
    return call_next(op, args, kwargs)


# NOTE [ Dual tensors on the tape ] (ember.autograd.forward_ad): the serial of the open forward-AD level (0: none).
# A tensor carrying a tangent of it (a dual, or what an op made of one) has `_dual` set to the serial; while a level is
# open, ops record through `_record_tangents`, and an op on such a tensor records in no_grad too (PyTorch's forward
# AD does not depend on grad mode; inference mode drops tangents, as PyTorch's). -1 inside a custom Function's `jvp`,
# which PyTorch runs with forward grad off: no tensor carries a tangent then
_level = 0
Tensor._dual = 0  # the default of every tensor; a dual and its results set it on the instance


def set_forward_level(serial: int) -> None:
    """Open (a new serial) or close (0) the forward-AD level: while one is open, autograd's hook sees every call (no
    `dispatch.untracked` shortcut of a composite, which would drop a dual's tangent) and ops mark their results."""
    global _level, _recorder
    from ember.core import dispatch

    _level = serial
    _recorder = _record_tangents if serial else _record
    dispatch_hook.ignores_untracked = not serial
    dispatch._rebuild()


def _has_tangent(t: Tensor) -> bool:
    """Whether `t` carries a tangent of the open level: marked, or a view of a base marked (written through a view)."""
    if t._dual == _level:
        return True
    m = t._ag
    return m is not None and m.base is not None and m.base._dual == _level


def _carries_tangent(args: tuple, kwargs: dict) -> bool:
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, Tensor):
            if _has_tangent(a):
                return True
        elif isinstance(a, _SEQ):
            for b in a:
                if isinstance(b, Tensor) and _has_tangent(b):
                    return True
    return False


def _records_in_no_grad(op, args: tuple, kwargs: dict) -> bool:
    """Whether an op on a tensor carrying a tangent records in no_grad: not a write into a leaf that requires grad (a
    dual itself, a parameter: `unpack_dual` refuses a written dual) or a view of one, nor into an out= other than its
    input."""
    target = args[op.mutates[0]] if op.mutates else kwargs.get("out") if kwargs else None
    if target is None:
        return True
    if not isinstance(target, Tensor) or (target is not args[0] and not op.mutates):
        return False
    m = target._ag
    if m is not None and m.base is not None:
        target = m.base
    return not (target._grad_fn is None and target._requires_grad)


# the ops PyTorch 2.13 has no forward derivative for, by ember's name: ATen's name its refusal gives
_NO_FORWARD_AD = {"grid_sampler": lambda args: f"grid_sampler_{args[0].ndim - 2}d"}


def no_forward_ad(aten: str) -> NotImplementedError:
    """PyTorch's refusal of forward AD through an op that has no forward derivative."""
    return NotImplementedError(
        f"Trying to use forward AD with {aten} that does not support it because it has not been implemented "
        "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-"
        "request.yml so that we can prioritize its implementation or submit a PR adding the implementation to "
        "derivatives.yaml")


def _reaches(t: Tensor, leaves: set, nodes: set) -> bool:
    """Whether `t` is one of the tensors in `leaves` (ids) or its recorded graph reaches one: an AccumulateGrad of
    one, or one of their own nodes (`nodes`, ids: a tracked leaf may be a view of the caller's tensor)."""
    from ember.autograd.graph import AccumulateGrad

    if id(t) in leaves:
        return True
    stack, seen = [t._grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if id(node) in nodes or isinstance(node, AccumulateGrad) and id(node.variable) in leaves:
            return True
        stack.extend(n for n, _ in node.next_functions)
    return False


@contextlib.contextmanager
def refusing_forward_ad(tracked: list):
    """While torch.func's jvp/jacfwd runs the function: refuse the ops PyTorch has no forward derivative for, on a
    tensor that carries the transform's tangent, one computed from its `tracked` inputs (ember's jvp is a double
    vjp, which would compute one); a closed-over parameter that requires grad carries none."""
    leaves = {id(x) for x in tracked}
    nodes = {id(x._grad_fn) for x in tracked if x._grad_fn is not None}

    def hook(op, args, kwargs, call_next):
        aten = _NO_FORWARD_AD.get(op.name)
        if aten is not None and any(isinstance(a, Tensor) and a._requires_grad and _reaches(a, leaves, nodes)
                                    for a in args):
            raise no_forward_ad(aten(args))
        return call_next(op, args, kwargs)

    register_dispatch_hook(hook)
    try:
        yield
    finally:
        remove_dispatch_hook(hook)


def _record_tangents(op, args: tuple, kwargs: dict, call_next):
    """`_record` while a forward-AD level is open: what an op makes of a tensor carrying a tangent carries one (a
    write through a view, its base too)."""
    if (aten := _NO_FORWARD_AD.get(op.name)) is not None and _carries_tangent(args, kwargs):
        raise no_forward_ad(aten(args))
    r = _record(op, args, kwargs, call_next)
    if _carries_tangent(args, kwargs):
        target = args[op.mutates[0]] if op.mutates else kwargs.get("out") if kwargs else None
        if isinstance(target, Tensor):
            target._dual = _level
            m = target._ag
            if m is not None and m.base is not None:
                m.base._dual = _level
        for o in (r,) if isinstance(r, Tensor) else r if isinstance(r, _SEQ) else ():
            if isinstance(o, Tensor) and o._requires_grad:
                o._dual = _level
    return r


def _refuse_inference_write(op, args: tuple, kwargs: dict, call_next) -> None:
    """An in-place op on an inference tensor outside inference mode: PyTorch's kernel writes, and its version bump
    then refuses (a program that catches the error sees the new values), so the op runs before the error."""
    token = _enabled.set(False)
    try:
        call_next(op, args, kwargs)
    finally:
        _enabled.reset(token)
    raise RuntimeError(_INFERENCE_INPLACE)


def _check_made_in(t: Tensor) -> None:
    """PyTorch's refusal of an in-place write with grad mode on into a view made in no_grad (or inference mode) of a
    tensor that requires grad now (here nothing else does: the base's flag decides, as PyTorch's view's)."""
    if _enabled.get() and t._ag.base._requires_grad:
        raise RuntimeError(_MADE_IN_INPLACE[t._ag.made_in])


# a fill of a new tensor neither records (nothing requires grad) nor writes an inference tensor (`Tensor._make`
# marks one made in inference mode): factories may skip it (`dispatch.bare`)
dispatch_hook.ignores_fresh = True
# a call of an op that is no view and writes nothing, none of whose tensors requires grad (or any, with grad mode off),
# only runs its kernel here: a composite may compute such a call without dispatching (`dispatch.untracked`)
dispatch_hook.ignores_untracked = True

_INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
                      "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                      "more details.")
_MADE_IN_INPLACE = {
    mode: (f"A view was created in {mode} mode and is being modified inplace with grad mode enabled. Given that "
           "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the "
           f"view and the inplace either both inside the {block} block (if you don't want the inplace to be tracked) "
           "or both outside (if you want the inplace to be tracked).")
    for mode, block in (("no_grad", "no_grad"), ("inference", "inference_mode"))}
_MADE_IN_INPLACE["inference"] = _MADE_IN_INPLACE["inference"].replace("with grad mode enabled", "in normal mode")
_INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                    "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                    "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                    "`torch.inference_mode()`.")


def _inference_result(op, args: tuple, kwargs: dict, r):
    """What an op makes in inference mode is an inference tensor (`Tensor.is_inference`; `_mark_new` marked
    each new tensor), as PyTorch's: but for a view of a normal tensor (`view(dtype)` is none there)."""
    if op.tracked_view and op.differentiable and not op.mutates and not is_inference(args[0]):
        for t in ((r,) if isinstance(r, Tensor) else r if isinstance(r, _SEQ) else ()):
            if isinstance(t, Tensor):
                t._is_inference = False
        _track_view(r, op, args, kwargs)
    return r


def _mark_inference(r) -> None:
    for t in ((r,) if isinstance(r, Tensor) else r):
        t._is_inference = True


def _mark_new(t: Tensor) -> None:
    """Tensor._make's hook while some thread is in inference mode: every tensor made in it is an inference tensor."""
    if _inference.get():
        t._is_inference = True


Tensor._is_inference = False  # the default of every tensor; `_mark_new` sets it on the instance


def is_inference(input: Tensor) -> bool:
    """Whether `input` was made by an op inside `inference_mode()`, or is a view of such a tensor.

    Every tensor made inside the mode is one (ops' results and factories' alike), but for a view of a
    normal tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input._is_inference:
        return True
    m = input._ag
    return m is not None and m.base is not None and m.base._is_inference


def _track_view(r: Tensor, op, args: tuple, kwargs: dict) -> None:
    if r.__class__ is tuple:  # the views of a multi-view op (unbind, split)
        _track_pieces(r, op, args, kwargs)
        return
    src = args[0]
    sm = src._ag
    step = ((op, args[1:], kwargs),)
    if sm is not None and sm.base is not None:
        base, chain = sm.base, sm.chain + step
    else:
        base, chain = src, step
    bm = base._ag
    r._ag = m = _new(AutogradMeta)  # AutogradMeta(base, chain, gen) without its __init__ frame
    m.base, m.chain, m.view_gen = base, chain, bm.gen if bm is not None else 0
    if sm is not None and sm.made_in is not None:  # a view of such a view keeps its mode
        m.made_in = sm.made_in
    elif not _enabled.get():  # made in no_grad (or inference mode): PyTorch's view requires grad as its base
        m.made_in = "inference" if _inference.get() else "no_grad"
        m.attr_version = r._storage.version
        if base._requires_grad:
            r._requires_grad = True
    elif sm is not None and sm.multi_view:  # PyTorch propagates the MULTI_OUTPUT_NODE creation meta to views
        m.multi_view = True
        m.attr_version = r._storage.version
    elif not base._requires_grad:  # NOTE [ Waking views ]
        views = (bm or meta(base)).grad_views
        if views is None:
            base._ag.grad_views = [_weak(r)]
        else:
            views.append(_weak(r))
            if len(views) >= 64 and not len(views) & (len(views) - 1):  # the dead ones dropped, now and then
                views[:] = [w for w in views if w() is not None]
    if base._is_inference:  # a view of an inference tensor is one
        r._is_inference = True


def _track_pieces(pieces: tuple, op, args: tuple, kwargs: dict) -> None:
    """`_track_view` for each view a multi-view op made (`op.pieces`), in one loop as the op made them: each
    remembers the single-view step (select, narrow) that rebuilds it alone from the base."""
    src = args[0]
    sm = src._ag
    if sm is not None and sm.base is not None:
        base, prefix = sm.base, sm.chain
    else:
        base, prefix = src, ()
    bm = base._ag
    gen = bm.gen if bm is not None else 0
    made_in, grads = None, False
    if sm is not None and sm.made_in is not None:  # a view of such a view keeps its mode
        made_in = sm.made_in
    elif not _enabled.get():  # made in no_grad (or inference mode): PyTorch's view requires grad as its base
        made_in = "inference" if _inference.get() else "no_grad"
        grads = base._requires_grad
    inference = base._is_inference
    new = object.__new__
    version = src._storage.version
    for t, (piece_op, a) in zip(pieces, op.pieces(*args, **kwargs)):
        t._ag = m = new(AutogradMeta)
        m.base = base
        m.chain = (*prefix, (piece_op, a, None))
        m.view_gen = gen
        m.attr_version = version
        if made_in is not None:
            m.made_in = made_in
            if grads:
                t._requires_grad = True
        else:
            m.multi_view = True
        if inference:
            t._is_inference = True


def check_inplace(t: Tensor, *, dirtied: bool = False) -> None:
    """PyTorch's error for an in-place write into a leaf that requires grad, or a view of one, or into an
    inference tensor outside inference mode (a leaf a Function marked dirty: "has been used", its words)."""
    if t._is_inference and not _inference.get():
        raise RuntimeError(_INFERENCE_INPLACE)
    m = t._ag
    if m is not None and m.made_in is not None and _state.enabled:
        raise RuntimeError(_MADE_IN_INPLACE[m.made_in])
    if t._grad_fn is None and t._requires_grad:  # PyTorch names a view of a leaf base (made a leaf by requires_grad_)
        view = m is not None and m.base is not None and m.base._grad_fn is None and not dirtied
        what = "a view of a leaf Variable" if view else "a leaf Variable"
        raise RuntimeError(f"{what} that requires grad {'has been' if dirtied else 'is being'} used in an "
                           f"in-place operation.")
    if m is not None and m.base is not None and t._requires_grad:
        name = type(t._grad_fn).__name__
        multi = _MULTI_VIEW_NODES.get(name)
        if multi is None and m.multi_view:  # a view of such an output: PyTorch names its own node ("Select")
            multi = name.removesuffix("Backward0")
        if multi is not None:
            nr = m.output_nr
            raise RuntimeError(f"Output {nr} of {multi} is a view and is being modified inplace. This view is "
                               "the output of a function that returns multiple views. Such functions do not allow the "
                               "output views to be modified inplace. You should replace the inplace operation by an "
                               "out-of-place one.")
    if m is not None and m.custom_view is not None and t._requires_grad and _state.enabled:
        raise RuntimeError(f"{m.custom_view} is a view and is being modified inplace. This view was created inside a "
                           "custom Function (or because an input was returned as-is) and the autograd logic to handle "
                           "view+inplace would override the custom backward associated with the custom Function, "
                           "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning "
                           "the output of the custom Function.")
    if m is not None and m.base is not None and m.base._grad_fn is None and m.base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")



def _restride_in_graph(self: Tensor, view: Tensor, op: str) -> None:
    """An in-place view op (`t_`, `unsqueeze_`, `as_strided_` ...) of a tensor that requires grad, as PyTorch's: its
    in-place checks with grad mode on, then `self` takes the recorded view's node, renamed as PyTorch's in-place view
    nodes (`TBackward1`, `SqueezeBackward3`), and, for a view, its place in the view family (the op ends its chain)."""
    if not _state.enabled:  # PyTorch's no_grad: the geometry changes, the history stays
        return
    check_inplace(self)
    fn = view._grad_fn
    if fn is not None:
        made = type(fn).__name__
        stem, _, k = made.rpartition("Backward")
        node_name(view, made, f"{stem}Backward{int(k) + (3 if stem == 'Squeeze' else 1)}")
    self._grad_fn, self._requires_grad = view._grad_fn, view._requires_grad
    m = self._ag
    if m is not None and m.base is not None:
        self._ag = view._ag
    elif m is not None:
        m.output_nr = 0


tensor_utils.restride_in_graph = _restride_in_graph

# the nodes of PyTorch's functions returning several views, whose outputs it refuses to modify in place
_MULTI_VIEW_NODES = {"SplitBackward0": "Split", "SplitWithSizesBackward0": "SplitWithSizes",
                     "UnbindBackward0": "Unbind"}


def _check_binary_operands(op, args: tuple) -> None:
    """A binary elementwise op's TypeError for a non-tensor, non-number operand, if it has one."""
    info = op.info
    if info is not None and getattr(info, "n_inputs", 0) == 2 and len(args) >= 2 and len(op.argnames) >= 2:
        elementwise.check_operands(op, args[0], args[1])


def _run_below(op, args: tuple, kwargs: dict, call_next):
    token = _enabled.set(False)
    try:
        r = call_next(op, args, kwargs)
    finally:
        _enabled.reset(token)
    if op.tracked_view and op.differentiable and not _inference.get():  # view(dtype): no view to autograd (PyTorch)
        _track_view(r, op, args, kwargs)
    return r




def _record(op, args: tuple, kwargs: dict, call_next):
    if op.tracked_view:
        entry = _VIEWS.get(op, _UNSEEN)
        if entry is _UNSEEN:
            entry = _VIEWS[op] = _view_entry(op)
        if entry is not None and args and isinstance(src := args[0], Tensor) and src._requires_grad \
                and (not kwargs or kwargs.get("out") is None):
            return _record_view(op, entry, args, kwargs, call_next)
    target = None  # the tensor an in-place op writes
    if op.mutates:  # the first written argument is the in-place result (`self`); the rest are side outputs
        target = args[op.mutates[0]]
    elif kwargs:
        out = kwargs.get("out")
        if out is not None:
            if out is not args[0]:
                raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support automatic "
                                   "differentiation, but one of the arguments requires grad.")
            target = out
    if target is not None:
        if op.name == "resize_" and target._requires_grad:  # PyTorch's words, before its in-place checks
            raise RuntimeError("cannot resize variables that require grad")
        if target._is_inference and not _inference.get():
            _refuse_inference_write(op, args, kwargs, call_next)
        try:
            check_inplace(target)
        except RuntimeError:
            _check_binary_operands(op, args)  # PyTorch's parser refuses `p.sub_(None)` before its in-place checks
            raise
    if not op.differentiable:
        r = _run_below(op, args, kwargs, call_next)
        if target is not None and target._requires_grad:
            _rebase(target, _NonDifferentiable(op.name), 0)
        return r
    entry = TABLE.get(op.name) or COMPOSITES.get(op.name)
    if entry is None:
        raise NotImplementedError(f"the derivative for '{op.name}' is not implemented.")
    if target is not None and entry.inplace is not None:
        entry = entry.inplace  # a rule from the result: no clone of the overwritten input

    # the edges of the differentiable inputs, before a kernel may rebase them
    edges, slots, in_meta, need = [], [], [], []
    target_slot = -1
    n_args = len(args)
    for p, i in entry.diff_index:
        v = args[i] if 0 <= i < n_args else entry.value(p, args, kwargs)
        if isinstance(v, Tensor):
            if v is target:
                target_slot = len(edges)
            if v._requires_grad:
                fn, m = v._grad_fn, v._ag
                if m is None and fn is not None:
                    edges.append((fn, 0))
                elif fn is None and m is not None and m.acc is not None:
                    edges.append((m.acc, 0))  # a leaf's AccumulateGrad
                else:
                    edges.append(edge_of(v))
                if p not in need:
                    need.append(p)
            else:
                edges.append((None, 0))
            slots.append((p, -1))
            in_meta.append((v._shape, v._dtype, v._storage.device))
        elif (v.__class__ in _NUMBERS and op.name in _WRAPPED_NUMBERS and p in _WRAPPED_NUMBERS[op.name]) or (
                v is None and op.name in _OPTIONAL_TENSORS and p in _OPTIONAL_TENSORS[op.name]):
            edges.append((None, 0))  # PyTorch wraps the number in a tensor, or has an undefined one: (None, 0)
            slots.append((p, -1))
            in_meta.append(((), None, None))
        elif isinstance(v, _SEQ):
            for j, t in enumerate(v):
                if isinstance(t, Tensor):
                    e = edge_of(t) if t._requires_grad else (None, 0)
                    edges.append(e)
                    slots.append((p, j))
                    in_meta.append((t._shape, t._dtype, t._storage.device))
                    if e[0] is not None and p not in need:
                        need.append(p)

    node = entry.node_cls(tuple(edges), tuple(slots), tuple(in_meta))
    saved = node._saved
    need_t = tuple(need) if not _ONE_NODE[0] else (*need, None)  # None: in argument order (`save_plan`)
    inputs_plan, results = entry._plans.get(need_t) or entry.save_plan(need_t)
    for n, p, suffix, i in inputs_plan:
        v = args[i] if 0 <= i < n_args else entry.value(p, args, kwargs)
        if suffix is not None:
            saved[n] = v._shape if suffix == "_shape" and isinstance(v, Tensor) else _meta_of(v, suffix)
        elif isinstance(v, Tensor):
            if v._is_inference:
                raise RuntimeError(_INFERENCE_SAVED)
            saved[n] = SavedTensor(v) if target is None else _save(v, target)
        elif type(v) in _SEQ and v and type(v[0]) is not int and any(isinstance(t, Tensor) for t in v):
            saved[n] = _save(v, target)
        else:
            saved[n] = v

    # the kernel, with recording off for any op it calls (_run_below, inlined)
    token = _enabled.set(False)
    try:
        r = call_next(op, args, kwargs)
    finally:
        _enabled.reset(token)
    if op.tracked_view and not _inference.get():
        _track_view(r, op, args, kwargs)

    if anomaly._enabled:
        node._trace = traceback.extract_stack()[:-3]
        node._hooked = True
    single = isinstance(r, Tensor)
    if single:
        outs = (r,)
    else:
        outs = r if isinstance(r, _SEQ) else (r,)
        node._n_out = len(outs)
    for n, i in results:
        saved[n] = SavedTensor(outs[i], True, i)  # an output: is_output, output_nr

    if target is not None:
        if target._dtype.is_floating_point or target._dtype.is_complex:  # an integer target takes no history
            _rebase_inplace(target, node, target_slot)
        return r
    if not need:
        return r
    if single:
        if r._dtype.is_floating_point or r._dtype.is_complex:
            r._grad_fn = node
            r._requires_grad = True
        return r
    for i, o in enumerate(outs):
        if isinstance(o, Tensor) and (o._dtype.is_floating_point or o._dtype.is_complex):
            o._grad_fn = node
            o._requires_grad = True
            if i:
                meta(o).output_nr = i
    return r


# NOTE [ Recording a view ]
# A view op (`w.t()` in every linear layer, `x.view`, slicing) on a tensor that requires grad is the most common
# recorded call: `_record_view` records it as `_record` would (the same node, edge, saved metadata, `_base` and view
# chain), without the general path's questions, whose answers a single view op fixes: it writes nothing, its only
# differentiable input is its first argument (which requires grad), it saves no output, it makes one tensor.
_VIEWS: dict = {}  # op -> its derivative entry where `_record_view` records it, else None
_REDISPATCH = Op.redispatch  # the dispatcher's `call_next` below autograd's hook when that hook is the only one
_UNSEEN = object()
_INPUT_SLOT = (("input", -1),)


def _view_entry(op):
    """The derivative entry of a single view op that `_record_view` may record (NOTE [ Recording a view ]), or None."""
    entry = TABLE.get(op.name)
    if (entry is None or not op.differentiable or op.mutates or op.pieces is not None
            or list(entry.diff_index) != [("input", 0)] or entry.node_cls.__init__ is not RuleNode.__init__
            or entry.save_plan(("input",))[1] or entry.save_plan(("input", None))[1]):
        return None
    return entry


def _record_view(op, entry, args: tuple, kwargs: dict, call_next):
    """`_record` of a single view op whose input requires grad (NOTE [ Recording a view ]), with the node's
    `__init__` and `_track_view` inlined."""
    src = args[0]
    fn, sm = src._grad_fn, src._ag
    if sm is None and fn is not None:
        edge = (fn, 0)
    elif fn is None and sm is not None and sm.acc is not None:
        edge = (sm.acc, 0)  # a leaf's AccumulateGrad
    else:
        edge = edge_of(src)
    node = _new(entry.node_cls)
    node.next_functions = (edge,)
    node._seq = next(_sequence)
    node._saved = saved = {}
    node._slots = _INPUT_SLOT
    node._in_meta = ((src._shape, src._dtype, src._storage.device),)
    need_t = ("input",) if not _ONE_NODE[0] else ("input", None)
    inputs_plan = (entry._plans.get(need_t) or entry.save_plan(need_t))[0]
    n_args = len(args)
    for n, p, suffix, i in inputs_plan:
        v = args[i] if 0 <= i < n_args else entry.value(p, args, kwargs)
        if suffix is not None:
            saved[n] = v._shape if suffix == "_shape" and isinstance(v, Tensor) else _meta_of(v, suffix)
        elif isinstance(v, Tensor):
            if v._is_inference:
                raise RuntimeError(_INFERENCE_SAVED)
            saved[n] = SavedTensor(v)
        elif type(v) in _SEQ and v and type(v[0]) is not int and any(isinstance(t, Tensor) for t in v):
            saved[n] = _save(v, None)
        else:
            saved[n] = v

    token = _enabled.set(False)
    try:
        if call_next is _REDISPATCH and _storage.only_cpu and op.check is None and not (src._conj or src._neg):
            # redispatch's path for this call, inline: no hook below, a CPU tensor, no meta step, no conj bit
            kernel = op.kernels.get("cpu") or op.kernels["any"]
            r = kernel(*args, **kwargs) if kwargs else kernel(*args)
        else:
            r = call_next(op, args, kwargs)
    finally:
        _enabled.reset(token)
    if not _inference.get():  # _track_view, inlined
        sm = src._ag
        step = ((op, args[1:], kwargs),)
        if sm is not None and sm.base is not None:
            base, chain = sm.base, sm.chain + step
        else:
            base, chain = src, step
        bm = base._ag
        r._ag = m = _new(AutogradMeta)
        m.base, m.chain, m.view_gen = base, chain, bm.gen if bm is not None else 0
        if sm is not None and sm.made_in is not None:  # a view of such a view keeps its mode
            m.made_in = sm.made_in
        elif not _enabled.get():  # made in no_grad (a dual's op, recorded there): requires grad as its base
            m.made_in = "inference" if _inference.get() else "no_grad"
            if base._requires_grad:
                r._requires_grad = True
        elif sm is not None and sm.multi_view:
            m.multi_view = True
        if base._is_inference:
            r._is_inference = True
    if anomaly._enabled:
        node._trace = traceback.extract_stack()[:-4]  # as `_record`'s, less this frame too
        node._hooked = True
    if r._dtype.is_floating_point or r._dtype.is_complex:
        r._grad_fn = node
        r._requires_grad = True
    return r


class _Computed:
    """A composite's one-node call as `_record` takes an op (NOTE [ One node computed outside dispatch ])."""

    __slots__ = ("name",)
    mutates = ()
    differentiable = True
    tracked_view = False

    def __init__(self, name: str) -> None:
        self.name = name


_COMPUTED = {name: _Computed(name) for name in (*COMPOSITES, "mm")}


def computed(name: str, args: tuple, result: Tensor) -> Tensor:
    """`result`, which a composite computed outside dispatch from `args`, recorded as a call of op `name` where one of
    `args` requires grad with grad mode on (NOTE [ One node computed outside dispatch ]); core's `dispatch.record`."""
    if _enabled.get():
        for a in args:
            if isinstance(a, Tensor):
                if a._requires_grad:
                    return _record(_COMPUTED[name], args, {}, lambda op, args, kwargs: result)
            elif isinstance(a, _SEQ):  # a list of tensors (stack's)
                for b in a:
                    if isinstance(b, Tensor) and b._requires_grad:
                        return _record(_COMPUTED[name], args, {}, lambda op, args, kwargs: result)
    return result


_recorder = _record  # the hook's recorder: `_record_tangents` while a forward-AD level is open


def _meta_of(v, suffix: str):
    if isinstance(v, Tensor):
        if suffix == "_geometry":
            return v._shape, v._strides, v._offset, v._storage.nbytes // v._dtype.itemsize
        return v._shape if suffix == "_shape" else v._dtype if suffix == "_dtype" else v.device
    if isinstance(v, _SEQ):
        return [_meta_of(t, suffix) for t in v]
    return None


def _save(v, target: Tensor | None):
    if isinstance(v, Tensor):
        if target is not None and v._storage is target._storage:
            token = _enabled.set(False)
            try:
                v = v.clone()
            finally:
                _enabled.reset(token)
        return SavedTensor(v)
    if isinstance(v, _SEQ) and any(isinstance(t, Tensor) for t in v):
        return [_save(t, target) if isinstance(t, Tensor) else None for t in v]
    return v


def _rebase(t: Tensor, node: Node, output_nr: int) -> None:
    t._grad_fn = node
    t._requires_grad = True
    m = t._ag
    if m is not None or output_nr:
        meta(t).output_nr = output_nr


def _rebase_inplace(target: Tensor, node: Node, target_slot: int) -> None:
    m = target._ag
    if m is None or m.base is None:
        woken = not target._requires_grad and m is not None and m.grad_views is not None
        _rebase(target, node, 0)
        meta(target).gen += 1  # views of target made earlier now replay onto the new history
        if woken:
            _wake_views(target, None)
        return
    base = m.base
    woken = not base._requires_grad and base._ag is not None and base._ag.grad_views is not None
    cs = CopySlices(base, target, node, target_slot)
    _rebase(base, cs, 0)
    meta(base).gen += 1
    regenerate_view(target)
    if woken:
        _wake_views(base, m)
    if node._saved:
        ref = weakref.ref(cs)
        for v in node._saved.values():
            if isinstance(v, SavedTensor) and v.is_output:
                v.view_ref = ref


def _wake_views(base: Tensor, written: AutogradMeta | None) -> None:
    """Make the live views of `base` but `written`'s, made in grad mode before an in-place op first made `base`
    require grad, require grad as PyTorch's; each replays its chain on the base's new history when first used or
    asked for its grad_fn (NOTE [ Waking views ])."""
    bm = base._ag
    views, bm.grad_views = bm.grad_views, None
    for ref in views:
        t = ref()
        o = t._ag if t is not None else None
        if o is not None and o is not written and o.base is base and o.made_in is None and not o.multi_view \
                and o.custom_view is None:
            t._requires_grad = True  # its node is made on use, as PyTorch's (`edge_of`); until then it is a leaf


def regenerate_view(t: Tensor) -> None:
    """Give view `t` a grad_fn that replays its view chain on its base's current history; the node is named
    `AsStridedBackward0`, as PyTorch's regenerated views (it replays them with as_strided)."""
    m = t._ag
    if t._requires_grad and (multi := _MULTI_VIEW_NODES.get(type(t._grad_fn).__name__)) is not None:
        raise RuntimeError(f"Output {m.output_nr} of {multi} is a view and its base or another view of its base has "
                           "been modified inplace. This view is the output of a function that returns multiple views. "
                           "Such functions do not allow the output views to be modified inplace. You should replace "
                           "the inplace operation by an out-of-place one.")
    if m.custom_view is not None and t._requires_grad:
        raise RuntimeError(f"{m.custom_view} is a view and its base or another view of its base has been modified "
                           "inplace. This view was created inside a custom Function (or because an input was returned "
                           "as-is) and the autograd logic to handle view+inplace would override the custom backward "
                           "associated with the custom Function, leading to incorrect gradients. This behavior is "
                           "forbidden. You can fix this by cloning the output of the custom Function.")
    base = m.base
    bm = base._ag
    m.view_gen = bm.gen if bm is not None else 0
    if not base._requires_grad:
        return
    prev = _state.enabled
    _state.enabled = True
    try:
        v = base
        for op, a, kw in m.chain:
            v = op(v, *a, **(kw or {}))
    finally:
        _state.enabled = prev
    if v._grad_fn is not None:  # PyTorch regenerates a strided view as one as_strided of its base
        node_name(v, type(v._grad_fn).__name__, "AsStridedBackward0")
    t._grad_fn = v._grad_fn
    t._requires_grad = v._requires_grad
    m.output_nr = 0


class _NonDifferentiable(Node):
    """The history of a tensor a non-differentiable in-place op wrote to: no gradient flows."""

    __slots__ = ("_name",)

    def __init__(self, op_name: str) -> None:
        super().__init__()
        self._name = "".join(p.capitalize() for p in op_name.strip("_").split("_")) + "Backward0"

    def name(self) -> str:
        return self._name

    def apply(self, grads: list) -> list:
        return []


class CopySlices(Node):
    """The base's node after an in-place op on one of its views (see NOTE [ In-place ops and views ])."""

    __module__ = "builtins"  # PyTorch's nodes are C++ types: `<class 'CopySlices'>`

    __slots__ = ("fn", "target_slot", "base_geom", "view_geom")

    def __init__(self, base: Tensor, view: Tensor, fn: Node, target_slot: int) -> None:
        super().__init__()
        self.fn = fn
        self.target_slot = target_slot
        self.base_geom = (base._shape, base._strides, base._offset)
        self.view_geom = (view._shape, view._strides, view._offset, view._conj, view._neg)
        self.next_functions = (edge_of(base) if base._requires_grad else (None, 0),) + tuple(
            e for i, e in enumerate(fn.next_functions) if i != target_slot)
        if anomaly._enabled:
            self._trace = fn._trace
            self._hooked = True

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # PyTorch's C++ node keeps its namespace in name()

    def release(self) -> None:
        self.fn.release()

    def apply(self, grads: list) -> list:
        from ember.core import as_strided, zeros

        grad = grads[0]
        bshape, bstrides, boff = self.base_geom
        vshape, vstrides, voff, vconj, vneg = self.view_geom
        extent = 1 + sum((n - 1) * s for n, s in zip(bshape, bstrides)) if all(bshape) else 0
        buf = zeros(max(extent, voff - boff + 1), dtype=grad.dtype, device=grad.device)
        result = as_strided(buf, bshape, bstrides, 0)
        result.copy_(grad)
        region = as_strided(buf, vshape, vstrides, voff - boff)
        if vconj:  # a conjugate view's values are the conjugates of the base's: so are their gradients
            region = region.conj()
        if vneg:  # and a negative view's the negations
            from ember.core.ops.complex import _neg_view

            region = _neg_view(region)
        inner = self.fn.apply([region.clone()])
        own = inner[self.target_slot] if self.target_slot >= 0 else None
        if own is None:
            region.zero_()
        else:
            region.copy_(own)
        rest = [g for i, g in enumerate(inner) if i != self.target_slot]
        return [result, *rest]

