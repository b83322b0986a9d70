"""Capture: run the function once, eagerly, recording every op dispatch into a `Graph`.

NOTE [ Capture ]
A dispatch hook, installed beneath every other hook for the one capturing call
(`register_dispatch_hook(..., innermost=True)`), sees every op call as its kernel gets it: the
forward ops (below autograd's recording, after autocast's casts, which it records too), the ops
the autograd engine runs for `backward()` and the optimizer's. An op called from inside another
op's kernel (dropout's mask) is not recorded: replaying the outer kernel redoes it. Each recorded call keeps the
device kernel `Op.redispatch` would pick, its arguments with tensors replaced by buffers, and
the buffers its results become.

Python runs only at capture, so what Python decides there is frozen in the plan, except:
- an optimizer's methods (an object with `param_groups` and `state`, whose `step` or
  `zero_grad` the function calls) become `CallNode`s run eagerly at replay, so the learning rate
  a scheduler sets and Adam's step counter are read at every replay, and lazily made state is
  made by the optimizer itself; the ops inside them are not recorded;
- a read of a tensor's value on the host (`.item()`, `.tolist()`, `.numpy()`, `float(t)`,
  `bool(t)`, printing, and ember's own Python reading elements outside an op kernel through
  `Tensor._np()`/`_host_array()`, as `equal` does) is a graph break, since what Python does with
  the value cannot be replayed; `.item()` whose value the function only returns is read after each replay instead.
  A read inside a recorded op (its meta step validating indices or a range, its kernel) is none: the
  replay calls the op's meta step before its kernel again, so bad values raise eager's error there;
- a branch on a tensor's value (`if t.any():`, `if loss.item() > 1.0:`, `range(int(n))`) is no
  break where nothing before it writes what outlives the call: it becomes a `Guard` of the value
  (NOTE [ Branches on tensor values ]);
- modules whose `forward` runs get their `.training` checked before each replay;
- outputs that need a history (no backward ran inside the function) get their backward captured
  as a second plan right after the call (NOTE [ A captured backward ] in `ember.jit.backward`).
Tensors are tracked by identity through weak references (holding them would change what
autograd may steal for `.grad`, and the plan would differ from eager).

NOTE [ Branches on tensor values ]
Python that branches on a tensor's value (`bool(t)`, `int(t)`, `t.item()` of a bool or integer
tensor, and comparing a float `.item()` with a number) takes one path at capture; the plan is that
path. The read becomes a `Guard` node at its place among the ops, holding the value Python got:
a replay computes the same read from its buffer and, where the value differs, stops there and
returns `DIVERGED`. The compiled function then tries its other plans for these guards (one per path
seen) and, where none takes this path, runs the call eagerly while capturing it as a new plan, up to
`config.cache_size_limit` plans. Running the call again from the start is only sound when the ops
before the guard wrote nothing that outlives the call, so a guard is recorded only where, before it,
no op wrote an input or a tensor made before the call, no random numbers were drawn (the generators'
offsets are compared), no backward ran and no method of an optimizer but `zero_grad()` (which
running again does not change) was called; otherwise the read is a graph break as before. A branch
on a float's exact value (`float(t)`, `.item()` used in arithmetic) stays a break: a guard on it
would fail at nearly every call.
"""

from __future__ import annotations

import contextlib
import copy
import dis
import os
import sys
import sysconfig
import threading
import types
import weakref

from ember.autograd import engine as _engine
from ember.core import creation, dispatch
from ember.core import random as _random
from ember.core.random import Generator
from ember.core.storage import Storage
from ember.core.tensor import Tensor

from ember.jit.backward import attach, histories_meet, reaches_hooks
from ember.jit.graph import (Alias, Backward, Buffer, CallNode, Clone, Get, GradBind, Graph, Guard, Item, OpNode, Ref,
                             _leaves, _reads)

__all__ = ["Unsupported", "Recorder", "user_frame"]

_SEQ = (list, tuple)
_SEP = os.sep + "ember" + os.sep
# where installed libraries and the standard library live: their own `print` calls (Numba annotating the kernel it
# compiles during a capture, into a StringIO) are no break; the user's program's are
_LIBRARY_DIRS = tuple(sorted({os.path.join(os.path.realpath(p), "") for p in
                              (sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))}))
# ops whose result's shape depends on the values of their input, or that re-point a tensor's storage
_DYNAMIC = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive", "unique_dim", "bincount",
                      "repeat_interleave", "set_", "resize_", "resize_as_", "histc", "histogram", "argwhere"})
_HOST_READS = ("item", "tolist", "numpy", "_np", "_host_array", "__float__", "__int__", "__bool__", "__index__",
               "__complex__", "__array__", "__repr__", "__str__", "__format__")
