"""Array protocols: `__cuda_array_interface__` and DLPack, `from_dlpack`, and the Tensor
methods of this package (`pin_memory`, `is_pinned`, `record_stream`).

Nothing here imports `numba.cuda` at import time; `ember.core.cuda` attaches the methods when
it is imported.
"""

from __future__ import annotations

import enum

import numpy as np

from ember.core import dtypes
from ember.core.geometry import INT64_MAX
from ember.core.methods import attach
from ember.core.tensor import Tensor, describe

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack", "attach_methods"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes, as `__dlpack_device__` reports them (`torch.utils.dlpack.DLDeviceType`)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def _cuda_array_interface(self: Tensor) -> dict:
    """The CUDA Array Interface (v3) of a CUDA tensor: no copy, strides in bytes."""
    if self._storage.device.type != "cuda":
        raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {describe(self)}. "
                             "If CUDA data is required use tensor.cuda() to copy tensor to device memory.")
    from ember.core.cuda import streams

    isz = self._dtype.itemsize
    base = self._storage.data.__cuda_array_interface__["data"][0]
    s = streams.current_stream()
    return {
        "shape": tuple(self._shape),
        "strides": tuple(st * isz for st in self._strides),
        "typestr": self._dtype.np.str,
        "data": (base + self._offset * isz if self.numel() else 0, False),
        "version": 3,
        # the consumer orders its work after ours on this stream (1: the legacy default stream)
        "stream": s.cuda_stream or 1,
    }


def _dlpack(self: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return _export(self, max_version, copy)


def _export(t: Tensor, max_version=None, copy=None):
    if t._storage.device.type != "cpu":
        raise BufferError(f"__dlpack__: only CPU tensors export DLPack; got {describe(t)}; CUDA tensors "
                          "share memory through __cuda_array_interface__ (from_dlpack consumes it)")
    kwargs = {} if max_version is None else {"max_version": max_version}
    return (t._np().copy() if copy else t._np()).__dlpack__(**kwargs)


def to_dlpack(tensor: Tensor):
    """The tensor's DLPack capsule (the legacy interface: as PyTorch's, it exports a tensor that requires grad)."""
    return _export(tensor)


def _dlpack_device(self: Tensor) -> tuple[DLDeviceType, int]:
    if self._storage.device.type == "cuda":
        return (DLDeviceType.kDLCUDA, self._storage.device.index or 0)
    return (DLDeviceType.kDLCPU, 0)


class _ByteView:
    """A byte-typed CUDA Array Interface over the whole span of another array's memory."""

    def __init__(self, owner, ptr: int, nbytes: int) -> None:
        self.owner = owner
        self.__cuda_array_interface__ = {"shape": (nbytes,), "strides": None, "typestr": "|u1",
                                         "data": (ptr, False), "version": 3}


_INVALID_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, "
                    "so you might have already constructed a tensor from it once.")
_DL_KINDS = {0: "i", 1: "u", 2: "f", 4: "bf", 5: "c", 6: "b"}  # DLDataType codes (4: bfloat)
# PyCapsule_SetName keeps the pointer, not a copy: the names must live as long as the process
_USED_NAMES = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}


class _ConsumedCapsule:
    """Owns the DLManagedTensor of a consumed capsule: calls its deleter when the last array over it goes."""

    def __init__(self, managed: int, deleter: int, array_interface: dict) -> None:
        import ctypes

        self._managed = managed
        self._free = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter) if deleter else None
        self.__array_interface__ = array_interface

    def __del__(self) -> None:
        if self._free is not None:
            self._free(self._managed)


def _from_capsule(capsule) -> np.ndarray:
    """The CPU array of a raw DLPack capsule (legacy `dltensor` or `dltensor_versioned`), consuming it as the
    protocol asks: renamed `used_...`, its deleter called when the array is released."""
    import ctypes

    api = ctypes.pythonapi
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
    layouts = ((b"dltensor", 0, 56), (b"dltensor_versioned", 32, 16))  # (name, DLTensor at, deleter at)
    found = next((entry for entry in layouts if api.PyCapsule_IsValid(capsule, entry[0])), None)
    if found is None:
        raise RuntimeError(_INVALID_CAPSULE)
    name, head, deleter_at = found
    managed = api.PyCapsule_GetPointer(capsule, name)
    read_only = head and ctypes.c_uint64.from_address(managed + 24).value & 1  # DLPACK_FLAG_BITMASK_READ_ONLY
    t = managed + head  # DLTensor: data, device{type, id}, ndim, dtype{code, bits, lanes}, shape*, strides*, offset
    data = ctypes.c_void_p.from_address(t).value or 0
    kind, index = (ctypes.c_int32 * 2).from_address(t + 8)
    ndim = ctypes.c_int32.from_address(t + 16).value
    code, bits, lanes = ctypes.c_uint8.from_address(t + 20).value, ctypes.c_uint8.from_address(t + 21).value, \
        ctypes.c_uint16.from_address(t + 22).value
    if kind != DLDeviceType.kDLCPU:
        raise BufferError(f"from_dlpack: a raw DLPack capsule of device type {kind} (not CPU): pass the producer "
                          "itself (an object with __dlpack__ or __cuda_array_interface__)")
    if code not in _DL_KINDS or lanes != 1 or bits % 8:
        raise BufferError(f"from_dlpack: unsupported DLPack dtype (code {code}, bits {bits}, lanes {lanes})")
    isz = bits // 8
    shape_p, strides_p = ctypes.c_void_p.from_address(t + 24).value, ctypes.c_void_p.from_address(t + 32).value
    shape = tuple((ctypes.c_int64 * ndim).from_address(shape_p)) if ndim else ()
    strides = tuple(s * isz for s in (ctypes.c_int64 * ndim).from_address(strides_p)) if strides_p and ndim else None
    offset = ctypes.c_uint64.from_address(t + 40).value
    typestr = f"<u{isz}" if code == 4 else ("|b1" if code == 6 else f"<{_DL_KINDS[code]}{isz}")
    deleter = ctypes.c_void_p.from_address(managed + deleter_at).value
    api.PyCapsule_SetName(capsule, _USED_NAMES[name])
    owner = _ConsumedCapsule(managed, deleter, {"shape": shape, "typestr": typestr, "strides": strides,
                                                "data": (data + offset, False), "version": 3})
    arr = np.asarray(owner)
    if read_only:
        arr.flags.writeable = False
    if code == 4:
        arr = arr.view(dtypes.bfloat16.np)
    return arr


