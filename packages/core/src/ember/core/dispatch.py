"""The op registry and dispatcher.

NOTE [ Ops and dispatch ]
Every primitive op is an `Op`, declared once (name, numpy reference, flags) and registered
under its name. Device kernels register against it (`@op.register("cpu")`); an `"any"` kernel
serves every device without a kernel of its own (NOTE [ Composite kernels ]). Calling an op goes
through the hook chain first: a layer above core (autograd, a profiler) installs a hook with
`register_dispatch_hook(hook)` (or beneath every other hook with `innermost=True`: ember.jit's
capture); a hook is called as `hook(op, args, kwargs, call_next)` and continues below itself
with `call_next(op, args, kwargs)`. `Op.__call__` calls the newest hook
directly (no wrapper frame between them); the oldest hook's `call_next` is `Op.redispatch`
itself. Without hooks, a call costs one global lookup and one dict lookup before the kernel runs.
On the meta device an op without an `"any"` kernel goes to `ember.core.meta.run_on_meta`
(NOTE [ The meta device ]).

Flags the layers above read:
- `out=` (a keyword of elementwise and reduction kernels) is written in place; the dispatcher
  bumps its storage's version counter.
- `mutates` is the tuple of positional arguments an op writes in place: `(0,)` for `copy_`,
  `fill_`, `index_put_`; `(0, 2, 3)` for an optimizer step that also updates its state tensors.
  The dispatcher bumps the version of each (a `None` state is skipped), after the kernel, so no
  kernel bumps them itself; the first is the tensor the autograd layer treats as the op's
  in-place target. A write the flags do not declare (batch norm's CPU kernel updating the
  running statistics in training only; `apply_`, which is no op) calls `Storage.bump()`.
- `overlap`: what the written tensor (`out=`, or the first of `mutates`) may share with itself
  and with the inputs, checked before the kernel (NOTE [ Writing into overlapping memory ]).
- `view=True`: the result shares the storage of `args[0]` (and its conjugate bit: NOTE [ Complex
  storage and conj ] in `ember.core.ops.complex`, as is a write into a conjugate view).
- `pieces=fn`: a view op returning a tuple of views made in one pass (unbind, split): `fn(*args)`
  lists, per view, the single-view step `(op, args)` that makes it alone, which autograd keeps
  to rebuild that view from its base (NOTE [ In-place ops and views ] in `ember.autograd.record`).
- `differentiable=False`: the result never carries gradients (comparisons, argmax, ...).
- `complex_error=(exception type, message)`: PyTorch refuses complex operands (`sort`, `digamma`,
  `nansum` ...); the meta step raises it on every device, before the op's own checks. A table
  of ops sets it after their declaration with `op.refuse_complex(...)` (`ember.core.ops.complex`).
- `info=OpInfo(...)`: the op's test metadata (domain, dtypes, samples, errors, reference),
  which the generic tests and the fuzz campaign iterate over (NOTE [ The op table ] in
  `ember.core.opinfo`).
- `mixed_devices=True`: the op takes tensors of another device on purpose (`copy_` from the
  CPU, indexing a CUDA tensor with CPU indices); every other op raises PyTorch's "Expected all
  tensors to be on the same device" naming both devices (CPU 0-dim tensors go along, as scalars).
  `mixed_devices="meta"`: CPU integer tensors (indices) go along with meta operands, as PyTorch's meta
  kernels of the index ops (`embedding`, `index_select`, `gather` ...) never check the index's device.

NOTE [ The meta step ]
An op whose kernels read one operand over a loop bounded by another's shape (scatter's source
over its index, index_add's source over its index ...) declares a `meta` check (`@op.meta`). It
runs in `redispatch`, before whichever device kernel is picked, with the kernel's arguments: the
shapes, dtypes and ranks that bound every memory access are validated once, for CPU and CUDA
alike, and a kernel may take them as given. Index values are checked too: a CPU kernel checks
them as it reads them on the host; for device indices the meta step copies them to the host (a
synchronization, where PyTorch raises a device-side assert) and raises the CPU's error, so an
out-of-range index never reaches a CUDA kernel (gather, scatter*, index_*, take, put, `x[idx]`,
embedding, masked_scatter's count, nll_loss/cross_entropy targets, bincount). The argument rules
PyTorch states once for every device live there too (`where`'s bool condition, `clamp`'s bounds,
`-` on bool, an activation's float input ...): no device kernel repeats them, so CPU and CUDA
raise one type and message (tests/test_meta_steps.py).

NOTE [ Composite kernels ]
An op whose work composes from other ops (a view: only metadata; median: sort, then gather)
registers that composition once, as its `"any"` kernel, instead of once per device: `redispatch`
looks up the device's own kernel and falls back to `"any"` only when there is none, so the lookup
costs an op with a device kernel nothing more. A device may still register a kernel of its own
where it pays: the CPU keeps numpy/Numba kernels beside the sorting family's composites
(`ember.core.ops.sorting_composite`), which CUDA, or any backend with the primitives, runs. The
composite receives arguments its op's meta step has checked, so every device raises the same error.
On CUDA the complex gate (`ember.core.cuda.launch_complex`) wraps device kernels only: a composite
computes complex input where its primitives do (isclose, isin, einsum) and otherwise raises its
primitive's NotImplementedError.

NOTE [ Writing into overlapping memory ]
A kernel that writes a tensor two of whose elements share one address (an `expand`ed tensor,
an `as_strided` with a zero stride) writes each address several times, in an order the device
picks; one that reads an input overlapping its output reads values it has already overwritten.
PyTorch refuses both before the kernel, with one message each, and so does `redispatch`, once
for every device. An op's `overlap` flags say which checks PyTorch makes for it:
- `OVERLAP_INTERNAL`: the written tensor has a dimension of stride 0 and size > 1 (PyTorch's
  `has_internal_overlap` answering YES; other non-dense layouts are "too hard" and pass).
- `OVERLAP_PARTIAL`: an input shares part of the written tensor's memory. The same memory element
  for element (same start, end and strides, as `x.add_(x)`) is allowed, and so is any input or
  output that is not dense (too hard to tell). This and the first are TensorIterator's checks,
  the default (`TENSOR_ITERATOR`).
- `OVERLAP_ANY`: an input shares any of it, the same memory included (gather, index_select, cat:
  PyTorch's `assert_no_overlap`); `OVERLAP_SOURCES`: the same for every input but `args[0]`, the
  tensor an in-place scatter writes (scatter, index_add, index_put_'s values).
- `0`: no check, where PyTorch makes none (`fill_`, `masked_fill`, the sum-like reductions ...).
The common case costs no call: a stride test (`0 in strides`) and a storage identity test per
argument, inline; the checks themselves run only when one of them hits.

A few composite functions matter whole to a layer above, not only through their primitives:
autocast runs `linear`, `addmm` or `mse_loss` in one dtype, bias and all, as PyTorch's op lists
name them. Such a function is declared `@composite("name")`; while a composite hook is set
(`set_composite_hook(hook)`, one at a time), calling it runs `hook(name, fn, args, kwargs)`,
which calls `fn(*args, **kwargs)` itself. Without a hook the cost is one global read.
A composite PyTorch records as one node (`addmm`, `mv`) is declared `@composite("name", one_node=True)`: while
it runs, `SAVES_IN_ARGUMENT_ORDER[0]` is nonzero, and autograd saves its primitives' tensors in argument order,
which is that node's (PyTorch's `AddmmBackward0` saves mat1 before mat2, where `MmBackward0` saves mat2 first).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from ember.core import meta as _meta
from ember.core import storage as _storage
from ember.core.dtypes import TORCH_NAMES
from ember.core.tensor import Tensor

__all__ = ["Op", "declare", "get_op", "registered_ops", "register_dispatch_hook",
           "remove_dispatch_hook", "device_of", "composite", "set_composite_hook", "node_name",
           "SAVES_IN_ARGUMENT_ORDER", "OVERLAP_INTERNAL",
           "OVERLAP_PARTIAL", "OVERLAP_ANY", "OVERLAP_SOURCES", "TENSOR_ITERATOR", "check_overlap"]

# what a written tensor may not share (NOTE [ Writing into overlapping memory ])
OVERLAP_INTERNAL = 1  # two of its own elements
OVERLAP_PARTIAL = 2  # part of an input's memory (the same memory, element for element, is allowed)
OVERLAP_ANY = 4  # any of an input's memory
OVERLAP_SOURCES = 8  # any of the memory of an input after `args[0]`
TENSOR_ITERATOR = OVERLAP_INTERNAL | OVERLAP_PARTIAL
INTERNAL_OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                            "memory location. Please clone() the tensor before performing the operation.")
PARTIAL_OVERLAP_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer "
                           "to a single memory location. Please clone() the tensor before performing the operation.")

_REGISTRY: dict[str, Op] = {}
_hooks: list[Callable] = []
_top: Callable | None = None  # the newest hook, which `Op.__call__` calls first
_top_next: Callable | None = None  # the `call_next` it receives
_composite_hook: Callable | None = None  # hook(name, fn, args, kwargs) around `@composite` functions
_protocol: Callable | None = None  # the `__torch_function__` check, set once a Tensor subclass or a mode exists
# `fallback(name, args, kwargs)`: a refused op's answer for a sparse operand (the function form of a method sparse
# tensors have, `torch.abs(s)`), or NotImplemented; set by ember.core.sparse, asked only once the op has raised
_sparse_fallback: Callable | None = None
# nothing would see an op filling a new tensor: every hook installed leaves such calls alone (`ignores_fresh`) and
# no `__torch_function__` mode is on (plain tensors are in `_SKIP`), so a factory may fill its result with numpy
# directly (creation's fast path); `_rebuild` keeps it
bare = True
# nothing would see a call of an op that is no view and writes nothing, whose tensors are float32/float64 CPU tensors
# of classes in `_SKIP` none of which requires grad (or grad mode is off): every hook installed only passes such a
# call down (`ignores_untracked`: autograd's, the restricted-dtype guards), no `@composite` hook (autocast, the
# profiler) and no mode is on; a composite (`F.linear`) may then compute with its kernels' functions, once it checked
# its operands' classes (a Tensor subclass seen before leaves plain tensors' calls untracked).
# Those hooks other than autograd's pass float32/float64 calls down whether or not they require grad: with
# `untracked`, autograd's hook alone sees such a call, so a composite may record its node itself (NOTE [ One node
# computed outside dispatch ] in ember.autograd.record)
untracked = True
# `record(name, args, result)`: `result`, computed outside dispatch by a composite while `untracked` holds, as op
# `name`'s call of `args` would have made it: autograd (`set_recorder`) records it where an operand requires grad
# (NOTE [ One node computed outside dispatch ] in ember.autograd.record); without autograd, the result itself
record: Callable = lambda name, args, result: result
# classes whose instances never take part in `__torch_function__` (NOTE [ Tensor subclasses ]): the op entry tests
# membership here, no call; ember.core.overrides adds each class it finds not taking part
_SKIP: set = {Tensor, int, float, bool, complex, str, bytes, type(None), type(Ellipsis), slice, dict}
# isinstance against a tuple of types: `list | tuple` written inline builds a Union object per call
_SEQ = (list, tuple)
_PLAIN = frozenset({int, float, bool, complex, str, type(None)})  # argument classes that are never tensors


class Op:
    """A primitive operation: one declaration, one kernel per device."""

    __slots__ = ("name", "kernels", "ref", "mutates", "several_mutated", "view", "tracked_view", "pieces",
                 "differentiable", "doc",
                 "argnames", "method", "mixed_devices", "check", "info", "overlap", "complex_error", "_meta",
                 "_meta_refuses", "__weakref__")

    def __init__(self, name: str, ref: Callable | None = None, *, mutates: tuple[int, ...] = (),
                 view: bool = False, differentiable: bool = True, doc: str = "",
                 argnames: tuple[str, ...] = (), mixed_devices: bool | str = False, info=None,
                 overlap: int = TENSOR_ITERATOR, complex_error: tuple[type, str] | None = None,
                 pieces: Callable | None = None, untracked_view: bool = False) -> None:
        self.name = name
        self.kernels: dict[str, Callable] = {}
        self.ref = ref
        if not isinstance(mutates, tuple):
            raise TypeError(f"op '{name}': mutates must be a tuple of argument positions, not {mutates!r}")
        self.mutates = mutates
        self.several_mutated = len(mutates) > 1  # read per call by the conjugate write path: worked out once
        self.view = view
        # a view autograd tracks (`_base`, in-place rebasing); `untracked_view`: one sharing its input's memory that
        # autograd records as a new tensor (PyTorch's `_unsafe_view` of a result the caller just made)
        self.tracked_view = view and not untracked_view
        self.pieces = pieces  # a multi-view op's steps making each view alone
        self.differentiable = differentiable
        self.doc = doc
        self.argnames = argnames  # PyTorch's names of the leading positional arguments (`input`, `other`)
        self.mixed_devices = mixed_devices
        self.method = _method_of(self)  # what `attach` puts on Tensor: `x.exp()` calls it in one frame
        self.check: Callable | None = None  # the meta step (NOTE [ The meta step ]), after complex_error's
        self._meta: Callable | None = None  # the op's own meta step
        self.complex_error = None  # (exception type, message): PyTorch refuses complex input
        self._meta_refuses = False  # the meta step raises complex_error (else the kernels' complex paths do)
        self.info = info  # the test metadata, an `ember.core.opinfo.OpInfo` (NOTE [ The op table ])
        self.overlap = overlap  # NOTE [ Writing into overlapping memory ]
        if complex_error is not None:
            self.refuse_complex(*complex_error)

    def register(self, device_type: str) -> Callable:
        """Decorator: register `fn` as this op's kernel for `device_type` ("cpu", "cuda" or "any")."""
        def deco(fn):
            self.kernels[device_type] = fn
            return fn
        return deco

    def meta(self, fn: Callable) -> Callable:
        """Decorator: `fn(*args, **kwargs)` validates the operands before any device's kernel runs.
        An op has one meta step: a second one would silently drop the first's checks."""
        if self._meta is not None:
            raise RuntimeError(f"op {self.name!r} already has a meta step ({self._meta.__qualname__}); "
                               f"merge {fn.__qualname__} into it")
        self._meta = fn
        self.check = _refusing_complex(self.complex_error, fn) if self._meta_refuses else fn
        return fn

    def refuse_complex(self, exc: type, message: str, *, in_meta: bool = True) -> None:
        """PyTorch refuses complex tensors as this op's operands: raise `exc(message)` (`{}` in it:
        PyTorch's name of the dtype, `ComplexFloat`) on every device. `in_meta`: the meta step raises
        it, before the op's own checks; else the kernels' complex paths do (`complex_refusal`), as
        for the elementwise families, whose real path must cost no more."""
        self.complex_error = (exc, message)
        self._meta_refuses = in_meta
        if in_meta:
            self.check = _refusing_complex(self.complex_error, self._meta)

    def complex_refusal(self, dt) -> Exception | None:
        """The exception PyTorch raises for a complex operand of dtype `dt`, or None if it computes."""
        if self.complex_error is None:
            return None
        exc, message = self.complex_error
        return exc(message.format(TORCH_NAMES[dt.name]))

    def __call__(self, *args, **kwargs):
        if kwargs and len(args) < len(self.argnames):
            args, kwargs = self._bind(args, kwargs)
        if _protocol is not None:  # plain tensors and scalars: a set membership test each, no call
            for a in args:
                c = a.__class__
                if c not in _SKIP:
                    if c is tuple or c is list:  # dims, shapes, a list of tensors: their items, inline
                        for b in a:
                            if b.__class__ not in _SKIP:
                                return _protocol(self, args, kwargs)
                        continue
                    return _protocol(self, args, kwargs)
            for k in kwargs:
                c = kwargs[k].__class__
                if c not in _SKIP:
                    if c is tuple or c is list:
                        for b in kwargs[k]:
                            if b.__class__ not in _SKIP:
                                return _protocol(self, args, kwargs)
                        continue
                    return _protocol(self, args, kwargs)
        try:  # free until it raises (NOTE [ Sparse tensors beside the dense path ] in ember.core.sparse)
            if _top is not None:
                return _top(self, args, kwargs, _top_next)
            return self.redispatch(args, kwargs)
        except NotImplementedError:
            if _sparse_fallback is None or (out := _sparse_fallback(self.name, args, kwargs)) is NotImplemented:
                raise
            return out

    def _bind(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Move `input=`/`other=`-style keywords into their positions: hooks and kernels see
        inputs positionally, however the user passed them."""
        kwargs = dict(kwargs)
        args = list(args)
        for name in self.argnames[len(args):]:
            if name not in kwargs:
                break
            args.append(kwargs.pop(name))
        return tuple(args), kwargs

    def redispatch(self, args: tuple, kwargs: dict):
        """Run the device kernel, below every hook."""
        dev = "cpu"
        if not _storage.only_cpu:  # else every tensor is on the CPU
            for a in args:  # device_of, inlined: it runs on every op
                if isinstance(a, Tensor):
                    t = a._storage.device.type
                elif isinstance(a, _SEQ) and a and isinstance(a[0], Tensor):
                    t = a[0]._storage.device.type
                else:
                    continue
                if t != "cpu":
                    dev = t
                    if self.mixed_devices is not True:
                        _check_same_device(args, a._storage.device if isinstance(a, Tensor) else a[0]._storage.device,
                                           self.mixed_devices == "meta", self.name)
                    break
        kernel = self.kernels.get(dev)
        if kernel is None:
            if dev == "meta" and ("any" not in self.kernels or self.name in _meta.DATA_DEPENDENT):
                return _meta.run_on_meta(self, args, kwargs)  # NOTE [ The meta device ]
            kernel = self.kernels.get("any")
            if kernel is None:
                raise NotImplementedError(f"{self.name}: no kernel for device type '{dev}'")
        out = kwargs.get("out") if kwargs else None
        written = out if out is not None else (args[self.mutates[0]] if self.mutates else None)
        if written is not None and self.overlap:  # NOTE [ Writing into overlapping memory ], inline
            mode = self.overlap
            # `x.__class__ is Tensor` first: a class test that is no call (isinstance is one)
            if mode & TENSOR_ITERATOR == mode and (written.__class__ is Tensor or isinstance(written, Tensor)):
                if mode & OVERLAP_INTERNAL and 0 in written._strides:
                    _check_internal_overlap(written)
                if mode & OVERLAP_PARTIAL:
                    st = written._storage
                    for a in args:
                        cls = a.__class__
                        if (cls is Tensor or (cls not in _PLAIN and isinstance(a, Tensor))) and a._storage is st \
                                and a is not written:
                            _check_partial_overlap(written, a)
            else:
                check_overlap(mode, written, args)
        if self.check is not None:
            self.check(*args, **kwargs)
        try:
            if written is not None and (written.__class__ is Tensor or isinstance(written, Tensor)) \
                    and (written._conj or written._neg) and not self.several_mutated:
                # NOTE [ Complex storage and conj ]
                result = _complex().write_through_conj(kernel, args, kwargs, written)
            else:
                several = written is not None and written.__class__ in _SEQ  # an out= tuple: the rare path
                if written is not None and self.several_mutated:  # optimizer steps: no call unless conj
                    for i in self.mutates:
                        if args[i] is not None and args[i]._conj:
                            several = True
                if several:
                    result = _write_through_conjs(self, kernel, args, kwargs, out)
                else:
                    result = kernel(*args, **kwargs) if kwargs else kernel(*args)
        except (MemoryError, ValueError) as e:  # numpy failing to allocate: PyTorch's RuntimeError
            err = _storage.allocation_error(e)
            if err is None:
                raise
            raise err from None
        if out is not None:
            if out.__class__ is Tensor or isinstance(out, Tensor):
                out._storage.version += 1
            else:
                _bump(out)
        if self.mutates:
            for i in self.mutates:
                t = args[i]
                if t is not None:
                    t._storage.version += 1
        if self.view:
            a = args[0]
            if (a.__class__ is Tensor or isinstance(a, Tensor)) and (a._conj or a._neg):
                _complex().conj_of_view(self, a, result)
        return result

    def __repr__(self) -> str:
        return f"<op {self.name}>"

    @property
    def __name__(self) -> str:  # what `__torch_function__` implementations read of the `func` they get
        return self.name


def _complex():
    """`ember.core.ops.complex`, which imports this module (the conjugate views' slow paths)."""
    from ember.core.ops import complex as cx

    return cx


def _refusing_complex(error: tuple[type, str], then: Callable | None) -> Callable:
    """The meta step of an op that refuses complex operands, then runs its own meta step `then`."""
    exc, message = error

    def check(*args, **kwargs):
        for a in args:
            if isinstance(a, Tensor) and a._dtype.is_complex:
                raise exc(message.format(TORCH_NAMES[a._dtype.name]))
        if then is not None:
            then(*args, **kwargs)
    return check


def _method_of(op: Op) -> Callable:
    """`op`'s call as a plain function: stored on `Tensor`, it binds in C, without `Op.__get__`."""
    n_named = len(op.argnames)

    def call(*args, **kwargs):
        if kwargs and len(args) < n_named:
            args, kwargs = op._bind(args, kwargs)
        if _protocol is not None:  # as in Op.__call__
            for a in args:
                c = a.__class__
                if c not in _SKIP:
                    if c is tuple or c is list:  # dims, shapes, a list of tensors: their items, inline
                        for b in a:
                            if b.__class__ not in _SKIP:
                                return _protocol(op, args, kwargs)
                        continue
                    return _protocol(op, args, kwargs)
            for k in kwargs:
                c = kwargs[k].__class__
                if c not in _SKIP:
                    if c is tuple or c is list:
                        for b in kwargs[k]:
                            if b.__class__ not in _SKIP:
                                return _protocol(op, args, kwargs)
                        continue
                    return _protocol(op, args, kwargs)
        if _top is not None:
            return _top(op, args, kwargs, _top_next)
        return op.redispatch(args, kwargs)

    call.__name__ = call.__qualname__ = op.name
    call.__doc__ = op.doc or None
    return call


def _check_internal_overlap(t: Tensor) -> None:
    """PyTorch's `assert_no_internal_overlap`: a stride-0 dimension of size > 1 in a non-empty tensor."""
    shape = t._shape
    if 0 in shape:
        return
    for size, stride in zip(shape, t._strides):
        if stride == 0 and size > 1:
            raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)


def _dense(t: Tensor) -> bool:
    """PyTorch's `is_non_overlapping_and_dense`: the elements fill a block of memory, each once."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t._shape, t._strides) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _shares_memory(a: Tensor, b: Tensor, full_allowed: bool) -> bool:
    """PyTorch's overlap status of two tensors of one storage, as a refusal: partial overlap (or
    full, unless `full_allowed`); a tensor that is empty or not dense is too hard to tell and passes."""
    if a is b:
        return not full_allowed
    if 0 in a._shape or 0 in b._shape or not _dense(a) or not _dense(b):
        return False
    a_begin, b_begin = a._offset * a._dtype.itemsize, b._offset * b._dtype.itemsize
    a_end, b_end = a_begin + a.numel() * a._dtype.itemsize, b_begin + b.numel() * b._dtype.itemsize
    if a_begin == b_begin and a_end == b_end and a._strides == b._strides:
        return not full_allowed
    return a_begin < b_end and b_begin < a_end


def _check_partial_overlap(written: Tensor, a: Tensor) -> None:
    if _shares_memory(written, a, True):
        raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)


def check_overlap(mode: int, written, args: tuple) -> None:
    """The overlap checks `mode` of NOTE [ Writing into overlapping memory ] of the tensor (or tuple
    of tensors: sort's values and indices) `written` against the inputs `args`; composites that
    write `out=` through a fresh intermediate (addcmul) call it with their own inputs."""
    for w in (written if isinstance(written, _SEQ) else (written,)):
        if not isinstance(w, Tensor):
            continue
        if mode & OVERLAP_INTERNAL and 0 in w._strides:
            _check_internal_overlap(w)
        st = w._storage
        for i, a in enumerate(args):
            for t in (a if isinstance(a, _SEQ) else (a,)):
                if not isinstance(t, Tensor) or t._storage is not st:
                    continue
                if mode & OVERLAP_ANY or (mode & OVERLAP_SOURCES and i > 0):
                    if _shares_memory(w, t, False):
                        raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)
                elif mode & OVERLAP_PARTIAL and t is not w:
                    _check_partial_overlap(w, t)


def _write_through_conjs(op: Op, kernel, args: tuple, kwargs: dict, out):
    """NOTE [ Complex storage and conj ] for an op that writes several tensors (an `out=` tuple, several
    `mutates` indices): the kernel writes resolved copies of the conjugate views among them, each copied back
    through its view afterwards (`copy_` into a conjugate view writes through)."""
    pairs: list[tuple[Tensor, Tensor]] = []

    def swap(t):
        if not (isinstance(t, Tensor) and t._conj):
            return t
        for view, tmp in pairs:
            if view is t:
                return tmp
        pairs.append((t, t.resolve_conj()))
        return pairs[-1][1]

    args = list(args)
    for i in op.mutates:
        args[i] = swap(args[i])
    if out is not None:
        kwargs = {**kwargs, "out": swap(out) if isinstance(out, Tensor) else type(out)(swap(o) for o in out)}
    args = [a if not (isinstance(a, Tensor) and a._conj) or all(a is not v for v, _ in pairs) else swap(a)
            for a in args]  # an input that is also written reads the copy the kernel writes
    result = kernel(*args, **kwargs)
    for view, tmp in pairs:
        view.copy_(tmp)

    def back(r):
        return next((view for view, tmp in pairs if r is tmp), r)

    if not isinstance(result, _SEQ):
        return back(result)
    items = [back(r) for r in result]
    return type(result)(items) if result.__class__ in _SEQ else tuple.__new__(result.__class__, items)  # named fields


def _bump(out) -> None:
    if isinstance(out, _SEQ):
        for o in out:
            o._storage.version += 1
    else:
        out._storage.version += 1


def device_of(args, strict: bool = False) -> str:
    """The device type an op runs on: that of its tensor arguments; CPU 0-dim tensors and
    Python scalars go along with any device. `strict`: tensors on two devices raise PyTorch's
    RuntimeError naming both (tensors inside list arguments count too)."""
    for a in args:
        if isinstance(a, Tensor):
            t = a._storage.device.type
        elif isinstance(a, _SEQ) and a and isinstance(a[0], Tensor):
            t = a[0]._storage.device.type
        else:
            continue
        if t != "cpu":
            if strict:
                _check_same_device(args, a._storage.device if isinstance(a, Tensor) else a[0]._storage.device)
            return t
    return "cpu"


def _check_same_device(args, dev, meta_indices: bool = False, op: str = "") -> None:
    """Raise when a tensor of `args` (or of a list in them) is on another device than `dev`;
    `meta_indices`: a CPU integer tensor goes along with meta ones (`mixed_devices="meta"`); `op` names the op
    for the index ops' own words."""
    for a in args:
        for t in (a if isinstance(a, _SEQ) else (a,)):
            st = getattr(t, "_storage", None)
            if st is None or st.device is dev:
                continue
            other = st.device
            if other.type == "cpu":
                if t._shape:
                    if dev.type == "meta":  # PyTorch's meta kernels check devices in their own words
                        if meta_indices and not (t._dtype.is_floating_point or t._dtype.is_complex):
                            continue
                        _meta_device_error(args, op)
                    raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                                       f"devices, {dev} and cpu!")
            elif other != dev:
                raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                                   f"{dev} and {other}!")