# host reads whose bool or integer value a replay can test again (`Guard`)
_BRANCH_READS = {"__bool__": "bool", "__int__": "int", "__index__": "int", "item": "item"}
_EXECUTE = _engine.execute.__code__
_METHOD_FRAMES = frozenset({"step", "wrapper", "zero_grad", "forward", "_call_impl", "__call__"})
# ember's functions that call user hooks: the engine's tensor, node and leaf hooks, the
# post-accumulate-grad hooks, and a module's forward (pre-)hooks around its `forward`
_HOOK_CALLERS = frozenset({"_run_tensor_hooks", "_run_node", "_accumulate", "_leaf_hooks", "_call_impl"})


def _has_conj(args: tuple, kwargs: dict) -> bool:
    """Whether a tensor among the arguments (or in a list of them) is a lazy conjugate or negative view."""
    for a in (*args, *kwargs.values()) if kwargs else args:
        for t in (a if isinstance(a, _SEQ) else (a,)):
            if isinstance(t, Tensor) and (t._conj or t._neg):
                return True
    return False


def _hook_call(caller, callee) -> bool:
    """Whether ember code `caller` calling user code `callee` is a hook (a module's `forward` is not)."""
    if caller.co_name == "_call_impl":
        return callee.co_name != "forward"
    return caller.co_name in _HOOK_CALLERS or "_backward_hook" in caller.co_filename


_active: list[Recorder] = []  # the captures running (a compiled function called inside one runs eagerly)


class TorchDynamoException(RuntimeError):
    """The base of the errors `compile` raises (PyTorch's name: `except` clauses name it)."""


class Unsupported(TorchDynamoException):
    """What `compile(..., fullgraph=True)` raises where the function cannot be captured whole."""


def user_frame(frame) -> str:
    """`file:line` of the first frame outside ember's own packages, from `frame` outwards."""
    return _user_line(_stack(frame))


def _stack(frame) -> list:
    """(code, line) of `frame` and each frame outwards: where a break happened (NOTE [ Compiled segments ])."""
    out = []
    while frame is not None:
        out.append((frame.f_code, frame.f_lineno))
        frame = frame.f_back
    return out


_library_files: dict[str, bool] = {}


def _library_code(code) -> bool:
    """Whether `code` is ember's, an installed library's or the standard library's (not the user's program)."""
    name = code.co_filename
    hit = _library_files.get(name)
    if hit is None:
        hit = _library_files[name] = _SEP in name or name.startswith("<frozen") or \
            os.path.realpath(name).startswith(_LIBRARY_DIRS)
    return hit


def _user_line(stack: list) -> str:
    return next((f"{c.co_filename}:{ln}" for c, ln in stack if _SEP not in c.co_filename), "<unknown>")


class _HostFloat(float):
    """The value `.item()` returned during capture: any use but being returned is a graph break."""

    __slots__ = ("recorder", "ref")


_COMPARISONS = {"__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__eq__": "eq", "__ne__": "ne"}


def _used(name: str):
    base = getattr(float, name)

    def use(self, *args):
        rec = self.recorder
        value = base(float.__float__(self), *args)
        if rec is not None and rec.active:
            if name == "__bool__":  # `if loss.item():` is `loss.item() != 0`
                how, other = "ne", 0.0
            else:
                how, other = _COMPARISONS.get(name), args[0] if args else None
            if how is None or type(other) not in (int, float, bool) or \
                    not rec.guard(self.ref, how, value, other, sys._getframe(1), item=self):
                rec.brk(f"the value of .item() is used in Python ({name})", sys._getframe(1))
        return value
    use.__name__ = name
    return use


for _n in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
           "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__neg__", "__pos__",
           "__abs__", "__bool__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__int__", "__float__",
           "__round__", "__trunc__", "__floor__", "__ceil__", "__format__", "__repr__", "__str__", "__hash__"):
    setattr(_HostFloat, _n, _used(_n))


