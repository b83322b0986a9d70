"""Hooks on the tensors saved for backward (`torch.autograd.graph.saved_tensors_hooks`, `save_on_cpu`,
`disable_saved_tensors_hooks`): while a pair is installed, each tensor an op saves goes through
`pack_hook`, and backward reads it back through `unpack_hook` (to offload it, compress it, log it).

The pair in force when a tensor is saved is the one used to unpack it, whatever is installed by then;
pairs nest (the innermost applies) and are per thread, as PyTorch's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from ember.core.tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors",
           "current_hooks"]

_state = threading.local()
active = 0  # pairs installed across all threads: SavedTensor looks further only when nonzero (the hot path)


def current_hooks() -> tuple[Callable, Callable] | None:
    """The innermost installed `(pack_hook, unpack_hook)`, or None."""
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Context manager installing `pack_hook(tensor) -> Any` and `unpack_hook(Any) -> Tensor` for the tensors
    saved for backward by the ops run inside it.

    Example:
        >>> import ember.autograd as torch
        >>> packed = []
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> with saved_tensors_hooks(lambda t: packed.append(t) or len(packed) - 1, lambda i: packed[i]):
        ...     y = (x * x).sum()
        >>> y.backward(); x.grad.tolist(), len(packed)
        ([2.0, 4.0], 2)
    """

    def __init__(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        message = getattr(_state, "disabled", None)
        if message is not None:
            raise RuntimeError(message)
        if not hasattr(_state, "stack"):
            _state.stack = []
        _state.stack.append((self.pack_hook, self.unpack_hook))
        global active
        active += 1
        return self

    def __exit__(self, *exc) -> None:
        global active
        active -= 1
        _state.stack.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """Saved tensors are kept in host memory (copied there on save, back to their device on backward), which
    frees device memory between forward and backward at the price of two copies. `pin_memory` is accepted
    for PyTorch's signature; ember's host copies are plain."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t: Tensor):
            return t.device, t.cpu() if t.device.type != "cpu" else t

        def unpack(packed) -> Tensor:
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Inside it, installing saved-tensor hooks raises RuntimeError(`error_message`) (for code whose saved
    tensors must stay as they are)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> disable_saved_tensors_hooks:
        self._prev = getattr(_state, "disabled", None)
        _state.disabled = self.error_message
        return self

    def __exit__(self, *exc) -> None:
        _state.disabled = self._prev


class _AllowMutationOnSavedContext:
    """What `allow_mutation_on_saved_tensors` yields; closed when its block ends."""

    def __init__(self) -> None:
        self.closed = False


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside it, tensors saved for backward may be modified in place: backward uses their values at save time.
    ember keeps a copy of each tensor as it is saved (PyTorch copies lazily, on the first write); backward must run
    inside the same block."""
    if getattr(_state, "mutation_ctx", None) is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()

    def unpack(saved: Tensor) -> Tensor:
        if ctx.closed:  # PyTorch's assertion, its words (the missing space included)
            raise AssertionError("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                                 "in which the graph was originally recorded.")
        return saved

    _state.mutation_ctx = ctx
    try:
        with saved_tensors_hooks(lambda t: t.detach().clone(), unpack):
            yield ctx
    finally:
        ctx.closed = True
        _state.mutation_ctx = None