# the index ops whose own check of self, index and source devices PyTorch's meta kernels run first (index_fill's
# says index_copy, as PyTorch's)
_INDEX_DEVICE_CHECK = {"index_add": "index_add", "index_copy": "index_copy", "index_fill": "index_copy"}


def _meta_device_error(args, op: str = "") -> None:
    """PyTorch's error for meta and CPU operands: the first tensor's device is the one expected (masked_fill's mask's;
    the index ops name self's, index's and source's devices, a number source on self's)."""
    tensors = [t for a in args for t in (a if isinstance(a, _SEQ) else (a,)) if isinstance(t, Tensor)]
    if op in _INDEX_DEVICE_CHECK and len(tensors) >= 2:
        self_dev, index_dev = tensors[0]._storage.device, tensors[1]._storage.device
        source_dev = tensors[2]._storage.device if len(tensors) > 2 else self_dev
        raise RuntimeError(f"{_INDEX_DEVICE_CHECK[op]}(): self, index and source expected to be in the same device, "
                           f"but got (self) {self_dev}, (index) {index_dev}, and (source) {source_dev}")
    if op == "masked_fill" and len(tensors) == 2:  # PyTorch's masked_fill expects the mask's device of self
        tensors = tensors[::-1]
    expected = tensors[0]._storage.device
    for t in tensors[1:]:
        if t._storage.device != expected and (t._shape or t._storage.device.type != "cpu"):
            raise RuntimeError(f"Tensor on device {t._storage.device} is not on the expected device {expected}!")


