"""`compile`: a function or module wrapped in a cache of captured plans keyed by guards.

NOTE [ Guards and the plan cache ]
A call's guards are computed from its arguments before anything runs: for every tensor among
them (inside tuples, lists and dicts too) its shape, strides, dtype, device, `requires_grad`, whether
it is a leaf (a backward inside binds a leaf's `.grad`, and flows into a non-leaf's history) and
which earlier argument shares its storage; for every Python number, string or None its type and
value (a float zero or NaN by its bits: -0.0 is not 0.0, every NaN is one value); for any other
object its identity; the grad mode, inference mode, autocast state and
default dtype; for a compiled module, the `.training` flag of each of its modules. Equal guards
pick the same cache entry. An entry runs eagerly until its `config.capture_call`-th call, which
is captured (it runs eagerly too, recording); later calls replay. A replay first tests what the capture found that no
argument shows: each parameter's `.grad` (None, set, or the very tensor the plan updates),
`requires_grad` of the constants, the `.training` of modules whose forward ran; a failed test
captures again. When a new set of guards would pass `config.cache_size_limit` plans, the call
runs eagerly, with one warning naming the guard that differed from the last plan's, as
torch._dynamo's recompile limit. A plan that branches on a tensor's value (NOTE [ Branches on
tensor values ] in `ember.jit.capture`) is one of an entry's plans, one per path: a replay whose
guard finds another value returns `DIVERGED` and the next plan is tried; where none takes the
call's path, the call is captured as a new plan (up to `config.cache_size_limit` captures per entry;
past them such calls run eagerly, with one warning). A capture that hits a graph break (`Recorder.brk`) splits the
function there into compiled segments with the breaking statement run eagerly between them (NOTE [ Compiled
segments ] in `ember.jit.segments`): the entry's later calls run the split. Where it cannot be split the entry stays
eager for good, with the reason kept for `explain`; with `fullgraph=True` the capture raises `Unsupported` instead.
Bad arguments fail their guards, so they run eagerly and raise eager's error.

NOTE [ Python values guarded ]
Python runs only at capture, so a value the function reads from outside its arguments would be
frozen. The replay therefore also tests, before running (`Recorder._guard_python`): the globals
the function's own code names (nested lambdas and comprehensions too) and its closure cells, by
value for Python numbers, strings, None and tuples of them and by identity for anything else
but Python modules and classes; for each module whose forward ran (and each module of a compiled
module) its number/string attributes by value and its parameters, buffers and tensor attributes
by identity. A tensor is read by identity at replay, so an update in place needs no new plan,
while rebinding (`self.buf = new`, a global `w = ...`) captures again. A plan whose checks fail
`config.cache_size_limit` times (a global counter that changes every call) runs eagerly from then
on, with one warning.

NOTE [ The cost of a replay ]
On a 10-op chain over 10×10 the fused kernel computes for about 2 µs, so the Python around a
replay decides the figure. Three paths keep it small, each answering as the general one would:
- the guards of a call whose arguments are all tensors and Python scalars (exact types) are
  computed in one loop (`_fast_values`), with the device as (type, index) (its `__hash__` is Python);
  a compiled module's `.training` flags are read through the `_modules` dicts (`_training_flags`);
- the entry a call replayed becomes `_hot`, with a generated `check` of its key (`_guard_check`):
  the next call tests each guard value where it reads it (shape, strides, dtype, device, grad mode
  ...) and calls the replay, without building the key, hashing it or looking it up; any difference
  takes the general path, which finds or makes the entry (a test holds `check` equal to key equality);
- a fused group's call is generated for its arity (NOTE [ A fused kernel's launch ] in
  `ember.jit.launch`), and a view of a constant is made once at codegen and reused while the
  constant's storage and offset stay (`Graph.codegen`), keeping its cached numpy view.

NOTE [ Dynamic shapes ]
A plan is made for the shapes it was captured with: its non-tensor arguments (`view(B * T, C)`), the
engine's gradient shapes and its fused kernels' geometry are those shapes', and ember's capture has no
symbolic sizes. So each new shape is a new plan, captured at the shape's second call as any new guards
are. PyTorch's `dynamic=None` (the default) marks a dimension dynamic once it changes and stops
recompiling; ember keeps the shapes it saw last: with `dynamic` None or True, a new shape past
`config.cache_size_limit` plans replaces the least recently used plan that differs from it only in
tensor shapes and strides (recency counted on the calls that take the general path; the plan replayed
last counts as the most recent), so variable batch or sequence lengths keep replaying the recent ones
and never fall back to eager for good. `dynamic=False` keeps PyTorch's recompile limit: past it, calls
with new guards run eagerly, with one warning. Guards other than shapes (a dtype, a Python value, grad
mode) count towards the limit either way. `evictions` counts the plans dropped.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import sys
import types
import warnings
import weakref

from ember.autograd import amp as _amp
from ember.autograd.grad_mode import _enabled, _inference
from ember.core import dtypes as _dtypes
from ember.core.tensor import Tensor

from ember.jit import config
from ember.jit import background, capture
from ember.jit import segments
from ember.jit.capture import Recorder
from ember.jit.graph import DIVERGED, MISS

__all__ = ["compile", "explain", "reset", "is_compiling", "CompiledFunction", "CompiledModule", "ExplainOutput"]

_ALL: weakref.WeakSet = weakref.WeakSet()  # every compiled function, for `reset`

_SCALARS = (int, float, bool, str, complex, type(None))
# a float argument is guarded by value, but 0.0 == -0.0 and nan != nan: a zero or NaN is keyed by
# `float.hex` instead, so `f(x, -0.0)` does not replay the plan of `f(x, 0.0)` (the sign of x * -0.0 differs)
# and every NaN finds one plan (before, each NaN was a new key until the cache limit)
_SCALAR_TYPES = frozenset(_SCALARS)
_NO = object()  # a generated guard check's answer where the guards differ
_CHECK_MAX_TENSORS = 8  # a generated check tests each pair of tensor arguments for shared storage: not for more


def _flatten(x, path, labels: list | None, values: list, tensors: list, storages: dict) -> None:
    """Append `x`'s guard values (and, when `labels` is a list, their names: only a warning needs them)."""
    if isinstance(x, Tensor):
        st = x._storage
        dev = st.device
        values.append((x._shape, x._strides, x._dtype, dev.type, dev.index, x._requires_grad,
                       storages.get(id(st), -1), x._requires_grad and x._grad_fn is None))
        storages.setdefault(id(st), len(tensors))
        tensors.append(x)
    elif isinstance(x, (list, tuple)):
        values.append((type(x), len(x)))
        if labels is not None:
            labels.append(f"{path} (a {type(x).__name__})")
        for i, v in enumerate(x):
            _flatten(v, None if labels is None else f"{path}[{i}]", labels, values, tensors, storages)
        return
    elif isinstance(x, dict):
        values.append(tuple(x))
        if labels is not None:
            labels.append(f"{path} (a dict)")
        for k, v in x.items():
            _flatten(v, None if labels is None else f"{path}[{k!r}]", labels, values, tensors, storages)
        return
    elif isinstance(x, _SCALARS):
        values.append((type(x), float.hex(x) if isinstance(x, float) and (x != x or x == 0.0) else x))
    else:
        values.append(("object", id(x)))
    if labels is not None:
        labels.append(path)


