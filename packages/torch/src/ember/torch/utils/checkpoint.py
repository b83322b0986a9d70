"""`torch.utils.checkpoint`: activation checkpointing, with PyTorch's values and gradients.

PyTorch frees a checkpointed segment's activations after the forward pass and recomputes them
during backward (restoring the random state, so dropout draws the same masks), trading compute
for memory; the values and gradients are those of running the segment plainly. ember runs the
segment plainly and keeps its activations: the same results, without the memory saving.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

__all__ = ["checkpoint", "checkpoint_sequential"]


def _check_reentrant(use_reentrant: bool | None) -> None:
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "use_reentrant=False is recommended.", stacklevel=3)


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None, context_fn: Callable | None = None,
               determinism_check: str = "default", debug: bool = False, preserve_rng_state: bool = True, **kwargs):
    """`function(*args, **kwargs)`, differentiable as if not checkpointed (activations are kept)."""
    _check_reentrant(use_reentrant)
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if context_fn is not None:
        with context_fn()[0]:
            return function(*args, **kwargs)
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Run a `Sequential` (or list of modules) on `input` in `segments` checkpointed pieces."""
    _check_reentrant(use_reentrant)
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be at least 1; got {segments}")
    for fn in fns:
        input = fn(input)
    return input
