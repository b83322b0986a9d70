"""Activation checkpointing (`torch.utils.checkpoint`): run a segment without keeping its
activations, and recompute them during backward, trading compute for memory.

NOTE [How a checkpointed segment reaches the graph]
`use_reentrant=False` (PyTorch's recommended form) runs the segment once with grad enabled under
`saved_tensors_hooks` whose pack hook keeps only a counter: the graph is the plain call's (its
grad_fns, which outputs require grad), but no activation is held. The first unpack in backward reruns
the segment on detached inputs, with the RNG and autocast state the forward saw, collecting what it
saves in the same order; each hook then hands back its recomputed tensor.

`use_reentrant=True` runs the segment once under `no_grad`. While it runs, a dispatch hook notes every
tensor that requires grad and enters one of its ops from outside the segment (its inputs, the
parameters its modules use). One `CheckpointFunction` node then stands for the whole segment, with
those tensors as its inputs; its backward reruns the segment with grad enabled on detached inputs and
takes `autograd.grad` of the recomputed outputs with respect to the inputs and the captured tensors.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable

from ember.core import random as _random
from ember.core.dispatch import register_dispatch_hook, remove_dispatch_hook
from ember.core.tensor import Tensor

from ember.autograd import amp
from ember.autograd.checkpoint_support import CheckpointError, _state as _switches
from ember.autograd.function import Function
from ember.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ember.autograd.saved_hooks import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""  # PyTorch's words after every recomputation mismatch (ember has no compiled graphs to pick, but keeps them)
_SEQUENTIAL_REENTRANT_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but "
    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")


def noop_context_fn():
    """The default `context_fn`: no extra context around the forward and the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _tensors_in(value) -> Iterable[Tensor]:
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)


class _Capture:
    """A dispatch hook noting the tensors that require grad and flow into the segment's ops."""

    def __init__(self) -> None:
        self.seen: dict[int, Tensor] = {}
        self.made: set[int] = set()

    def __call__(self, op, args, kwargs, call_next):
        for t in _tensors_in(args):
            if t._requires_grad and id(t) not in self.made:
                self.seen.setdefault(id(t), t)
        result = call_next(op, args, kwargs)
        self.made.update(id(t) for t in _tensors_in(result))
        return result


def _rng_states(tensors: list[Tensor]) -> dict:
    """The default generators' states of the CPU and of every device the inputs live on."""
    devices = {"cpu", *(str(t.device) for t in tensors)}
    return {d: _random.default_generator_for(d).get_state() for d in devices}


@contextlib.contextmanager
def _rng_restored(states: dict):
    """Run with the RNG states the forward saw, then put back the states of now."""
    generators = {d: _random.default_generator_for(d) for d in states}
    now = {d: g.get_state() for d, g in generators.items()}
    for d, g in generators.items():
        g.set_state(states[d])
    try:
        yield
    finally:
        for d, g in generators.items():
            g.set_state(now[d])


class CheckpointFunction(Function):
    """The reentrant form's one node for a whole segment (PyTorch's name, so its grad_fn prints
    `CheckpointFunctionBackward`); inputs: the segment's tensor arguments, then captured tensors."""

    _internal = True

    @staticmethod
    def forward(ctx, run, n_args: int, outputs: tuple, *tensors):
        ctx.run, ctx.n_args = run, n_args
        ctx.inputs = tensors
        return tuple(o.detach() for o in outputs)

    @staticmethod
    def backward(ctx, *grads):
        from ember.autograd.engine import grad as autograd_grad

        _ = ctx.saved_tensors  # nothing is saved, but a released node refuses a second backward in PyTorch's words
        args, captured = ctx.inputs[:ctx.n_args], ctx.inputs[ctx.n_args:]
        detached = [a.detach().requires_grad_(a._requires_grad) for a in args]
        with enable_grad():
            outputs = ctx.run(detached)
        pairs = [(o, g) for o, g in zip(outputs, grads, strict=True) if o._requires_grad and g is not None]
        wrt = [d for d in detached if d._requires_grad] + [c for c in captured if c._requires_grad]
        found = autograd_grad([o for o, _ in pairs], wrt, [g for _, g in pairs], allow_unused=True) \
            if pairs and wrt else [None] * len(wrt)
        by_id = dict(zip(map(id, wrt), found, strict=True))
        result = [by_id.get(id(d)) for d in detached] + [by_id.get(id(c)) for c in captured]
        return (None, None, None, *result)


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None, context_fn: Callable = noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True,
               preserve_rng_state: bool = True, **kwargs):
    """`function(*args, **kwargs)` without keeping its activations; they are recomputed in backward.

    As `torch.utils.checkpoint.checkpoint`: the result and every gradient equal those of a plain
    call; dropout inside recomputes the same mask (`preserve_rng_state`).
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant and context_fn is not noop_context_fn:
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    tensor_args = [a for a in args if isinstance(a, Tensor)]
    if not is_grad_enabled():
        return function(*args, **kwargs)
    if use_reentrant and not any(t._requires_grad for t in tensor_args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        with no_grad():
            return function(*args, **kwargs)
    states = _rng_states(tensor_args) if preserve_rng_state else None
    regions = amp.current_regions()
    forward_ctx, recompute_ctx = context_fn()
    if not use_reentrant:
        stop = _switches["early_stop"] if _switches["early_stop"] is not None else early_stop
        return _without_reentrant(function, args, kwargs, states, regions, forward_ctx, recompute_ctx,
                                  determinism_check == "default", stop)
    capture = _Capture()
    capture.made.update(id(t) for t in tensor_args)  # the explicit inputs are routed separately
    register_dispatch_hook(capture)
    try:
        with no_grad(), forward_ctx:
            output = function(*args, **kwargs)
    finally:
        remove_dispatch_hook(capture)
    outputs = list(output) if isinstance(output, tuple) else [output]
    positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor) and o.dtype.is_floating_point]
    captured = [t for t in capture.seen.values() if not any(t is a for a in tensor_args)]

    def run(detached: list[Tensor]) -> list[Tensor]:
        it = iter(detached)
        call_args = [next(it) if isinstance(a, Tensor) else a for a in args]
        with contextlib.ExitStack() as stack:
            _enter_recompute(stack, states, regions, recompute_ctx)
            again = function(*call_args, **kwargs)
        again = list(again) if isinstance(again, tuple) else [again]
        return [again[i] for i in positions]

    attached = CheckpointFunction.apply(run, len(tensor_args), tuple(outputs[i] for i in positions), *tensor_args,
                                 *captured)
    for i, t in zip(positions, attached, strict=True):
        outputs[i] = t
    return tuple(outputs) if isinstance(output, tuple) else outputs[0]


def _enter_recompute(stack: contextlib.ExitStack, states, regions, recompute_ctx) -> None:
    """The RNG state, autocast regions and user context the segment's forward ran under, entered again for its
    recomputation."""
    if states is not None:
        stack.enter_context(_rng_restored(states))
    for region in regions:
        stack.enter_context(region)
    stack.enter_context(recompute_ctx)


class _StopRecomputation(Exception):
    """Raised from the recomputation's pack hook once every tensor the forward saved is back (early stop)."""