def _objects(x):
    """The objects among the arguments that are guarded by identity (not tensors, containers or scalars)."""
    if isinstance(x, (list, tuple)):
        for v in x:
            yield from _objects(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _objects(v)
    elif not isinstance(x, (Tensor, *_SCALARS)):
        yield x


def _fast_values(args: tuple, values: list, tensors: list) -> bool:
    """`_flatten` of every argument into `values` and `tensors`, for the common call whose arguments are all
    tensors and Python scalars (exactly `int`, `float` ...); False, having appended nothing that counts, for
    any other (the caller starts again with `_flatten`). One loop, no recursion, no storage dict until a
    second tensor comes (NOTE [ The cost of a replay ])."""
    storages = None
    for a in args:
        if isinstance(a, Tensor):
            st = a._storage
            dev = st.device
            rg = a._requires_grad
            if not tensors:
                alias = -1
            else:
                if storages is None:
                    storages = {id(tensors[0]._storage): 0}
                alias = storages.get(id(st), -1)
                if alias < 0:
                    storages[id(st)] = len(tensors)
            values.append((a._shape, a._strides, a._dtype, dev.type, dev.index, rg, alias,
                           rg and a._grad_fn is None))
            tensors.append(a)
        elif type(a) in _SCALAR_TYPES:
            values.append((type(a), a.hex() if type(a) is float and (a != a or a == 0.0) else a))
        else:
            return False
    return True


def _training_flags(m) -> tuple:
    """`bool(s.training)` of each module of `m.modules()`, in its order (depth first, each module once), read
    through the `_modules` dicts without `named_modules`' generators and dotted names: 1.2 µs a module there,
    a call's largest guard for a compiled model. A module without `_modules` is walked by `modules()`."""
    flags = []
    seen = set()
    todo = [m]
    while todo:
        s = todo.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        flags.append(bool(s.training))
        subs = getattr(s, "_modules", None)
        if not isinstance(subs, dict):
            return tuple([bool(s.training) for s in m.modules()])
        if subs:
            todo += [c for c in reversed(subs.values()) if c is not None]
    return tuple(flags)


def _is_tensor_guard(v) -> bool:
    return type(v) is tuple and len(v) == 8 and type(v[0]) is tuple and type(v[1]) is tuple and type(v[5]) is bool


def _shape_free(key: tuple) -> tuple:
    """`key` with each tensor's shape and strides replaced by its number of dimensions."""
    return tuple((len(v[0]), *v[2:]) if _is_tensor_guard(v) else v for v in key)


def _guard_check(key: tuple, n_args: int, module, entry: _Entry | None = None):
    """`check(args)`: the tensors among `args` where the guards of a call with these positional arguments (no
    keyword arguments) equal `key`, else None; with `entry`, also `check.fast(args)`: `entry.replay(*tensors)`
    where they hold, else `_NO`. `key` came from `_fast_values`; the generated code compares each guard
    value where it is read instead of building the key and hashing it (NOTE [ The cost of a replay ]).
    It answers as `_guards(args, {})[0] == key` would (an item equal by identity or `==`): a test holds the
    two equal."""
    g: dict = {"_Tensor": Tensor, "_enabled": _enabled, "_inference": _inference, "_amp": _amp,
               "_autocast": _autocast, "_default_dtype": _dtypes.get_default_dtype, "_m": module, "_e": entry,
               "_flags": _training_flags, "_hex": float.hex, "_NO": _NO}

    def const(v) -> str:
        name = f"_k{len(g)}"
        g[name] = v
        return name

    def eq(expr: str, v) -> str:
        if v is None or type(v).__eq__ is object.__eq__:  # equal only when identical (a dtype)
            return f"{expr} is {'None' if v is None else const(v)}"
        if type(v) in (bool, str) or type(v) is tuple and all(type(x) is int for x in v):
            return f"{expr} == {v!r}"  # no NaN, nothing that differs from itself
        return f"((_v := {expr}) is {(k := const(v))} or _v == {k})"

    conds: list[str] = []
    tensors: list[int] = []  # the argument index of each tensor
    for i, v in enumerate(key[:n_args]):
        a = f"a{i}"
        if len(v) == 8:  # a tensor: shape, strides, dtype, device type and index, requires_grad, alias, leaf
            shape, strides, dtype, dev_type, dev_index, rg, alias, leaf = v
            conds += [f"isinstance({a}, _Tensor)", eq(f"{a}._shape", shape), eq(f"{a}._strides", strides),
                      eq(f"{a}._dtype", dtype), eq(f"(_d{i} := (_s{i} := {a}._storage).device).type", dev_type),
                      eq(f"_d{i}.index", dev_index), eq(f"{a}._requires_grad", rg)]
            if rg:
                conds.append(f"({a}._grad_fn is None) == {leaf}")
            elif leaf is not False:  # `rg and ...` is rg itself when rg is falsy
                conds.append("False")
            if alias >= 0:  # the first tensor on this storage (whose own checks say it is the first)
                conds.append(f"_s{i} is _s{tensors[alias]}")
            else:
                conds += [f"_s{i} is not _s{t}" for t in tensors]
            tensors.append(i)
        elif issubclass(v[0], float) and isinstance(v[1], str):  # a zero or NaN float: by its bits, as keyed
            conds += [f"type({a}) is {const(v[0])}", f"_hex({a}) == {v[1]!r}"]
        else:  # a Python scalar: its type and value
            conds += [f"type({a}) is {const(v[0])}", eq(a, v[1])]
    enabled, inference, autocast, default = key[n_args + 1:n_args + 5]  # after the keywords' names: ()
    amp = "not _amp._enabled_count" if autocast is None else f"_amp._enabled_count and {eq('_autocast()', autocast)}"
    conds += [eq("_enabled.get()", enabled), eq("_inference.get()", inference), amp, eq("_default_dtype()", default)]
    if module is not None:
        conds.append(eq("_flags(_m)", key[n_args + 5]))
    ts = "".join(f"a{t}, " for t in tensors)
    load = "".join(f"        a{i} = args[{i}]\n" for i in range(n_args))
    test = f"    if len(args) == {n_args}:\n{load}        if {' and '.join(conds)}:\n"
    src = (f"def check(args):\n{test}            return ({ts})\n    return None\n\n\n"
           f"def fast(args):\n{test}            return _e.replay({ts})\n    return _NO\n")
    exec(builtins.compile(src, "<ember.jit guard check>", "exec"), g)
    check = g["check"]
    check.fast = g["fast"]
    check.source = src
    return check


def _describe(value) -> str:
    if isinstance(value, tuple) and len(value) == 8 and isinstance(value[0], tuple):
        shape, strides, dtype, dev_type, dev_index, rg, alias, leaf = value
        dev = dev_type if dev_index is None else f"{dev_type}:{dev_index}"
        s = f"Tensor(shape={shape}, strides={strides}, dtype={dtype}, device={dev}, requires_grad={rg}"
        s += ", a leaf" if leaf else (", not a leaf" if rg else "")
        return s + (f", sharing storage with tensor argument {alias})" if alias >= 0 else ")")
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], type):
        return repr(value[1]) if value[0] not in (list, tuple) else f"{value[0].__name__} of {value[1]}"
    return repr(value)