def declare(name: str, ref: Callable | None = None, **flags) -> Op:
    """Declare the primitive op `name` once; a second declaration is a bug and raises."""
    if name in _REGISTRY:
        raise RuntimeError(f"op '{name}' is declared twice")
    op = Op(name, ref, **flags)
    _REGISTRY[name] = op
    return op


def get_op(name: str) -> Op:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no op named '{name}'") from None


def registered_ops() -> dict[str, Op]:
    """Every declared op by name (tests iterate over this)."""
    return dict(_REGISTRY)


def register_dispatch_hook(hook: Callable, *, innermost: bool = False) -> Callable:
    """Install `hook(op, args, kwargs, call_next)` above the kernels; later hooks run first.
    `innermost=True` puts it below every other hook, right above the kernels: a recorder sees each
    call exactly as the kernel gets it (after autocast's casts, below autograd's recording).
    A hook with a true `ignores_fresh` attribute does nothing with an op filling a tensor nobody has
    seen yet (autograd's): factories then skip their fill op while only such hooks are installed."""
    if innermost:
        _hooks.insert(0, hook)
    else:
        _hooks.append(hook)
    _rebuild()
    return hook


def remove_dispatch_hook(hook: Callable) -> None:
    _hooks.remove(hook)
    _rebuild()