class Recorder:
    """One capture: `run(fn, args, kwargs)` calls `fn` eagerly and leaves `graph` (or `broken`)."""

    def __init__(self, fullgraph: bool) -> None:
        self.fullgraph = fullgraph
        self.graph = Graph()
        self.broken: str | None = None
        self.active = False
        self.depth = 0  # > 0 while a recorded op runs: ops its kernel calls are not recorded
        self._tensors: dict[int, tuple] = {}  # id(tensor) -> (weakref, index)
        self._storages: dict[int, tuple] = {}  # id(storage) -> (weakref, index)
        self._leaves: dict[int, Tensor] = {}  # buffer index -> constant leaf that requires grad
        self._start_grad: dict[int, object] = {}  # buffer index -> its `.grad` when first seen
        self._island = None  # the optimizer frame whose ops are not recorded
        self._modules: dict[int, object] = {}
        self._host_values: list[_HostFloat] = []
        self._returned: set[int] = set()  # ids of the .item() values the function returns
        self.backward_seen = False
        self._thread = threading.get_ident()  # ops of other threads (a pin-memory thread) are not the function's
        self._born: dict[int, weakref.ref] = {}  # id(storage) -> storage, for the storages made during the call
        self._pristine: dict[int, Tensor] = {}  # buffer index -> a copy of a constant made during the call
        self._written: set[int] = set()  # ids of the storages ops wrote in place
        self._in_meta = 0  # > 0 while a recorded op's meta step runs
        self._validated = False  # a host read happened in the current recorded op's meta step
        self._rng_start = _rng_state()
        self._why_not = ""
        self._impure: str | None = None  # what the plan did so far that outlives the call (no guard after it)
        self._guarded: set[int] = set()  # ids of the .item() values only compared in guards
        self.break_stack: list = []  # (code, line) outwards from the first break (NOTE [ Compiled segments ])
        self._backward_stack: list = []  # the same, where the first backward() ran

    # --- buffers ---------------------------------------------------------------------
    def _new_buffer(self, t: Tensor, kind: str, producer: int = -1) -> int:
        g = self.graph
        idx = len(g.buffers)
        g.buffers.append(Buffer(idx, kind, t._shape, t._strides, t._offset, t._dtype, t._storage.device,
                                t if kind == "const" else None, producer))
        self._tensors[id(t)] = (weakref.ref(t), idx)
        st = t._storage.root  # `.data`'s alias names its owner's memory (NOTE [ .data's version counter ])
        known = self._storages.get(id(st))
        if known is None or known[0]() is not st:
            self._storages[id(st)] = (weakref.ref(st), idx)
        return idx

    def lookup(self, t: Tensor):
        """The plan's name for tensor `t` if it has one: its buffer, or an alias of a buffer."""
        hit = self._tensors.get(id(t))
        if hit is not None and hit[0]() is t:
            return Ref(hit[1])
        st = t._storage.root
        known = self._storages.get(id(st))
        if known is not None and known[0]() is st:
            b = self.graph.buffers[known[1]]
            if t._offset == b.offset and t._shape == b.shape and t._strides == b.strides and t._dtype is b.dtype:
                return Ref(b.index)  # another tensor object over the same elements (autograd's alias of a saved output)
            return Alias(b.index, t._offset - b.offset, t._shape, t._strides, t._dtype)
        return None

    def ref(self, t: Tensor):
        """The plan's name for tensor `t`: a buffer, an alias of one, or a new constant."""
        r = self.lookup(t)
        if r is not None:
            return r
        idx = self._new_buffer(t, "const")
        born = self._born.get(id(t._storage))
        if born is not None and born() is t._storage:  # made from Python data inside the function
            self.depth += 1
            try:
                self._pristine[idx] = copy.deepcopy(t)
            finally:
                self.depth -= 1
        if t._requires_grad and t._grad_fn is None:
            self._leaves[idx] = t
            self._start_grad[idx] = t._grad
        return Ref(idx)

    def _template(self, a):
        if isinstance(a, Tensor):
            return self.ref(a)
        if isinstance(a, _SEQ) and a and any(isinstance(x, Tensor) for x in a):
            items = [self._template(x) for x in a]
            return items if isinstance(a, list) else tuple(items)
        if isinstance(a, _HostFloat):
            self.brk("the value of .item() is passed to an op", sys._getframe(2))
        return a

    # --- breaks ----------------------------------------------------------------------
    def brk(self, reason: str, frame, stack: list | None = None) -> None:
        """A graph break: the capture is abandoned (fullgraph: raise), the call goes on eagerly. `stack`
        (else `frame`'s) says where, for the message and for splitting the function there."""
        if stack is None:
            stack = _stack(frame) if frame is not None else []
        msg = f"{reason} at {_user_line(stack)}" if stack else reason
        if self.fullgraph:
            self.active = False
            raise Unsupported(f"ember.jit: cannot capture the whole function: {msg}")
        if self.broken is None:
            self.broken = msg
            self.break_stack = stack
        self.active = False

    def guard(self, t_ref, how: str, value, other, frame, item=None) -> bool:
        """Record a branch on a value read from buffer `t_ref` as a `Guard`, where nothing before it
        outlives the call (NOTE [ Branches on tensor values ]); False: the read is a break."""
        if self.depth or self._island is not None or threading.get_ident() != self._thread:
            return False
        if self._impure is None and self.backward_seen:
            self._impure = "backward()"
        if self._impure is None and _rng_state() != self._rng_start:
            self._impure = "a random draw"
        if self._impure is not None:
            self._why_not = f"nothing before it outlives the call; {self._impure} did"
            return False
        self.graph.nodes.append(Guard(t_ref, how, value, other))
        if item is not None:
            self._guarded.add(id(item))
        return True

    # --- the profile: optimizers, modules, the engine ----------------------------------------
    def _profile(self, frame, event: str, arg) -> None:
        """`sys.setprofile` callback during the capture: opens and closes optimizer islands, notes the
        modules whose forward runs and whether the autograd engine ran; a call of `print` is a break."""
        if event == "return":
            if frame is self._island:
                self._island = None
            return
        if event == "c_call" and arg is print and self._island is None and self.active:
            if not _library_code(frame.f_code):  # PyTorch prints at each call
                self.brk("print() runs Python, which a replay would not run", frame)
            return
        if event != "call" or self._island is not None or not self.active:
            return
        co = frame.f_code
        if _SEP not in co.co_filename:
            back = frame.f_back
            if back is not None and _SEP in back.f_code.co_filename and _hook_call(back.f_code, co):
                self.brk(f"a hook ({co.co_qualname}) runs Python, which a replay would not run", frame)
            if co.co_name not in _METHOD_FRAMES:
                return
        if co is _EXECUTE:
            if not self.backward_seen:
                self._backward_stack = _stack(frame)
            self.backward_seen = True
        elif co.co_name in _METHOD_FRAMES and co.co_argcount and co.co_varnames[0] == "self":
            obj = frame.f_locals.get("self")
            try:  # any object's attributes: one that raises on lookup is neither optimizer nor module
                optimizer = isinstance(getattr(obj, "param_groups", None), list) and hasattr(obj, "state")
                module = not optimizer and isinstance(getattr(obj, "_modules", None), dict) and hasattr(obj, "training")
            except Exception:
                return
            if optimizer:
                self._open_island(frame)
            elif module:
                self._modules[id(obj)] = obj

    def _open_island(self, f) -> None:
        obj = f.f_locals["self"]
        co = f.f_code
        name = next((n for n in dir(type(obj)) if getattr(getattr(type(obj), n, None), "__code__", None) is co), None)
        loc = f.f_locals
        if co.co_name == "wrapper":  # the hooks wrapper of `step(self, *args, **kwargs)`
            args, kwargs = tuple(loc.get("args", ())), dict(loc.get("kwargs", {}))
        else:
            args, kwargs = (), {n: loc[n] for n in co.co_varnames[1:co.co_argcount] if n in loc}
        if name is None or args or any(callable(v) for v in kwargs.values()):
            self.brk(f"{type(obj).__name__}.{co.co_name} called with a closure or arguments", f)
            return
        binds = []
        for group in obj.param_groups:
            for p in group["params"]:
                self.ref(p)
        for idx, leaf in self._leaves.items():
            # a .grad the plan made must be this replay's: bind it (any other is what it is at replay)
            g = leaf._grad
            r = None if g is None else self.lookup(g)
            if r is not None and self.graph.buffers[r.index].kind != "const":
                binds.append(GradBind(Ref(idx), r))
        self.graph.nodes.append(CallNode(obj, name, args, kwargs, binds))
        if name != "zero_grad" and self._impure is None:
            self._impure = f"{type(obj).__name__}.{name}()"
        self._island = f

    # --- the hook ----------------------------------------------------------------------
    def hook(self, op, args: tuple, kwargs: dict, call_next):
        if self.depth or self._island is not None or not self.active or threading.get_ident() != self._thread:
            return call_next(op, args, kwargs)
        if op.name in _DYNAMIC:
            self.brk(f"op '{op.name}' (its result's shape depends on tensor values) is not captured", sys._getframe(1))
            return call_next(op, args, kwargs)
        # a replay's kernels and inlined views skip the bits' paths
        if op.name in ("conj", "_neg_view") or _has_conj(args, kwargs):
            self.brk(f"op '{op.name}' of a lazy conjugate view or negative view (NOTE [ Complex storage and conj ]) "
                     "is not captured", sys._getframe(1))
            return call_next(op, args, kwargs)
        dev = dispatch.device_of(args)
        kernel = op.kernels.get(dev) or op.kernels.get("any")
        targs = tuple(self._template(a) for a in args)
        tkw = {k: self._template(v) for k, v in kwargs.items()} if kwargs else {}
        bumps = []
        if kwargs and isinstance(kwargs.get("out"), Tensor):
            bumps.append(tkw["out"])
        elif kwargs and isinstance(kwargs.get("out"), _SEQ):
            bumps.extend(tkw["out"])
        for i in op.mutates:
            if args[i] is not None:
                bumps.append(targs[i])
                self._written.add(id(args[i]._storage.root))
        if kwargs and isinstance(kwargs.get("out"), Tensor):
            self._written.add(id(kwargs["out"]._storage.root))
        check = op.check
        if check is not None:  # wrapped for this call: a host read inside it is a validation
            def meta(*a, **k):
                self._in_meta += 1
                try:
                    return check(*a, **k)
                finally:
                    self._in_meta -= 1
            op.check = meta
        self._validated = False
        self.depth += 1
        try:
            r = call_next(op, args, kwargs)
        finally:
            self.depth -= 1
            if check is not None:
                op.check = check
        if not self.active:
            return r
        g = self.graph
        node_idx = len(g.nodes)
        res = r if isinstance(r, _SEQ) else (r,)
        outs = []
        for t in res:
            if isinstance(t, Tensor):
                hit = self._tensors.get(id(t))
                outs.append(hit[1] if hit is not None and hit[0]() is t else self._new_buffer(t, "op", node_idx))
            elif t is None:
                outs.append(None)
            else:  # a Python value (a bool, a count) that Python code goes on with: not replayable
                self.brk(f"op '{op.name}' returns a Python {type(t).__name__}, which the function reads",
                         sys._getframe(1))
                return r
        g.nodes.append(OpNode(op, kernel, targs, tkw, outs, tuple(bumps), isinstance(r, _SEQ), self._validated))
        if self._impure is None:
            self._note_impure(op.name, bumps, (args, kwargs))
        return r

    def _note_impure(self, name: str, bumps: list, call: tuple) -> None:
        """Note an op that writes a tensor made before the call or draws from a generator it is given."""
        for b in bumps:
            buf = self.graph.buffers[b.index]
            if buf.kind == "input" or (buf.kind == "const" and b.index not in self._pristine):
                self._impure = f"op '{name}' writing a tensor made before the call"
                return
        if any(isinstance(a, Generator) for a in _leaves(call)):
            self._impure = f"op '{name}' drawing from a generator"

    # --- host reads --------------------------------------------------------------------
    def _patch(self) -> dict:
        saved = {}
        rec = self
        for name in _HOST_READS:
            orig = Tensor.__dict__.get(name)
            if orig is None:
                continue
            saved[name] = orig

            def read(t, *a, _orig=orig, _name=name, **k):
                if rec._in_meta and threading.get_ident() == rec._thread:
                    rec._validated = True  # the meta step validates values: the replay calls it again
                if not rec.active or rec.depth or rec._island is not None or threading.get_ident() != rec._thread:
                    return _orig(t, *a, **k)
                rec.depth += 1  # the reads it makes itself (item through _host_array) are this one
                try:
                    v = _orig(t, *a, **k)
                finally:
                    rec.depth -= 1
                if _name == "item" and type(v) is float:
                    h = _HostFloat(v)
                    h.recorder, h.ref = rec, rec.ref(t)
                    rec._host_values.append(h)
                    return h
                how = _BRANCH_READS.get(_name)
                if how is not None and type(v) in (bool, int) and rec.guard(rec.ref(t), how, v, None,
                                                                              sys._getframe(1)):
                    return v
                if _name.startswith("__"):
                    what = f"{_name.strip('_')}(tensor)"
                elif _name.startswith("_"):
                    what = f"ember code outside an op (Tensor.{_name}())"
                else:
                    what = f"{_name}()"
                why = ""
                if how is not None and rec._why_not:
                    why = f" (a branch on it is a guard only where {rec._why_not})"
                rec.brk(f"{what} reads a tensor's value on the host{why}", sys._getframe(1))
                return v
            read.__name__ = name
            setattr(Tensor, name, read)
        born = self._born
        wrap, init = Tensor.__dict__["_wrap"], Storage.__init__
        saved["_wrap"] = wrap

        def wrap_born(arr, _wrap=wrap.__func__):
            t = _wrap(arr)
            born[id(t._storage)] = weakref.ref(t._storage)
            return t

        def init_born(st, *a, **k):
            init(st, *a, **k)
            born[id(st)] = weakref.ref(st)
        Tensor._wrap = staticmethod(wrap_born)
        Storage.__init__ = init_born
        self._storage_init = init
        data = Tensor.__dict__.get("data")
        if isinstance(data, property) and data.fset is not None:
            saved["data"] = data

            def set_data(t, value, _set=data.fset):
                if rec.active and not rec.depth and rec._island is None and threading.get_ident() == rec._thread:
                    rec.brk("assigning .data re-points a tensor to other memory, which a replay would not redo",
                            sys._getframe(1))
                _set(t, value)
            Tensor.data = property(data.fget, set_data, data.fdel, data.__doc__)
        self._generator_saved = {}
        for name in ("manual_seed", "seed"):
            orig = Generator.__dict__[name]
            self._generator_saved[name] = orig

            def reseed(gen, *a, _orig=orig, _name=name, **k):
                if not rec.active or rec.depth or rec._island is not None or threading.get_ident() != rec._thread:
                    return _orig(gen, *a, **k)
                # a reseed is Python state a replay must set again: replayed as a call, in its place among the ops
                rec.graph.nodes.append(CallNode(gen, _name, a, k))
                if rec._impure is None:
                    rec._impure = f"Generator.{_name}()"
                rec.depth += 1
                try:
                    return _orig(gen, *a, **k)
                finally:
                    rec.depth -= 1
            reseed.__name__ = name
            setattr(Generator, name, reseed)
        return saved

    # --- the run -----------------------------------------------------------------------
    def run(self, fn, flat_inputs: list, args: tuple, kwargs: dict, check_only: bool = False):
        """Call `fn(*args, **kwargs)` while recording; `flat_inputs` are the tensors among the arguments.
        `check_only`: only look for breaks (fullgraph's first call), making no plan."""
        g = self.graph
        for t in flat_inputs:
            hit = self._tensors.get(id(t))
            if hit is not None:  # the same tensor passed twice
                g.inputs.append(hit[1])
                continue
            idx = self._new_buffer(t, "input")
            g.inputs.append(idx)
            if t._requires_grad and t._grad_fn is None:
                self._leaves[idx] = t
                self._start_grad[idx] = t._grad
        before = _python_state(fn, args, kwargs)
        with self._recording():
            result = fn(*args, **kwargs)
        if self.broken is None:
            changed = _changed(before, _python_state(fn, args, kwargs))
            if changed is not None:
                self.brk(f"the function changes Python state a replay would not ({changed})", None)
        if self.broken is None and self.backward_seen:
            outside = [t for t in flat_inputs if t._requires_grad and t._grad_fn is not None]
            outside += [b.value for b in g.buffers if b.kind == "const" and b.value._requires_grad
                        and b.value._grad_fn is not None]
            if outside:  # the engine went on into ops made before the call, which the plan did not record
                self.brk("backward() inside the function reaches the history of a tensor made outside it (a "
                         "non-leaf argument or global); a replay could not follow that history", None,
                         self._backward_stack)
        if check_only:
            for h in self._host_values:
                h.recorder = None
            return _plain(result) if self._host_values else result
        if self.broken is None:
            self.active = True
            try:
                g.output = self._outputs(result)
            finally:
                self.active = False
        if self.broken is None and g.through_autograd:
            self._capture_backward(result, flat_inputs)
        if self.broken is None:
            self._finish()
            self._guard_python(fn)
            g.eliminate_common_subexpressions()
            g.eliminate_dead_code()
        for h in self._host_values:
            h.recorder = None
        return _plain(result) if self._host_values else result

    @contextlib.contextmanager
    def _recording(self):
        """The hook, the host-read patches and the profiler, for the duration of the block."""
        saved = self._patch()
        dispatch.register_dispatch_hook(self.hook, innermost=True)
        old_profile = sys.getprofile()
        self.active = True
        _active.append(self)
        sys.setprofile(self._profile)
        try:
            yield
        finally:
            sys.setprofile(old_profile)
            _active.remove(self)
            self.active = False
            self._island = None
            dispatch.remove_dispatch_hook(self.hook)
            for name, orig in saved.items():
                setattr(Tensor, name, orig)
            Storage.__init__ = self._storage_init
            for name, orig in self._generator_saved.items():
                setattr(Generator, name, orig)

    def _capture_backward(self, result, flat_inputs: list) -> None:
        """Record the backward of the outputs that need a history as a second plan (NOTE [ A captured
        backward ] in `ember.jit.backward`); where that fails the forward replays through autograd."""
        g = self.graph
        outs = [t for t in _tensors_in(result) if t._requires_grad]
        refs = [self.lookup(t) for t in outs]
        if len({id(t) for t in outs}) != len(outs) or any(
                not isinstance(r, Ref) or g.buffers[r.index].kind != "op" for r in refs):
            return  # an output that is an input, a constant or a view made outside the ops
        targets, target_refs, seen = [], [], set()
        for t in flat_inputs:
            if t._requires_grad and id(t) not in seen:
                seen.add(id(t))
                targets.append(t)
                target_refs.append(self.lookup(t))
        for idx, leaf in self._leaves.items():
            if g.buffers[idx].kind == "const" and id(leaf) not in seen:
                seen.add(id(leaf))
                targets.append(leaf)
                target_refs.append(Ref(idx))
        if not targets or reaches_hooks(outs) or histories_meet(targets):
            return  # the forward replays through autograd instead
        grads_in = [creation.ones_like(t) for t in outs]
        gin_refs = [Ref(self._new_buffer(t, "input")) for t in grads_in]
        fwd_nodes, g.nodes = g.nodes, []
        fullgraph, self.fullgraph = self.fullgraph, False
        try:
            with self._recording():
                got = _engine.grad(outs, targets, grads_in, retain_graph=True, allow_unused=True)
        except Exception:  # noqa: BLE001 - the backward cannot be captured: the forward replays through autograd
            self.broken = None
            got = None
        finally:
            bw_nodes, g.nodes = g.nodes, fwd_nodes
            self.fullgraph = fullgraph
        if got is None or self.broken is not None:
            self.broken = None
            return
        bg = Graph(buffers=g.buffers, nodes=bw_nodes)
        bg.output = tuple(None if x is None else self.ref(x) for x in got)
        bg.eliminate_dead_code()
        produced = {o for n in bg.nodes if isinstance(n, OpNode) for o in n.outs if o is not None}
        read: set[int] = set()
        _reads([n.reads() for n in bg.nodes], read)
        _reads(bg.output, read)
        saved = tuple(Ref(i) for i in sorted(read) if i not in produced and g.buffers[i].kind != "const"
                      and i not in {r.index for r in gin_refs})
        bg.inputs = [r.index for r in gin_refs] + [r.index for r in saved]
        bg.unguarded = {r.index for r in gin_refs}  # the incoming gradients' layout is whatever backward() passes
        g.backward = Backward(bg.compile(), saved, tuple(refs), tuple(target_refs), attach, bg)
        g.through_autograd = False

    def _outputs(self, r):
        if isinstance(r, _HostFloat):
            self._returned.add(id(r))
            return Item(r.ref)
        if isinstance(r, Tensor):
            if r._requires_grad and not self.backward_seen:
                self.graph.through_autograd = True  # its backward runs outside: replay through autograd
            ref = self.ref(r)
            if r._grad_fn is not None and self.backward_seen and isinstance(ref, Ref) \
                    and self.graph.buffers[ref.index].kind == "op":
                self.graph.spent.append(ref)  # the backward inside consumed its history
            if isinstance(ref, Ref) and self.graph.buffers[ref.index].kind == "const":
                return Clone(ref)
            return ref
        if isinstance(r, dict):
            return {k: self._outputs(v) for k, v in r.items()}
        if isinstance(r, list):
            return [self._outputs(v) for v in r]
        if isinstance(r, tuple):
            return tuple(self._outputs(v) for v in r)
        return r

    def _finish(self) -> None:
        g = self.graph
        if g.through_autograd and any(isinstance(a, Alias) for n in g.nodes if isinstance(n, OpNode)
                                      for a in (*n.args, *n.kwargs.values())):
            self.broken = "a tensor made outside the ops reads another's memory; its history cannot be replayed"
            return
        if any(id(h) not in self._returned and id(h) not in self._guarded for h in self._host_values):
            self.broken = "the value of .item() is kept or used inside the function (not only returned)"
            return
        for idx, leaf in self._leaves.items():
            start = self._start_grad[idx]
            if start is None:
                g.checks.append(("grad_none", Ref(idx), None))
            else:
                hit = self._tensors.get(id(start))
                if hit is not None and hit[0]() is start:  # the plan reads or writes that very tensor
                    g.checks.append(("grad_is", Ref(idx), start))
                else:
                    g.checks.append(("grad_set", Ref(idx), None))
            cur = leaf._grad
            if cur is start:
                continue
            g.end_binds.append(GradBind(Ref(idx), None if cur is None else self.ref(cur)))
        for b in g.buffers:
            if b.kind == "const":
                g.checks.append(("requires_grad", Ref(b.index), b.value._requires_grad))
        for m in self._modules.values():
            g.checks.append(("training", m, bool(m.training)))
        for idx, snap in self._pristine.items():
            if id(g.buffers[idx].value._storage.root) in self._written:  # written in place, maybe through a view
                g.buffers[idx].pristine = snap

    def _guard_python(self, fn) -> None:
        """Checks on the Python values the function read from outside its arguments (NOTE [ Python
        values guarded ] in `ember.jit.compiler`): its globals and closure cells, and the attributes
        and tensors of the modules involved; a changed one captures again instead of replaying a frozen value."""
        g = self.graph
        glb, names, cells, owned = _reach(fn)
        modules = dict(self._modules)
        modules.update((id(m), m) for m in owned)
        for name in names:
            _guard(g.checks, Get("item", glb, name), glb[name], objects=True)
        for _name, cell in cells:
            _guard(g.checks, Get("cell", cell), cell.cell_contents, objects=True)
        for m in modules.values():
            d = m.__dict__
            for name, value in d.items():
                if name != "training" and not name.startswith("__"):
                    _guard(g.checks, Get("attr", m, name), value, objects=False)
            for store in ("_parameters", "_buffers"):
                for name, value in d.get(store, {}).items():
                    g.checks.append(("is", Get("item", d[store], name), value))