def _autocast() -> tuple:
    return tuple((d, _amp.is_autocast_enabled(d), _amp.get_autocast_dtype(d)) for d in ("cpu", "cuda"))


class _Entry:
    """The cache entry of one set of guards: its calls, its plans (one per path through the branches on
    tensor values) or why it has none."""

    __slots__ = ("key", "calls", "plans", "replay", "broken", "captures", "keep", "check", "warned", "unplanned",
                 "used", "split")

    def __init__(self, key: tuple) -> None:
        self.key = key
        self.calls = 0
        self.plans: list[tuple] = []  # (graph, replay function)
        self.replay = None  # the one plan's replay, or `_replay_paths` trying each; None without a plan
        self.broken: str | None = None
        self.captures = 0
        self.keep: list = []  # the objects guarded by identity, held so that no other object takes their id
        self.check = None  # `_guard_check` of `key`, made once the entry has a plan (False: none)
        self.warned = False  # the warning that new paths run eagerly was given
        self.unplanned: str | None = None  # why a call on a path without a plan runs eagerly (a break on that path)
        self.used = 0  # the compiled function's call count at this entry's last call (NOTE [ Dynamic shapes ])
        self.split: segments.Split | None = None  # the function split at its break: the calls run it

    def set_plans(self, plans: list) -> None:
        self.plans = plans
        self.replay = None if not plans else plans[0][1] if len(plans) == 1 else self._replay_paths

    def swap(self, plain, fused) -> None:
        """Put the fused replay in place of its unfused one, if that plan is still this entry's (called from the
        thread that compiled its kernels: NOTE [ Fused kernels compiled in the background ])."""
        self.set_plans([(g, fused if fn is plain else fn) for g, fn in self.plans])

    def _replay_paths(self, *tensors):
        """Each plan in turn: the first that does not diverge answers (MISS where its checks failed);
        DIVERGED where every plan took another path."""
        for _graph, replay in self.plans:
            r = replay(*tensors)
            if r is not DIVERGED:
                return r
        return DIVERGED


