"""Reading the `.metadata` PyTorch's FileSystemWriter writes: a pickle of its dataclasses, unpickled here by an
allowlist that maps each of PyTorch's classes to ember's twin and refuses every other global, so the file
cannot make the load call anything (NOTE [ ember's DCP directory ] in `filesystem.py`)."""

from __future__ import annotations

import enum
import io
import pickle
from dataclasses import dataclass, field
from pathlib import PurePosixPath, PureWindowsPath

from ember.core import dtypes
from ember.core.ops.tensor_utils import strided
from ember.core.settings import contiguous_format
from ember.core.tensor import Size
from ember.distributed.checkpoint import metadata as md


class _MemFormat(enum.Enum):
    """PyTorch's `_MEM_FORMAT_ENCODING`: how TensorProperties pickles its memory format."""

    TORCH_CONTIGUOUS_FORMAT = 0
    TORCH_CHANNELS_LAST = 1
    TORCH_PRESERVE_FORMAT = 2


@dataclass
class StorageMeta:
    """PyTorch's StorageMeta: the save's checkpoint id and ids, kept as read."""

    checkpoint_id: object = None
    save_id: str | None = None
    load_id: str | None = None
    modules: list = field(default_factory=list)


def _layout(name: str):
    if name != "torch.strided":
        raise pickle.UnpicklingError(f"layout {name!r} is not supported in a checkpoint ember reads")
    return strided


_META = "torch.distributed.checkpoint.metadata"
_ALLOWED = {
    (_META, "Metadata"): md.Metadata, (_META, "TensorStorageMetadata"): md.TensorStorageMetadata,
    (_META, "TensorProperties"): md.TensorProperties, (_META, "ChunkStorageMetadata"): md.ChunkStorageMetadata,
    (_META, "BytesStorageMetadata"): md.BytesStorageMetadata, (_META, "MetadataIndex"): md.MetadataIndex,
    (_META, "StorageMeta"): StorageMeta, (_META, "_MEM_FORMAT_ENCODING"): _MemFormat,
    ("torch.distributed.checkpoint.filesystem", "_StorageInfo"): md._StorageInfo,
    ("torch", "Size"): Size, ("torch.serialization", "_get_layout"): _layout,
    ("pathlib", "PosixPath"): PurePosixPath, ("pathlib", "WindowsPath"): PureWindowsPath,
    ("pathlib", "PurePosixPath"): PurePosixPath, ("pathlib", "PureWindowsPath"): PureWindowsPath,
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        if module == "torch" and isinstance(getattr(dtypes, name, None), dtypes.dtype):
            return getattr(dtypes, name)
        raise pickle.UnpicklingError(f"the checkpoint's metadata names {module}.{name}, which ember does not load")


def read(raw: bytes) -> md.Metadata:
    """The Metadata of a PyTorch-written `.metadata`, each tensor one whole chunk (as one process saves it).

    Raises:
        ValueError: a global outside the allowlist, or a tensor saved in pieces (a sharded DTensor).
    """
    try:
        meta = _Unpickler(io.BytesIO(raw)).load()
    except (pickle.UnpicklingError, EOFError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"unreadable PyTorch checkpoint metadata: {e}") from None
    if not isinstance(meta, md.Metadata) or not isinstance(meta.state_dict_metadata, dict):
        raise ValueError("unreadable PyTorch checkpoint metadata: not a Metadata")
    for fqn, entry in meta.state_dict_metadata.items():
        if isinstance(entry, md.TensorStorageMetadata) and (
                len(entry.chunks) != 1 or list(entry.chunks[0].sizes) != list(entry.size)):
            raise ValueError(f"{fqn} is saved in {len(entry.chunks)} pieces (a sharded tensor), which ember does "
                             "not reassemble")
    for info in (meta.storage_data or {}).values():
        if not isinstance(info, md._StorageInfo) or getattr(info, "transform_descriptors", None):
            raise ValueError("unreadable PyTorch checkpoint metadata: a storage record ember cannot read")
    return meta


class _Global:
    """A name the written pickle refers to (PyTorch's class or object), without importing it."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name


_NAMES = {md.Metadata: (_META, "Metadata"), md.TensorStorageMetadata: (_META, "TensorStorageMetadata"),
          md.ChunkStorageMetadata: (_META, "ChunkStorageMetadata"),
          md.BytesStorageMetadata: (_META, "BytesStorageMetadata"), md.MetadataIndex: (_META, "MetadataIndex"),
          md._StorageInfo: ("torch.distributed.checkpoint.filesystem", "_StorageInfo")}


class _TorchPickler(pickle._Pickler):
    """Pickles ember's Metadata as PyTorch's FileSystemWriter does, naming PyTorch's classes."""

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        elif isinstance(obj, dtypes.dtype):
            self.save(_Global("torch", str(obj).rpartition(".")[2]))
        elif isinstance(obj, Size):
            self._call(_Global("torch", "Size"), (tuple(obj),))
        elif obj is strided:
            self._call(_Global("torch.serialization", "_get_layout"), ("torch.strided",))
        elif isinstance(obj, md.TensorProperties):
            if obj.memory_format is not contiguous_format:
                raise pickle.PicklingError(f"memory format {obj.memory_format} is not written")
            self._new(_Global(_META, "TensorProperties"), (obj.dtype, obj.layout, obj.requires_grad,
                                                          _MemFormat.TORCH_CONTIGUOUS_FORMAT, obj.pin_memory))
        elif isinstance(obj, _MemFormat):
            self._call(_Global(_META, "_MEM_FORMAT_ENCODING"), (obj.value,))
        elif type(obj) in _NAMES:
            state = {k: v for k, v in vars(obj).items() if not (type(obj) is md._StorageInfo and v is None)}
            self._new(_Global(*_NAMES[type(obj)]), state)
        else:
            super().save(obj, save_persistent_id)

    def _call(self, fn: _Global, args: tuple) -> None:
        self.save(fn)
        self.save(args)
        self.write(pickle.REDUCE)

    def _new(self, cls: _Global, state) -> None:
        self.save(cls)
        self.write(pickle.EMPTY_TUPLE + pickle.NEWOBJ)
        self.save(state)
        self.write(pickle.BUILD)


def write(meta: md.Metadata) -> bytes:
    """`meta` as the pickle PyTorch's FileSystemReader reads (and `read` above)."""
    buf = io.BytesIO()
    _TorchPickler(buf, protocol=2).dump(meta)
    return buf.getvalue()