def _rebuild() -> None:
    global _top, _top_next, bare, untracked
    fn = Op.redispatch  # called as fn(op, args, kwargs)
    for h in _hooks[:-1]:
        fn = _chain(h, fn)
    _top, _top_next = (_hooks[-1], fn) if _hooks else (None, None)
    bare = Tensor in _SKIP and all(getattr(h, "ignores_fresh", False) for h in _hooks)
    untracked = Tensor in _SKIP and _composite_hook is None and all(getattr(h, "ignores_untracked", False)
                                                                   for h in _hooks)


def set_sparse_fallback(fallback: Callable) -> None:
    """Install the answer of a refused op call with a sparse operand (`_sparse_fallback`)."""
    global _sparse_fallback
    _sparse_fallback = fallback


def set_protocol_check(check: Callable, composite_check: Callable | None = None) -> None:
    """From now on, a call with an argument whose class is not in `_SKIP` (a Tensor subclass, a list ...) goes
    to `check(op, args, kwargs)`, which hands it to `__torch_function__` or runs it (NOTE [ Tensor subclasses ]
    in ember.core.overrides); ember.core.overrides sets it once a subclass or a mode exists. A `@composite`
    function asks `composite_check(fn, args, kwargs)` first, which hands the call over or answers `RUN`."""
    global _protocol, _composite_protocol
    _protocol = check
    _composite_protocol = composite_check
    _rebuild()


