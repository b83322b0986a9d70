"""`torch.cuda`: ember's CUDA runtime (devices, streams, memory; `is_available()` tells the truth),
the legacy CUDA tensor types (`torch.cuda.FloatTensor`), `torch.cuda.amp`, `torch.cuda.nvtx` and
`torch.cuda.graphs`."""

from ember.autograd import cuda as _impl
from ember.autograd.cuda import *  # noqa: F403
from ember.autograd.cuda import device_count, is_available
from ember.core.legacy import CUDA_TYPES as _CUDA_TYPES

globals().update(_CUDA_TYPES)

from ember.torch.cuda import amp, graphs, memory, nvtx, random  # noqa: E402
from ember.torch.cuda.graphs import (  # noqa: E402 - PyTorch's refusal of capture where CUDA is missing
    CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing, make_graphed_callables,
)


def __getattr__(name: str):
    if name == "AcceleratorError":  # torch.cuda.AcceleratorError is torch.AcceleratorError
        import ember.torch

        return ember.torch.AcceleratorError
    return getattr(_impl, name)