_PY = (int, float, bool, str, complex, type(None))
_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME", "STORE_NAME"})


def _is_module(v) -> bool:
    return isinstance(getattr(v, "_modules", None), dict) and hasattr(v, "modules") and hasattr(v, "training")


def _reach(fn) -> tuple:
    """What `fn`'s own code reaches besides its arguments: (its globals dict, the global names it reads
    that are bound, its non-empty closure cells as (name, cell), the modules of a compiled module)."""
    target = getattr(fn, "__func__", fn)
    owner = getattr(fn, "__self__", None)
    owned = []
    if owner is not None and _is_module(owner):
        owned = list(owner.modules())
        target = getattr(type(owner), "forward", target)
    code = getattr(target, "__code__", None)
    if code is None:
        return {}, [], [], owned
    glb = getattr(target, "__globals__", {})
    names = [n for n in sorted(_names(code)) if n in glb]
    cells = []
    for name, cell in zip(code.co_freevars, getattr(target, "__closure__", None) or ()):
        try:
            _ = cell.cell_contents
        except ValueError:  # an empty cell (a name bound later)
            continue
        cells.append((name, cell))
    return glb, names, cells, owned


def _snap(v):
    """What `_changed` compares of one value: numbers and strings by value, containers by their items' identity."""
    if _python_value(v):
        return ("v", v)
    if type(v) is list:
        return ("seq", tuple(v))
    if type(v) is dict:
        return ("map", tuple(v.items()))
    return ("o", v)


