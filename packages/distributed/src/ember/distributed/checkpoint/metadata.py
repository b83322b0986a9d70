"""What a checkpoint holds (torch.distributed.checkpoint.metadata): one entry per flattened key, a
tensor's dtype and size or a marker for any other value, and where each entry's bytes lie."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ember.core import dtypes
from ember.core.ops.tensor_utils import strided
from ember.core.settings import channels_last, contiguous_format, preserve_format
from ember.core.tensor import Size

__all__ = ["ChunkStorageMetadata", "TensorProperties", "TensorStorageMetadata", "BytesStorageMetadata",
           "MetadataIndex", "Metadata"]


@dataclass
class ChunkStorageMetadata:
    """One saved piece of a tensor: where it starts (`offsets`) and its `sizes`."""

    offsets: Size
    sizes: Size


@dataclass
class TensorProperties:
    """The properties of a saved tensor that a load can restore."""

    dtype: Any = dtypes.float32
    layout: Any = strided
    requires_grad: bool = False
    memory_format: Any = contiguous_format
    pin_memory: bool = False

    def __setstate__(self, state) -> None:
        # PyTorch pickles (dtype, layout, requires_grad, memory format as an enum of 0/1/2, pin_memory)
        if isinstance(state, dict):
            self.__dict__.update(state)
            return
        self.dtype, self.layout, self.requires_grad, code, self.pin_memory = state
        self.memory_format = (contiguous_format, channels_last, preserve_format)[getattr(code, "value", code)]


@dataclass
class TensorStorageMetadata:
    """A saved tensor: its properties, its full size and its chunks (one, whole, in ember)."""

    properties: TensorProperties
    size: Size
    chunks: list[ChunkStorageMetadata]


@dataclass
class BytesStorageMetadata:
    """A saved value that is not a tensor (a step count, a string, a list of numbers ...)."""


@dataclass(frozen=True)
class MetadataIndex:
    """The key of an entry's storage record: its flattened name, and a chunk's offset and index for a tensor."""

    fqn: str
    offset: Size | None = None
    index: int | None = field(default=None, hash=False, compare=False)  # a hint only, as PyTorch's


@dataclass
class _StorageInfo:
    """Where an entry's bytes lie: a file of the checkpoint directory, an offset and a length."""

    relative_path: str
    offset: int
    length: int
    transform_descriptors: list[str] | None = None


@dataclass
class Metadata:
    """A checkpoint's table of contents: `state_dict_metadata` maps each flattened key to its
    TensorStorageMetadata or BytesStorageMetadata; `planner_data` maps it to its path in the nested
    state dict; `storage_data` maps each MetadataIndex to where its bytes lie."""

    state_dict_metadata: dict[str, TensorStorageMetadata | BytesStorageMetadata]
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: Any = None
    version: str | None = None
