"""Storage: one flat byte buffer on one device, shared by every view of it.

A storage owns its memory (a numpy uint8 array on the CPU, a device array handed out by the
caching allocator on CUDA) and a version counter that every in-place write bumps, so that the
autograd layer can tell when a tensor it saved has been modified. Memory goes back the moment
the last tensor holding the storage dies: nothing else keeps a reference.
"""

from __future__ import annotations

import numpy as np

from ember.core.device import CPU, device

__all__ = ["Storage", "VersionAlias", "allocation_error"]

# numpy's own words when a size cannot be allocated at all (ValueError) rather than not now (MemoryError)
_TOO_BIG = ("Maximum allowed dimension exceeded", "array is too big", "Maximum allowed size exceeded")


def allocation_error(e: BaseException) -> RuntimeError | None:
    """PyTorch's RuntimeError for numpy's failure to allocate (`MemoryError`, or the ValueError of a size
    past what numpy can index), or None when `e` is another error. No numpy error about memory leaks
    out of ember: a huge `zeros`, `repeat` or `bincount` raises what PyTorch's allocator raises."""
    if isinstance(e, MemoryError):
        shape, dt = getattr(e, "shape", None), getattr(e, "dtype", None)
        if shape is not None and dt is not None:
            n = dt.itemsize
            for k in shape:
                n *= int(k)
            return RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {n} bytes.")
        return RuntimeError(f"DefaultCPUAllocator: can't allocate memory: {e}")
    if isinstance(e, ValueError) and any(m in str(e) for m in _TOO_BIG):
        return RuntimeError(f"DefaultCPUAllocator: can't allocate memory: {e} (a size past what can be addressed)")
    return None

# True until a storage is made on another device than the CPU: until then every tensor is a CPU
# tensor, and the dispatcher need not look at an op's arguments to pick the kernel's device
only_cpu = True
# `hook(storage)` for every storage made while it is set (torch.func's grad transforms note what the function
# they run makes: ember.autograd._captured_writes), None otherwise
created_hook: list = [None]


class BorrowedBytes:
    """Exposes `span` bytes from an array's first element; keeps the array (the owner) alive. A storage over
    them (`from_numpy`'s) is not resizable: its memory is the array's."""

    def __init__(self, owner: np.ndarray, span: int) -> None:
        self.owner = owner
        self.__array_interface__ = {"data": (owner.__array_interface__["data"][0], False), "shape": (span,),
                                    "typestr": "|u1", "version": 3}


class Storage:
    """A flat buffer of `nbytes` bytes on `device`, with a version counter."""

    __slots__ = ("_raw", "_bytes", "nbytes", "device", "version", "_block", "_shared", "__weakref__")

    def __init__(self, data, nbytes: int, dev: device = CPU, block=None) -> None:
        # `Tensor._wrap` inlines this for CPU op results: a new slot is set there too
        global only_cpu
        if only_cpu and dev.type != "cpu":
            only_cpu = False
        self._raw = data  # CPU: any C-contiguous numpy array holding the bytes (a fresh op result, as is)
        self._bytes = None
        self.nbytes = nbytes
        self.device = dev
        self.version = 0
        self._block = block
        self._shared = None
        if created_hook[0] is not None:
            created_hook[0](self)

    @property
    def data(self):
        """The buffer: a flat uint8 numpy array on the CPU, the device array on CUDA."""
        if self.device.type != "cpu":
            return self._raw
        b = self._bytes
        if b is None:
            raw = self._raw
            b = raw if raw.dtype == np.uint8 and raw.ndim == 1 else raw.reshape(-1).view(np.uint8)
            self._bytes = b
        return b

    @data.setter
    def data(self, value) -> None:
        self._raw = value
        self._bytes = None

    @classmethod
    def cpu(cls, nbytes: int) -> Storage:
        """A new, uninitialised CPU buffer of `nbytes` bytes."""
        try:
            buf = np.empty(nbytes, dtype=np.uint8)
        except (MemoryError, ValueError) as e:
            err = allocation_error(e)
            if err is None:
                raise
            raise err from None
        return cls(buf, nbytes)

    @classmethod
    def wrap_cpu(cls, buf: np.ndarray) -> Storage:
        """A storage over an existing contiguous uint8 numpy buffer (no copy)."""
        return cls(buf, buf.nbytes)

    def bump(self) -> None:
        """Record an in-place write made outside any op (autograd checks saved tensors against this
        counter); an op's writes are bumped by the dispatcher (its `mutates=` and `out=`)."""
        self.version += 1

    def resizable(self) -> bool:
        """Whether the buffer may be replaced by a larger one (PyTorch's `resizable()`): not a numpy array's
        memory (`from_numpy`), nor shared memory."""
        if self.device.type != "cpu":
            return True
        return self._shared is None and not isinstance(getattr(self._raw, "base", None), BorrowedBytes)

    def data_ptr(self) -> int:
        if self._raw is None or self.nbytes == 0:  # a meta storage or no bytes: no memory (PyTorch's 0)
            return 0
        if self.device.type == "cpu":
            return self.data.ctypes.data
        return self.data.__cuda_array_interface__["data"][0]

    def __reduce__(self):
        from ember.core.sharing import reduce_storage

        return reduce_storage(self)

    def __repr__(self) -> str:
        return f"Storage(nbytes={self.nbytes}, device={self.device}, version={self.version})"

    @property
    def root(self) -> Storage:
        """The storage that owns the memory: itself, or the one a `VersionAlias` shares."""
        return self


def _delegated(name: str) -> property:
    """A property reading and writing the owner's slot `name` (a `VersionAlias` holds no memory of its own)."""
    slot = getattr(Storage, name)  # the owner's slot descriptor
    return property(lambda self: slot.__get__(self._owner), lambda self, value: slot.__set__(self._owner, value))


class VersionAlias(Storage):
    """Another storage's memory under a version counter of its own, as PyTorch's `Tensor.data` has: in-place
    writes through it are not seen by autograd's checks of the owner's tensors (NOTE [ .data's version counter ]).

    NOTE [ .data's version counter ]
    PyTorch's `.data` shares its tensor's memory but not its version counter, so `out.data.zero_()` then
    `out.sum().backward()` runs with the new values where `out.detach().zero_()` raises. Every field but `version`
    reads and writes the owner's, so a resize or a move to shared memory through the alias is the owner's too;
    code that keys by storage (capture, serialization, `untyped_storage()`) keys by `root`.
    """

    __slots__ = ("_owner",)

    def __init__(self, owner: Storage) -> None:
        self._owner = owner.root
        self.version = 0

    _raw = _delegated("_raw")
    _bytes = _delegated("_bytes")
    nbytes = _delegated("nbytes")
    device = _delegated("device")
    _block = _delegated("_block")
    _shared = _delegated("_shared")

    @property
    def root(self) -> Storage:
        return self._owner