class CompiledFunction:
    """`fn` with capture and replay (what `ember.jit.compile(fn)` returns)."""

    def __init__(self, fn, *, fullgraph: bool = False, dynamic: bool | None = None, mode: str | None = None,
                 module=None) -> None:
        self.__wrapped__ = fn
        self._fullgraph = fullgraph
        self._dynamic = dynamic
        self._mode = mode
        self._module = module
        self._cache: dict[tuple, _Entry] = {}
        self._last_key: tuple | None = None
        self._hot: _Entry | None = None  # the last call's entry, whose `check` the next call tries first
        self._tick = 0  # calls that took the general path: entries' recency (NOTE [ Dynamic shapes ])
        self._warned = False
        self.captures = 0  # how many captures ran (each one a call run eagerly while recording)
        self.evictions = 0  # plans of other shapes dropped for new ones (NOTE [ Dynamic shapes ])
        self._splits: dict[int, segments.Split] = {}  # break line -> the split there (NOTE [ Compiled segments ])
        self._segment_depth = 0  # how many splits made this function (a segment of a segment ...)
        self._name = type(module).__name__ if module is not None else getattr(fn, "__qualname__", repr(fn))
        functools.update_wrapper(self, fn)
        _ALL.add(self)

    def __deepcopy__(self, memo: dict) -> CompiledFunction:
        """A copy over the copied function (a method of a copied module: of the copy), with no plans yet."""
        import copy

        return CompiledFunction(copy.deepcopy(self.__wrapped__, memo), fullgraph=self._fullgraph,
                                dynamic=self._dynamic, mode=self._mode, module=copy.deepcopy(self._module, memo))

    def __reduce__(self):
        """Pickled as the function and its options; the unpickled copy captures anew."""
        return _rebuild, (self.__wrapped__, self._fullgraph, self._dynamic, self._mode, self._module)

    def _guards(self, args: tuple, kwargs: dict, labels: list | None = None) -> tuple[tuple, list]:
        """The guard values of a call (and its tensors, in order); their names go into `labels` if given."""
        values: list = []
        tensors: list = []
        named = labels is not None
        if named or kwargs or not _fast_values(args, values, tensors):
            values.clear()
            tensors.clear()
            storages: dict = {}
            for i, a in enumerate(args):
                _flatten(a, f"argument {i}" if named else None, labels, values, tensors, storages)
            for k, v in kwargs.items():
                _flatten(v, f"argument {k!r}" if named else None, labels, values, tensors, storages)
        m = self._module
        key = (*values, tuple(kwargs), _enabled.get(), _inference.get(),
               _autocast() if _amp._enabled_count else None, _dtypes.get_default_dtype(),
               *(() if m is None else (_training_flags(m),)))
        if named:
            labels += ["the keyword arguments' names", "grad mode", "inference mode", "autocast", "the default dtype"]
            if m is not None:
                labels.append("the modules' .training flags")
        return key, tensors

    def __get__(self, obj, objtype=None):
        """A compiled function defined in a class body (`@compile` on a method) binds as the function would."""
        return self if obj is None else types.MethodType(self, obj)

    def __call__(self, *args, **kwargs):
        if capture._active:  # inside another function's capture: its recorder must see these ops
            return self.__wrapped__(*args, **kwargs)
        hot = self._hot
        if hot is not None and not kwargs:  # the last call's plan: its guards tested where read, then its replay
            r = hot.check.fast(args)  # NOTE [ The cost of a replay ]
            if r is not _NO and r is not MISS and r is not DIVERGED:
                return r
        if _force_eager:  # `torch.compiler.set_stance("force_eager")`: no plan runs (and `_hot` stays None)
            return self.__wrapped__(*args, **kwargs)
        key, tensors = self._guards(args, kwargs)
        try:
            entry = self._cache.get(key)
        except TypeError:  # an unhashable Python value among the arguments
            return self.__wrapped__(*args, **kwargs)
        if entry is None:
            if len(self._cache) >= config.cache_size_limit and not (self._dynamic is not False and
                                                                    self._evict_shape_variant(key)):
                self._warn_limit(key, args, kwargs)
                return self.__wrapped__(*args, **kwargs)
            entry = self._cache[key] = _Entry(key)
            entry.keep = [o for a in (args, tuple(kwargs.values())) for o in _objects(a)]
        self._last_key = key
        self._hot = None
        self._tick += 1
        entry.used = self._tick
        entry.calls += 1
        if entry.replay is not None:
            r = entry.replay(*tensors)
            if r is DIVERGED:  # a path through a branch on a tensor value that no plan took
                if entry.unplanned is not None:
                    return self.__wrapped__(*args, **kwargs)
                if entry.captures >= config.cache_size_limit:
                    self._warn_paths(entry)
                    return self.__wrapped__(*args, **kwargs)
                return self._capture(entry, tensors, args, kwargs)
            if r is not MISS:
                if entry.check is None:  # made once; False where the general path must answer
                    tensors_ok = sum(isinstance(a, Tensor) for a in args) <= _CHECK_MAX_TENSORS
                    entry.check = not kwargs and tensors_ok and _fast_values(args, [], []) and \
                        _guard_check(key, len(args), self._module, entry)
                self._hot = entry if entry.check else None
                return r
            entry.set_plans([])  # what the plans assumed changed: capture again
            entry.unplanned = None
            if entry.captures >= config.cache_size_limit:
                entry.broken = (f"the plan's run-time checks failed {entry.captures} times (config.cache_size_limit): "
                                "a global, closure variable or module attribute it reads, a .grad or a .training "
                                "flag keeps changing; calls run eagerly")
                warnings.warn(f"ember.jit: {self._name}: "
                              f"{entry.broken}", RuntimeWarning, stacklevel=2)
        if entry.split is not None:
            return entry.split(*args, **kwargs)
        if entry.broken is not None:
            return self.__wrapped__(*args, **kwargs)
        try:
            if entry.calls < config.capture_call and self._fullgraph:  # PyTorch raises at the first call
                return Recorder(True).run(self.__wrapped__, tensors, args, kwargs, check_only=True)
            if entry.calls < config.capture_call:
                _eager_calls.append(self)  # is_compiling() answers True there, as in PyTorch's traced call
                try:
                    return self.__wrapped__(*args, **kwargs)
                finally:
                    _eager_calls.pop()
            return self._capture(entry, tensors, args, kwargs)
        except BaseException:
            if entry.replay is None and entry.broken is None and entry.split is None:  # bad input: eager's error
                self._cache.pop(entry.key, None)
            raise

    def _capture(self, entry: _Entry, tensors: list, args: tuple, kwargs: dict):
        rec = Recorder(self._fullgraph)
        self.captures += 1
        entry.captures += 1
        result = rec.run(self.__wrapped__, tensors, args, kwargs)
        if rec.broken is not None and entry.plans:  # this path breaks; the others keep their plans
            entry.unplanned = rec.broken
        elif rec.broken is not None:
            split = segments.split(self, rec.break_stack, rec.broken)
            if isinstance(split, segments.Split):
                entry.split = split
            else:
                entry.broken = f"{rec.broken} (the call runs eagerly: no segments, {split})"
        else:
            replay = rec.graph.compile(tiered=True)
            entry.set_plans(entry.plans + [(rec.graph, replay)])
            if rec.graph.deferred is not None:
                (todo, fused), rec.graph.deferred = rec.graph.deferred, None  # the thread holds them from here
                background.start(todo, lambda: entry.swap(replay, fused))
        return result

    def _evict_shape_variant(self, key: tuple) -> bool:
        """Make room for `key` by dropping the least recently used entry that differs from it only in tensor
        shapes and strides (NOTE [ Dynamic shapes ]); False where there is none."""
        sig = _shape_free(key)
        victims = [e for e in self._cache.values() if _shape_free(e.key) == sig]
        if not victims:
            return False
        if self._hot in victims and len(victims) > 1:  # replayed last, by the fast path (its `used` is older)
            victims.remove(self._hot)
        victim = min(victims, key=lambda e: e.used)
        del self._cache[victim.key]
        if self._hot is victim:
            self._hot = None
        self.evictions += 1
        return True

    def _warn_paths(self, entry: _Entry) -> None:
        if not entry.warned:
            entry.warned = True
            warnings.warn(f"ember.jit: {self._name} took {entry.captures} paths through branches on tensor values "
                          f"(config.cache_size_limit); calls taking a path without a plan run eagerly", RuntimeWarning,
                          stacklevel=3)

    def _warn_limit(self, key: tuple, args: tuple, kwargs: dict) -> None:
        if self._warned:
            return
        self._warned = True
        labels: list = []
        self._guards(args, kwargs, labels)
        last = self._last_key or next(iter(self._cache))
        why = "the number of arguments"
        for label, new, old in zip(labels, key, last):
            if new != old:
                why = f"{label}: {_describe(new)}, the last plan has {_describe(old)}"
                break
        warnings.warn(f"ember.jit: {self._name} reached "
                      f"config.cache_size_limit ({config.cache_size_limit}) plans; calls with new guards run eagerly "
                      f"from now on. The failing guard: {why}", RuntimeWarning, stacklevel=3)

    def explain(self) -> ExplainOutput:
        """The plans and graph breaks of this function so far."""
        return ExplainOutput(list(self._cache.values()), self.captures)


