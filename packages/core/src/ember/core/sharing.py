"""Tensors across processes: storage in POSIX shared memory, and pickling as a handle.

NOTE [ Shared-memory storage ]
A CPU storage is shared when its bytes live in a POSIX shared-memory segment (`/dev/shm/ember_*`
on Linux) mapped with `mmap`; `Storage.data` is then a numpy uint8 array over that mapping and
`Storage._shared` is a `SharedSegment` naming it. Pickling a tensor (`Tensor.__reduce_ex__`)
pickles its storage, and pickle's memo makes every view of one storage arrive over one storage:

* a shared storage pickles as a handle, `(name, nbytes)`; the receiver maps the segment by name
  (one mapping per process while it is alive, `_attached`), so the bytes are never copied;
* any other storage pickles as its bytes (one `bytes` payload), the same as a deep copy.

Lifetime. Memory stays mapped as long as anything (a storage, a numpy view from `.numpy()`)
holds the mapping: the `mmap` object is the owner, and its finalizer is what runs last. The
process that created a segment unlinks it when its mapping dies (`weakref.finalize`), and
registers it with multiprocessing's resource tracker meanwhile, so even a crash does not leak
it. A receiver only maps: it never registers, so the tracker never unlinks (or warns about)
segments that another process owns. A segment unlinked while a receiver still maps it stays
valid there until that mapping dies; a handle that arrives after its creator dropped the
storage cannot be attached (`FileNotFoundError`), as with PyTorch's file-system strategy.

Owners other than the creating tensor (the DataLoader's per-worker segment pools) create and
unlink segments with `create_segment`/`unlink_segment` themselves and learn when a receiver's
mapping dies through `on_attach` (see NOTE [ DataLoader worker protocol ] in ember.data).
"""

from __future__ import annotations

import errno
import itertools
import mmap
import os
import secrets
import weakref
from collections.abc import Callable
from multiprocessing import resource_tracker

import _posixshmem
import numpy as np

from ember.core.geometry import make_tensor
from ember.core.storage import Storage
from ember.core.tensor import Tensor, describe

__all__ = ["SHM_PREFIX", "SHM_DIR", "SharedSegment", "new_segment_name", "create_segment", "attach_segment",
           "unlink_segment", "unlink_prefixed", "segment_storage", "share_memory_", "is_shared", "reduce_tensor",
           "reduce_storage", "on_attach", "restore_requires_grad"]

SHM_PREFIX = "/ember_"
SHM_DIR = "/dev/shm"  # where Linux keeps POSIX shared-memory segments as files

_counter = itertools.count()
_attached: weakref.WeakValueDictionary[str, Storage] = weakref.WeakValueDictionary()
_attach_hooks: dict[str, Callable[[str, mmap.mmap], None]] = {}


class SharedSegment:
    """The shared-memory segment under a storage: its name and the mapping that owns the bytes."""

    __slots__ = ("name", "mmap")

    def __init__(self, name: str, mapping: mmap.mmap) -> None:
        self.name = name
        self.mmap = mapping

    def __repr__(self) -> str:
        return f"SharedSegment({self.name!r}, nbytes={len(self.mmap)})"


def new_segment_name(prefix: str | None = None) -> str:
    """A fresh, unguessable segment name (`/ember_<pid>_<n>_<random>` unless `prefix` is given)."""
    head = prefix if prefix is not None else f"{SHM_PREFIX}{os.getpid()}_"
    return f"{head}{next(_counter)}_{secrets.token_hex(3)}"


def create_segment(name: str, nbytes: int) -> mmap.mmap:
    """Create the segment `name` of `nbytes` bytes (at least 1) and map it; fails if it exists."""
    size = max(nbytes, 1)
    fd = _posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    try:
        os.ftruncate(fd, size)
        if hasattr(os, "posix_fallocate"):
            # Reserve the pages now: on a full /dev/shm a write would otherwise die of SIGBUS.
            os.posix_fallocate(fd, 0, size)
        return mmap.mmap(fd, size)
    except OSError as e:
        unlink_segment(name)
        if e.errno == errno.ENOSPC:
            raise RuntimeError(f"shared memory is full: cannot allocate {size} bytes for segment {name}; free "
                               "space in /dev/shm or make it larger (docker run --shm-size)") from e
        raise
    except BaseException:
        unlink_segment(name)
        raise
    finally:
        os.close(fd)


def attach_segment(name: str, nbytes: int) -> mmap.mmap:
    """Map the first `nbytes` bytes (at least 1) of the existing segment `name`."""
    fd = _posixshmem.shm_open(name, os.O_RDWR, 0o600)
    try:
        return mmap.mmap(fd, max(nbytes, 1))
    finally:
        os.close(fd)


def unlink_segment(name: str) -> bool:
    """Remove the name `name` (mappings stay valid until they die); False if it was already gone."""
    try:
        _posixshmem.shm_unlink(name)
    except FileNotFoundError:
        return False
    return True


def unlink_prefixed(prefix: str) -> int:
    """Unlink every segment whose name starts with `prefix` (a loader's or a worker's); returns how many.

    Lists `/dev/shm` (Linux, where POSIX segments are files); elsewhere there is nothing to list."""
    head = prefix.lstrip("/")
    try:
        entries = os.listdir(SHM_DIR)
    except OSError:
        return 0
    return sum(unlink_segment("/" + e) for e in entries if e.startswith(head))