def from_dlpack(ext_tensor, *, device=None, copy: bool | None = None) -> Tensor:
    """A tensor sharing memory with `ext_tensor`: a DLPack producer (CPU) or a raw DLPack capsule of CPU memory, or
    any object with `__cuda_array_interface__` (CuPy, PyTorch, Numba device arrays). `copy=True` copies; `device`
    moves the result there (a copy where it is another device)."""
    from ember.core.creation import from_numpy

    if type(ext_tensor).__name__ == "PyCapsule":
        if device is not None or copy is not None:
            raise AssertionError("device and copy kwargs not supported when ext_tensor is already a DLPack capsule.")
        return from_numpy(_from_capsule(ext_tensor))
    cai = getattr(ext_tensor, "__cuda_array_interface__", None)
    if cai is None and not hasattr(ext_tensor, "__dlpack__"):  # PyTorch takes it for a capsule
        raise RuntimeError(_INVALID_CAPSULE)
    t = from_numpy(np.from_dlpack(ext_tensor)) if cai is None else _from_cuda_array_interface(ext_tensor, cai)
    if copy:
        t = t.clone()
    return t if device is None else t.to(device)


def _cai_geometry(cai: dict) -> tuple[dtypes.dtype, tuple[int, ...], tuple[int, ...], int]:
    """The dtype, size, strides (in elements) and byte span of a CUDA Array Interface dict, each
    checked by the geometry gate (NOTE [ The geometry gate ]) before any memory is touched."""
    from ember.core.geometry import check_geometry

    try:
        dt = dtypes.as_dtype(np.dtype(cai["typestr"]))
    except (KeyError, TypeError, ValueError):
        raise TypeError(f"from_dlpack: unsupported __cuda_array_interface__ typestr {cai.get('typestr')!r}") from None
    isz = dt.itemsize
    shape = cai.get("shape")
    shape = tuple(shape) if isinstance(shape, tuple | list) else shape
    byte_strides = cai.get("strides")
    if byte_strides is None:
        strides = _contiguous(shape if isinstance(shape, tuple) else ())
    else:
        if not isinstance(byte_strides, tuple | list) or any(type(b) is int and b % isz for b in byte_strides):
            raise RuntimeError(f"from_dlpack: strides {byte_strides!r} (bytes) are not multiples of the element size "
                               f"{isz}")
        strides = tuple(b // isz if type(b) is int else b for b in byte_strides)
    shape, strides, _ = check_geometry(INT64_MAX, isz, shape, strides, 0, op="from_dlpack")
    n = 1
    for s in shape:
        n *= s
    span = (sum((a - 1) * b for a, b in zip(shape, strides)) + 1) * isz if n else 0
    return dt, shape, strides, span


def _from_cuda_array_interface(ext, cai: dict) -> Tensor:
    from numba import cuda

    from ember.core.cuda import _lazy_init, current_device
    from ember.core.cuda.storage import storage_from_array
    from ember.core.device import device
    from ember.core.geometry import make_tensor

    dt, shape, strides, span = _cai_geometry(cai)
    _lazy_init()
    ptr = cai["data"][0]
    data = cuda.as_cuda_array(_ByteView(ext, ptr, span), sync=False) if span else cuda.device_array(0, np.uint8)
    st = storage_from_array(data, span, device("cuda", current_device()), ext)
    return make_tensor(st, 0, shape, strides, dt, op="from_dlpack")


def _contiguous(shape) -> tuple[int, ...]:
    from ember.core.tensor import contiguous_strides

    return contiguous_strides(shape)


def _pin_memory(self: Tensor, device=None) -> Tensor:
    """A copy of this CPU tensor in page-locked memory, for truly asynchronous copies."""
    from ember.core.cuda import transfer

    return transfer.pin_memory(self)


def _is_pinned(self: Tensor, device=None) -> bool:
    if self._storage.device.type != "cpu":
        return False
    from ember.core.cuda import transfer

    return transfer.is_pinned(self)


def _record_stream(self: Tensor, stream) -> None:
    """Tell the allocator this tensor is used on `stream` (see NOTE [ Stream safety in the allocator ])."""
    from ember.core.cuda import record_stream

    record_stream(self, stream)


def attach_methods() -> None:
    attach("__cuda_array_interface__", property(_cuda_array_interface))
    attach("__dlpack__", _dlpack)
    attach("__dlpack_device__", _dlpack_device)
    attach("pin_memory", _pin_memory)
    attach("is_pinned", _is_pinned)
    attach("record_stream", _record_stream)
