"""`torch.fx.passes.shape_prop`: `ShapeProp`, which runs a GraphModule on example inputs and records each
node's tensor metadata (shape, dtype, strides ...) in `node.meta['tensor_meta']`."""

from __future__ import annotations

from typing import Any, NamedTuple

from ember.torch.fx.interpreter import Interpreter
from ember.torch.fx.node import Node, map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records of a tensor."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: Any
    is_quantized: bool
    qparams: dict[str, Any]


def _extract_tensor_metadata(result) -> TensorMetadata:
    import ember.torch as torch

    memory_format = None
    for fmt in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d):
        try:
            if result.is_contiguous(memory_format=fmt):
                memory_format = fmt
                break
        except RuntimeError:  # channels_last of a tensor of another rank
            continue
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format,
                          False, {})


class ShapeProp(Interpreter):
    """Runs the module node by node (`propagate(*args)`), putting a `TensorMetadata` in each node's
    `meta['tensor_meta']` (a structure of them for a node giving several tensors) and the value's type in
    `meta['type']`."""

    def __init__(self, gm, fake_mode=None) -> None:
        super().__init__(gm)
        self.fake_mode = fake_mode

    def run_node(self, n: Node) -> Any:
        from ember.core.tensor import Tensor

        result = super().run_node(n)
        found = [False]

        def extract(obj):
            if isinstance(obj, Tensor):
                found[0] = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found[0]:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args) -> Any:
        """Run the module on `args`, recording the metadata; its output."""
        return super().run(*args)