def segment_storage(name: str, mapping: mmap.mmap, nbytes: int) -> Storage:
    """A CPU storage of `nbytes` bytes over the start of a mapped segment (no copy)."""
    st = Storage(np.ndarray((nbytes,), np.uint8, buffer=mapping), nbytes)
    st._shared = SharedSegment(name, mapping)
    return st


def _unlink_owned(name: str, creator_pid: int) -> None:
    # A forked child inherits the mapping and its finalizer; only the creator may unlink.
    if os.getpid() == creator_pid and unlink_segment(name):
        resource_tracker.unregister(name, "shared_memory")


def _new_owned_storage(nbytes: int) -> Storage:
    """A storage in a new segment owned by this process: unlinked when its mapping dies."""
    name = new_segment_name()
    mapping = create_segment(name, nbytes)
    resource_tracker.register(name, "shared_memory")
    weakref.finalize(mapping, _unlink_owned, name, os.getpid())
    return segment_storage(name, mapping, nbytes)


def is_shared(tensor: Tensor) -> bool:
    """Whether `tensor`'s storage lives in shared memory (CUDA storages always count as shared, meta ones never)."""
    st = tensor._storage
    if st.device.type != "cpu":
        return st.device.type != "meta"
    return st._shared is not None and st.data.base is st._shared.mmap


def share_memory_(tensor: Tensor) -> Tensor:
    """Move `tensor`'s storage into a new shared segment in place; every view follows. Returns `tensor`."""
    st = tensor._storage
    if st.device.type == "meta":
        raise RuntimeError("_share_fd_: only available on CPU")
    if is_shared(tensor):
        return tensor
    moved = _new_owned_storage(st.nbytes)
    moved.data[:] = st.data[: st.nbytes]
    st.data = moved.data
    st._shared = moved._shared
    _attached[moved._shared.name] = st
    return tensor


def on_attach(prefix: str, callback: Callable[[str, mmap.mmap], None]) -> Callable[[], None]:
    """Call `callback(name, mapping)` whenever this process maps a segment whose name starts with
    `prefix` to receive a tensor; returns the function that removes the hook."""
    _attach_hooks[prefix] = callback
    return lambda: _attach_hooks.pop(prefix, None)


def _rebuild_shared_storage(name: str, nbytes: int) -> Storage:
    st = _attached.get(name)
    if st is not None and st.nbytes == nbytes and st._shared is not None:
        return st
    mapping = attach_segment(name, nbytes)
    st = segment_storage(name, mapping, nbytes)
    _attached[name] = st
    for prefix, callback in list(_attach_hooks.items()):
        if name.startswith(prefix):
            callback(name, mapping)
    return st


def _rebuild_storage_from_bytes(payload: bytes, nbytes: int) -> Storage:
    return Storage.wrap_cpu(np.frombuffer(bytearray(payload), np.uint8, count=nbytes))


def reduce_storage(storage: Storage):
    """Pickle a CPU storage: a handle to its segment when shared, else its bytes; a meta storage: its size."""
    if storage.device.type == "meta":
        return _rebuild_meta_storage, (storage.nbytes,)
    if storage.device.type != "cpu":
        raise RuntimeError(f"pickling a {storage.device} storage is not supported (CUDA tensors cannot be "
                           "sent to another process); move it to the CPU with .cpu() first")
    sh = storage._shared
    if sh is not None and storage.data.base is sh.mmap:
        return _rebuild_shared_storage, (sh.name, storage.nbytes)
    return _rebuild_storage_from_bytes, (storage.data[: storage.nbytes].tobytes(), storage.nbytes)


def _rebuild_meta_storage(nbytes: int) -> Storage:
    if not isinstance(nbytes, int) or nbytes < 0:
        raise TypeError(f"rebuilding a meta storage: {nbytes!r} is not a byte count")
    from ember.core.meta import meta_storage

    return meta_storage(nbytes)


def _rebuild_tensor(storage: Storage, offset: int, shape: tuple, strides: tuple, dtype, cls, requires_grad: bool,
                    state: dict) -> Tensor:
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"rebuilding a shared tensor: {cls!r} is not a Tensor class")
    t = make_tensor(storage, offset, shape, strides, dtype, cls, op="rebuild_tensor")  # NOTE [ The geometry gate ]
    if state:
        t.__dict__.update(state)
    if requires_grad:
        restore_requires_grad(t)
    return t


def restore_requires_grad(t: Tensor) -> None:
    """Set `requires_grad` on a copy: through the autograd layer's `requires_grad_` when it is loaded."""
    setter = getattr(t, "requires_grad_", None)
    if setter is None:
        t._requires_grad = True
    else:
        setter(True)


def reduce_tensor(tensor: Tensor):
    """`Tensor.__reduce_ex__`: pickle the storage (handle or bytes), view metadata, class and flags."""
    if tensor._storage.device.type not in ("cpu", "meta"):
        raise RuntimeError(f"pickling {describe(tensor)} is not supported (CUDA tensors cannot be sent to "
                           "another process); move it to the CPU with .cpu() first")
    state = dict(tensor.__dict__)
    state.pop("_is_inference", None)  # autograd's mark of a tensor made in inference mode: an unpickled one is normal
    return _rebuild_tensor, (tensor._storage, tensor._offset, tensor._shape, tensor._strides, tensor._dtype,
                             type(tensor), bool(tensor._requires_grad), state)

