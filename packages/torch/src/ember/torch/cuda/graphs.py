"""`torch.cuda.graphs`: CUDA graph capture's API (`CUDAGraph`, `graph`, `make_graphed_callables`,
`graph_pool_handle`, `is_current_stream_capturing`) as PyTorch's build without CUDA graphs has it: importable,
and refusing to construct a graph with its RuntimeError. ember records no CUDA graphs (its compiler replays
Python-level captures instead), so these refuse on every machine; code that guards its capture path with
`torch.cuda.is_available()` runs its eager path on a machine without a GPU, as under PyTorch.
"""

from __future__ import annotations

from ember.autograd import cuda as _cuda
from ember.core import Tensor

__all__ = ["is_current_stream_capturing", "graph_pool_handle", "CUDAGraph", "graph", "make_graphed_callables"]


def _dummy(name: str) -> RuntimeError:
    return RuntimeError(f"Tried to instantiate dummy base class {name}")


def is_current_stream_capturing() -> bool:
    """False on a machine with CUDA (ember never captures); PyTorch's refusal of its CPU build elsewhere."""
    if not _cuda.is_available():
        raise _dummy("_cuda_isCurrentStreamCapturing")
    return False


def graph_pool_handle():
    """A memory pool id for graphs to share: refused, as PyTorch's build without CUDA graphs does."""
    raise _dummy("_graph_pool_handle")


class CUDAGraph:
    """A captured CUDA graph (`capture_begin`/`capture_end`/`replay`): refused at construction, as PyTorch's
    build without CUDA graphs does."""

    def __new__(cls, *args, **kwargs):
        raise _dummy("CUDAGraph")

    def capture_begin(self, pool=None, capture_error_mode: str = "global") -> None:
        """Begin capturing the current stream's work (unreachable: no instance exists)."""

    def capture_end(self) -> None:
        """End the capture (unreachable: no instance exists)."""

    def instantiate(self) -> None:
        """Instantiate the captured graph (unreachable: no instance exists)."""

    def replay(self) -> None:
        """Replay the captured work (unreachable: no instance exists)."""

    def reset(self) -> None:
        """Free the graph (unreachable: no instance exists)."""

    def pool(self):
        """The graph's memory pool id (unreachable: no instance exists)."""


class graph:
    """`with torch.cuda.graph(g):` captures the block's CUDA work into `g` on a side stream; without CUDA,
    PyTorch's error of making that stream."""

    default_capture_stream = None

    def __init__(self, cuda_graph: CUDAGraph, pool=None, stream=None, capture_error_mode: str = "global",
                 enable_annotations: bool = False, check_input_liveness: bool = False) -> None:
        if stream is None and not _cuda.is_available():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        if not isinstance(cuda_graph, CUDAGraph):
            raise _dummy("CUDAGraph")
        self.cuda_graph = cuda_graph

    def __enter__(self) -> None:
        self.cuda_graph.capture_begin()

    def __exit__(self, *exc) -> None:
        self.cuda_graph.capture_end()


def make_graphed_callables(callables, sample_args, num_warmup_iters: int = 3, allow_unused_input: bool = False,
                           pool=None):
    """Graphed versions of `callables` (modules or functions); PyTorch's checks of the arguments, then its
    refusal to make the graphs."""
    from ember.autograd import is_autocast_cache_enabled, is_autocast_enabled
    from ember.nn import Module
    from ember.torch.utils._pytree import tree_leaves

    if is_autocast_enabled() and is_autocast_cache_enabled():
        raise RuntimeError("make_graphed_callables does not support the autocast caching. Please set "
                           "`cache_enabled=False`.")
    pairs = ((callables, sample_args),) if not isinstance(callables, tuple) else tuple(zip(callables, sample_args))
    for c, args in pairs:
        if isinstance(c, Module):
            if c._backward_hooks or c._forward_hooks or c._forward_pre_hooks:
                raise AssertionError("Modules must not have hooks registered at the time they are passed. However, "
                                     "registering hooks on modules after passing them through make_graphed_callables "
                                     "is allowed.")
            if any(b.requires_grad for b in c.buffers()):
                raise AssertionError("In any :class:`~torch.nn.Module` passed to :func:`~make_graphed_callables`, "
                                     "only parameters may be trainable. All buffers must have "
                                     "``requires_grad=False``.")
        if not all(isinstance(a, Tensor) for a in tree_leaves(tuple(args))):
            raise AssertionError("In the beta API, sample_args for each callable must contain only Tensors. Other "
                                 "types are not allowed.")
    raise _dummy("CUDAGraph")