RUN = object()  # composite_check's answer: nothing took the call, run the function
_composite_protocol: Callable | None = None


def _chain(hook: Callable, call_next: Callable) -> Callable:
    return lambda op, args, kwargs: hook(op, args, kwargs, call_next)


SAVES_IN_ARGUMENT_ORDER = [0]  # nonzero inside a one-node composite (see the module's docstring)


def composite(name: str, *, one_node: bool = False) -> Callable:
    """Decorator: the composite function `fn` is seen whole by the composite hook, under `name`
    (PyTorch's op name: `linear`, `addmm`, `mse_loss`); `one_node`: PyTorch records it as one node, whose
    saved tensors are in argument order."""
    def deco(fn: Callable) -> Callable:
        @wraps(fn)
        def call(*args, **kwargs):
            if _composite_protocol is not None:  # a mode or subclass is handed the whole call (`F.linear`)
                r = _composite_protocol(call, args, kwargs)
                if r is not RUN:
                    return r
            if one_node:
                SAVES_IN_ARGUMENT_ORDER[0] += 1
                try:
                    return fn(*args, **kwargs) if _composite_hook is None else _composite_hook(name, fn, args, kwargs)
                finally:
                    SAVES_IN_ARGUMENT_ORDER[0] -= 1
            if _composite_hook is None:
                return fn(*args, **kwargs)
            return _composite_hook(name, fn, args, kwargs)

        call.composite_name = name
        return call
    return deco