def _rebuild(fn, fullgraph, dynamic, mode, module) -> CompiledFunction:
    return CompiledFunction(fn, fullgraph=fullgraph, dynamic=dynamic, mode=mode, module=module)


class CompiledModule:
    """A module whose calls run compiled (`ember.jit.compile(module)`); attributes read through to it."""

    def __init__(self, module, **options) -> None:
        self.__dict__["_orig_mod"] = module
        self.__dict__["__wrapped__"] = module
        self.__dict__["_compiled"] = CompiledFunction(module.__call__, module=module, **options)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str):
        mod = self.__dict__.get("_orig_mod")
        if mod is None:  # not initialised yet (a copy being made)
            raise AttributeError(name)
        return getattr(mod, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self._orig_mod, name, value)

    def explain(self) -> ExplainOutput:
        return self._compiled.explain()

    def __repr__(self) -> str:
        return f"CompiledModule({self._orig_mod!r})"


class ExplainOutput:
    """What `explain` found: the plans (their ops), the graph breaks and why."""

    def __init__(self, entries: list, captures: int) -> None:
        self.plans = [graph for e in entries for graph, _replay in e.plans]
        self.break_reasons = [e.broken if e.broken is not None else e.unplanned for e in entries
                              if e.broken is not None or e.unplanned is not None]
        self.splits = list({id(e.split): e.split for e in entries if e.split is not None}.values())  # shared by lines
        self.break_reasons += [f"{s.reason} (split into {len(s.segments)} segments at line {s.line})"
                               for s in self.splits]
        # the segments of each split, as (kind, (first line, last line), its ExplainOutput or None where eager)
        self.segments = [(seg.kind, seg.lines, seg.call.explain() if seg.kind == "compiled" else None)
                         for s in self.splits for seg in s.segments]
        subs = [ex for _k, _l, ex in self.segments if ex is not None]
        captures += sum(ex.captures for ex in subs)
        self._own_breaks = len(self.break_reasons)  # the segments' own are printed under each segment
        self.break_reasons += [r for ex in subs for r in ex.break_reasons]
        # as torch._dynamo's explain: the graphs around the breaks count, the segments' own breaks too
        self.graph_count = len(self.plans) + sum(ex.graph_count for ex in subs)
        self.graph_break_count = len(self.break_reasons)
        self.captures = captures
        self.ops_per_graph = [g.op_names() for g in self.plans]

    def __str__(self) -> str:
        lines = [f"Graph count: {self.graph_count}", f"Graph break count: {self.graph_break_count}",
                 f"Captures: {self.captures}"]
        for i, (g, ops) in enumerate(zip(self.plans, self.ops_per_graph)):
            how = " (through autograd: the outputs need a history)" if g.through_autograd else ""
            lines.append(f"Plan {i}{how}: {len(ops)} nodes: {', '.join(ops)}")
            lines.append(f"  {_arena_line(g)}")
            if g.backward is not None:
                bops = g.backward.graph.op_names()
                lines.append(f"  its captured backward: {', '.join(bops)}")
                lines.append(f"  its backward's {_arena_line(g.backward.graph)}")
        for r in self.break_reasons[:self._own_breaks]:
            lines.append(f"Break: {r}")
        for s in self.splits:
            lines += s.describe()
        return "\n".join(lines)

    __repr__ = __str__