def _python_state(fn, args: tuple, kwargs: dict) -> dict:
    """The Python state a capture could change and a replay would not change again: the globals and closure
    cells `fn` names, the list and dict arguments' items, and the attributes of the modules reached."""
    glb, names, cells, owned = _reach(fn)
    state: dict = {}
    modules = {id(m): m for m in owned}
    for name in names:
        state[f"global {name}"] = _snap(glb[name])
        if _is_module(glb[name]):
            modules.update((id(m), m) for m in glb[name].modules())
    for name, cell in cells:
        state[f"closure variable {name}"] = _snap(cell.cell_contents)
        if _is_module(cell.cell_contents):
            modules.update((id(m), m) for m in cell.cell_contents.modules())

    def walk(a, path: str) -> None:
        if type(a) in (list, dict):
            state[path] = _snap(a)
        if isinstance(a, (list, tuple)):
            for i, v in enumerate(a):
                walk(v, f"{path}[{i}]")
        elif isinstance(a, dict):
            for k, v in a.items():
                walk(v, f"{path}[{k!r}]")
        elif _is_module(a):
            modules.update((id(m), m) for m in a.modules())
    for i, a in enumerate(args):
        walk(a, f"argument {i}")
    for k, v in kwargs.items():
        walk(v, f"argument {k!r}")
    for m in modules.values():
        for name, v in m.__dict__.items():
            if name in ("_parameters", "_buffers", "_modules"):
                v = dict(v)
            state[f"{type(m).__name__}.{name}"] = _snap(v)
    return state