def set_recorder(recorder: Callable) -> None:
    """Install autograd's `record(name, args, result)` (see `record`)."""
    global record
    record = recorder


def set_composite_hook(hook: Callable | None) -> Callable | None:
    """Install `hook(name, fn, args, kwargs)` around every `@composite` function (None removes it);
    returns the hook it replaces."""
    global _composite_hook
    old, _composite_hook = _composite_hook, hook
    _rebuild()
    return old


_NAMED: dict = {}


def node_name(result, made: str, name: str, refuse: str | None = None, twin: bool = False):
    """Give `result`'s grad_fn PyTorch's node name `name` when it is the `made` node this function's
    decomposition put on it (`linear`'s AddBackward0 is PyTorch's AddmmBackward0): the node's class
    becomes a subclass so named, nothing else changes (but with `refuse`, its backward raises that
    RuntimeError: a node PyTorch records without a derivative; with `twin`, the op is its own derivative,
    as `t`, so a recorded gradient's `made` node takes the name too). A result returned as-is keeps its name."""
    fn = getattr(result, "_grad_fn", None)
    if fn is not None and type(fn).__name__ == made:
        cls = type(fn)
        sub = _NAMED.get((cls, name, refuse, twin))
        if sub is None:
            attrs = {"__slots__": (), "__module__": cls.__module__}
            if refuse is not None:
                attrs["apply"] = _refusing_apply(refuse)
            elif twin:
                attrs["apply"] = _twin_apply(cls.apply, made, name)
            sub = _NAMED[(cls, name, refuse, twin)] = type(name, (cls,), attrs)
        fn.__class__ = sub
    return result


def _twin_apply(apply: Callable, made: str, name: str):
    def twin(self, grads):
        out = apply(self, grads)
        for g in out:
            if g is not None and g._grad_fn is not None:
                node_name(g, made, name, twin=True)
        return out
    return twin


def _refusing_apply(message: str):
    def apply(self, grads):
        raise RuntimeError(message)
    return apply