def _arena_line(g) -> str:
    """What `explain` says of a plan's arena (NOTE [ The replay's arena ] in `ember.jit.arena`)."""
    a = g.arena
    if a is None:
        return "arena: not planned (config.plan_memory is off)"
    return f"arena: {a.nbytes} bytes for {len(a.slots)} intermediates"


def compile(model=None, *, fullgraph: bool = False, dynamic: bool | None = None, mode: str | None = None,  # noqa: A001
            **kwargs):
    """Capture `model` (a function or a module) once and replay its kernels on later calls.

    Args:
        model: the function, or a module (its calls are compiled); None returns a decorator.
        fullgraph: raise `ember.jit.Unsupported` at a graph break instead of running eagerly.
        dynamic: False: each new shape is a new plan, up to `config.cache_size_limit`, then eager (one
            warning); None (the default) or True: past the limit, a new shape replaces the least recently used
            plan that differs from it only in shapes (NOTE [ Dynamic shapes ]).
        mode: accepted for PyTorch's signature ("default", "reduce-overhead", "max-autotune").

    Returns:
        A callable with the signature of `model` (`CompiledFunction` or `CompiledModule`).

    Raises:
        TypeError: `model` is not callable.

    Example:
        >>> import ember.autograd as ea
        >>> f = compile(lambda x: (x * 2).exp())
        >>> [round(v, 3) for v in f(ea.zeros(2)).tolist()]
        [1.0, 1.0]
    """
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, mode=mode, **kwargs)
    if not callable(model):
        raise TypeError(f"compile(): model must be a callable function or module, not {type(model).__name__}")
    options = {"fullgraph": fullgraph, "dynamic": dynamic, "mode": mode}
    if hasattr(model, "modules") and hasattr(model, "training"):
        return CompiledModule(model, **options)
    return CompiledFunction(model, **options)