def _metadata(t: Tensor) -> dict:
    """What the default determinism check compares between a forward's saved tensor and its recomputation."""
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


def _without_reentrant(function, args, kwargs, states, regions, forward_ctx, recompute_ctx, check: bool,
                       early_stop: bool):
    """The segment's own graph, its saved tensors dropped in forward and recomputed at the first unpack (stopping
    once all are back with `early_stop`); `check` compares each one's shape, dtype and device with the forward's."""
    count = 0
    metadata: list[dict] = []
    recomputed: dict[int, Tensor] = {}

    def pack(t: Tensor) -> int:
        nonlocal count
        if check:
            metadata.append(_metadata(t))
        count += 1
        return count - 1

    def recompute() -> None:
        order = 0

        def keep(t: Tensor) -> None:
            nonlocal order
            if order >= count:
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      f"than during the original forward pass.\n{_DEBUG_TIP}")
            recomputed[order] = t.detach()
            order += 1
            if early_stop and order == count:
                raise _StopRecomputation

        call_args = [a.detach().requires_grad_(a._requires_grad) if isinstance(a, Tensor) else a for a in args]
        try:
            with contextlib.ExitStack() as stack:
                _enter_recompute(stack, states, regions, recompute_ctx)
                stack.enter_context(enable_grad())
                stack.enter_context(saved_tensors_hooks(keep, _never_unpacked))
                function(*call_args, **kwargs)
        except _StopRecomputation:
            pass
        if order != count:
            raise CheckpointError(f"torch.utils.checkpoint: A different number of tensors was saved during the "
                                  f"original forward and recomputation.\nNumber of tensors saved during forward: "
                                  f"{count}\nNumber of tensors saved during recomputation: {order}.\n{_DEBUG_TIP}")
        if check:
            differ = "".join(f"tensor at position {i}:\nsaved metadata: {m}\nrecomputed metadata: {r}\n"
                             for i, m in enumerate(metadata) if m != (r := _metadata(recomputed[i])))
            if differ:
                raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                      f"different metadata than during the forward pass.\n{differ}.\n{_DEBUG_TIP}")

    def unpack(i: int) -> Tensor:
        if i not in recomputed:
            recompute()
        return recomputed[i]

    with saved_tensors_hooks(pack, unpack), forward_ctx:
        return function(*args, **kwargs)


def _never_unpacked(_):
    raise RuntimeError("torch.utils.checkpoint: a tensor saved during recomputation was unpacked")


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Run a `Sequential` (or a list of modules) in `segments` checkpointed chunks; the last chunk
    runs normally, as `torch.utils.checkpoint.checkpoint_sequential`."""
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if hasattr(functions, "children") and not isinstance(functions, list | tuple):
        functions = list(functions.children())
    functions = list(functions)
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    size = len(functions) // segments  # segments=0 raises ZeroDivisionError, as in PyTorch

    def run_range(start: int, end: int) -> Callable:
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run_range(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_range(end + 1, len(functions) - 1)(input)
