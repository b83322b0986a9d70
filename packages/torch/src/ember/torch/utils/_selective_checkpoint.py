"""Selective activation checkpointing (`torch.utils.checkpoint.create_selective_checkpoint_contexts`): a policy
picks, op by op, the outputs a checkpointed segment keeps in forward; its recomputation in backward takes
those from the cache instead of running their kernels again.

Both contexts are dispatch hooks below autograd's recording (`innermost`), so a cached op is still recorded
(its node saves what it saves) and only its kernel is skipped. The forward asks the policy once per op, with
the op named as PyTorch's dispatcher names it (`torch.ops.aten.mm.default`, ember.torch._aten_ops); the
recomputation runs the same ops in the same order and answers op `i` from the cache where forward kept it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from ember.core.dispatch import register_dispatch_hook, remove_dispatch_hook
from ember.core.tensor import Tensor
from ember.torch import _ops
from ember.torch._aten_ops import OpOverload, overload_of

__all__ = ["CheckpointPolicy", "SelectiveCheckpointContext", "create_selective_checkpoint_contexts"]


class CheckpointPolicy(enum.Enum):
    """What a selective checkpointing policy says of an op's outputs (the CPU-offload policies save here)."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVES = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE, CheckpointPolicy.MUST_CPU_OFFLOAD,
          CheckpointPolicy.PREFER_CPU_OFFLOAD)


@dataclass
class SelectiveCheckpointContext:
    """The first argument of a policy function: whether the call comes from the recomputation."""

    is_recompute: bool


def _detached(out):
    if isinstance(out, Tensor):
        return out.detach()
    if isinstance(out, (tuple, list)):
        return type(out)(_detached(o) for o in out)
    return out


class _CachingTorchDispatchMode:
    """The forward's context: asks the policy of each op and keeps the outputs it says to save."""

    def __init__(self, policy_fn: Callable, storage: list) -> None:
        self.policy_fn, self.storage = policy_fn, storage

    def _hook(self, op, args, kwargs, call_next):
        overload = overload_of(op, args, kwargs)
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False), overload, *args, **kwargs)
        if isinstance(policy, bool):
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        out = call_next(op, args, kwargs)
        save = policy in _SAVES and not op.mutates
        self.storage.append((op, _detached(out) if save else None, save))
        return out

    def __enter__(self) -> _CachingTorchDispatchMode:
        register_dispatch_hook(self._hook, innermost=True)
        return self

    def __exit__(self, *exc) -> None:
        remove_dispatch_hook(self._hook)


class _CachedTorchDispatchMode:
    """The recomputation's context: op `i` comes from the cache where forward saved it."""

    def __init__(self, storage: list) -> None:
        self.storage, self.index = storage, 0

    def _hook(self, op, args, kwargs, call_next):
        i, self.index = self.index, self.index + 1
        if i < len(self.storage):
            seen, out, saved = self.storage[i]
            if saved and seen is op:
                return _detached(out)
        return call_next(op, args, kwargs)

    def __enter__(self) -> _CachedTorchDispatchMode:
        self.index = 0
        register_dispatch_hook(self._hook, innermost=True)
        return self

    def __exit__(self, *exc) -> None:
        remove_dispatch_hook(self._hook)


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation: bool = False):
    """The `(forward, recompute)` contexts of `checkpoint(..., use_reentrant=False, context_fn=...)` that keep the
    outputs a policy picks.

    Args:
        policy_fn_or_list: a list of ATen overloads to save (`[torch.ops.aten.mm.default]`), or a function
            `(ctx, op, *args, **kwargs) -> CheckpointPolicy` (a bool: True saves).
        allow_cache_entry_mutation: accepted for PyTorch's signature (ember never caches an in-place op's output).

    Raises:
        ValueError: a list entry that is not an ATen overload.
        TypeError: neither a function nor a list.
    """
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, (OpOverload, _ops.OpOverload)):
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. ")
        saved = frozenset(policy_fn_or_list)

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in saved else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage: list = []
    return _CachingTorchDispatchMode(policy_fn, storage), _CachedTorchDispatchMode(storage)