def reset() -> None:
    """Forget every compiled function's plans, breaks and warnings (as `torch._dynamo.reset()`): later
    calls run eagerly and capture again."""
    for c in list(_ALL):
        c._cache.clear()
        c._splits.clear()
        c._last_key = None
        c._hot = None
        c._warned = False


_force_eager: bool = False  # every compiled function runs eagerly (`set_force_eager`)


def set_force_eager(flag: bool) -> bool:
    """Make every compiled function run eagerly (True) or replay again (False), as PyTorch's stance
    "force_eager"; returns the previous setting. The plans are kept."""
    global _force_eager
    prev, _force_eager = _force_eager, bool(flag)
    for c in list(_ALL):
        c._hot = None
    return prev


_eager_calls: list = []  # compiled functions running a first call eagerly (before their capture)
_paused: list = []  # calls of functions `compiler.disable` wrapped: their Python is not compiled


def is_compiling() -> bool:
    """True while a compiled function's Python runs (its first calls and its capture; a replay runs none),
    False inside a function `torch.compiler.disable` wrapped, as `torch.compiler.is_compiling`."""
    return bool(capture._active or _eager_calls) and not _paused


@contextlib.contextmanager
def paused():
    """`is_compiling()` answers False in the block (a `torch.compiler.disable`d function's call)."""
    _paused.append(True)
    try:
        yield
    finally:
        _paused.pop()


def graph_break(msg: str = "") -> None:
    """End the capture running here, as `torch._dynamo.graph_break()`: the statement then runs eagerly at
    every call (with `fullgraph=True`, `Unsupported`). Outside a capture, nothing."""
    for rec in capture._active:
        if rec.active:
            rec.brk(msg or "a call to graph_break()", sys._getframe(1))


def explain(fn, *args, **kwargs) -> ExplainOutput:
    """Capture `fn(*args, **kwargs)` once (it runs) and say what was captured and where it broke.

    A compiled function or module is called with the arguments and reports its whole cache.

    Example:
        >>> import ember.autograd as ea
        >>> print(explain(lambda x: float(x.sin()), ea.ones(1)).graph_break_count)
        1
    """
    if isinstance(fn, (CompiledFunction, CompiledModule)):
        fn(*args, **kwargs)
        return fn.explain()
    c = compile(fn)
    target = c._compiled if isinstance(c, CompiledModule) else c
    key, tensors = target._guards(args, kwargs)
    entry = target._cache[key] = _Entry(key)
    entry.calls = config.capture_call
    target._capture(entry, tensors, args, kwargs)
    return target.explain()