def _changed(before: dict, after: dict) -> str | None:
    """The first entry of `before` that `after` does not have the same (identical objects, equal values)."""
    for key, (kind, old) in before.items():
        new_kind, new = after.get(key, (None, None))
        if kind != new_kind:
            return key
        if kind == "v":
            if type(old) is not type(new) or old != new:
                return key
        elif kind == "o":
            if old is not new:
                return key
        elif kind == "map" and (len(old) != len(new) or any(
                k1 != k2 or v1 is not v2 for (k1, v1), (k2, v2) in zip(old, new))):
            return key
        elif kind == "seq" and (len(old) != len(new) or any(v1 is not v2 for v1, v2 in zip(old, new))):
            return key
    return None


def _rng_state() -> tuple:
    """The default generators' positions: a draw between two calls changes it."""
    return tuple((id(g), *g._position()) for g in _random._defaults.values())


def _python_value(v) -> bool:
    return isinstance(v, _PY) or (type(v) is tuple and all(_python_value(x) for x in v))


def _guard(checks: list, get: Get, value, objects: bool) -> None:
    """A check of the value `get` reads: by value for Python numbers, strings, None and tuples of them, by
    identity for tensors (and, with `objects`, for any other object but a Python module or a class)."""
    if _python_value(value):
        checks.append(("eq", get, value))
    elif isinstance(value, Tensor) or (objects and not isinstance(value, (types.ModuleType, type))):
        checks.append(("is", get, value))


def _names(code) -> set:
    """The global names `code` and the functions nested in it (lambdas, comprehensions) load or store
    (not attribute names: `opt.step()` does not make a global `step` part of the plan)."""
    names = {i.argval for i in dis.get_instructions(code) if i.opname in _GLOBAL_OPS}
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


def _plain(r):
    """`r` with each `.item()` value of the capture as the plain float a replay returns."""
    if isinstance(r, _HostFloat):
        return float.__float__(r)
    if isinstance(r, dict):
        return {k: _plain(v) for k, v in r.items()}
    if isinstance(r, (list, tuple)):
        return type(r)(_plain(v) for v in r) if type(r) in (list, tuple) else r
    return r


def _tensors_in(r):
    """The tensors of an output tree, in order."""
    if isinstance(r, Tensor):
        yield r
    elif isinstance(r, dict):
        for v in r.values():
            yield from _tensors_in(v)
    elif isinstance(r, (list, tuple)):
        for v in r:
            yield from _tensors_in(v)
