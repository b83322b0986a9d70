"""The meta device: tensors with a shape, dtype and strides but no data (PyTorch's `device="meta"`).

NOTE [ The meta device ]
A meta tensor's storage holds no buffer, only its byte count, so a model of any size is built on
`meta` for nothing (then `Module.to_empty(device=...)` and `load_state_dict(..., assign=True)`).
Factories make meta storages through this backend. An op on meta tensors dispatches as on any
device: a view or composite (`"any"` kernel) works on the metadata alone; an in-place op (`fill_`,
`uniform_`: the initialisers) has nothing to write and returns its target, unchecked; any other op
runs its CPU kernel on zero-filled stand-ins of the meta operands (same shapes, strides and dtypes;
the op's meta step checks them as on the CPU) and returns its results' geometry as meta tensors.
ember's meta steps validate, they give no output shapes: so the stand-ins' memory is calloc'd zeros,
mapped lazily, but the CPU results are real, and a functional op costs for that moment what the CPU
would; past `STAND_IN_LIMIT` bytes of operands it raises NotImplementedError rather than allocate (an
in-place op through `out=`, `mul_`, returns its target unchecked instead).
A linear-algebra kernel refusing the zeros (singular) runs again on identity matrices. An op whose
output's shape depends on values (`DATA_DEPENDENT`: `nonzero`, `masked_select`, `unique`,
`bincount`) raises NotImplementedError, as PyTorch's. Reading values raises PyTorch's errors, and so do
operands that do not broadcast (in the words of PyTorch's Python meta kernels, not its CPU ones').
"""

from __future__ import annotations

import numpy as np

from ember.core import device_backends
from ember.core.device import device
from ember.core.storage import Storage
from ember.core.tensor import Tensor

__all__ = ["META", "NO_DATA", "meta_storage", "run_on_meta"]

META = device("meta")
NO_DATA = "Cannot copy out of meta tensor; no data!"
_SEQ = (list, tuple)
# ops whose output's shape depends on the input's values: PyTorch has no meta kernel for them either
DATA_DEPENDENT = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive", "bincount"})
STAND_IN_LIMIT = 2**32  # bytes of zero-filled stand-ins one op may use before it refuses (no OOM on a huge model)


def meta_storage(nbytes: int, dev=META) -> Storage:
    """A storage of `nbytes` bytes on the meta device: no memory behind it."""
    return Storage(None, nbytes, dev)


def _grow(st: Storage, nbytes: int) -> None:
    st.nbytes = nbytes


def _to_device(t: Tensor, dev, non_blocking: bool = False) -> Tensor:
    """`t` on `dev`: onto meta, its geometry (contiguous); out of meta, PyTorch's NotImplementedError."""
    if t._storage.device.type == "meta":
        raise NotImplementedError(NO_DATA)
    from ember.core.tensor import contiguous_strides

    return Tensor._make(meta_storage(t.numel() * t._dtype.itemsize, dev), 0, t._shape,
                        contiguous_strides(t._shape), t._dtype)


class _TooBig(Exception):
    """The stand-ins would pass `STAND_IN_LIMIT`."""


def _no_data(*args):
    raise NotImplementedError(NO_DATA)


def _meta_of(r: Tensor, storages: dict) -> Tensor:
    """The CPU result `r` as a meta tensor: on the meta storage its stand-in's storage stands for, else new."""
    st = storages.get(id(r._storage))
    if st is None:
        st = storages[id(r._storage)] = meta_storage(r._storage.nbytes)
    elif st.nbytes < r._storage.nbytes:  # the kernel grew the stand-in (`out=` resized)
        st.nbytes = r._storage.nbytes
    return Tensor._make(st, r._offset, r._shape, r._strides, r._dtype)


_NONZERO = ("The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
            "data-independent implementation does not exist. This implementation returns a fake value, assuming all "
            "elements of the tensor are non-zero. To enable this registration, please set "
            "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")
_ATEN_NAMES = {"unique": "_unique2"}


def _raise_broadcast_error(args: tuple) -> None:
    """PyTorch's error for meta operands that do not broadcast: the first argument (by position) that does not fit
    the shape of those before it."""
    shapes = [(i, a._shape) for i, a in enumerate(args) if isinstance(a, Tensor)]
    common = [1] * max((len(sh) for _, sh in shapes), default=0)
    for i, sh in shapes:
        for d in range(-1, -len(sh) - 1, -1):
            if common[d] == 1:
                common[d] = sh[d]
            elif sh[d] not in (1, common[d]):
                raise RuntimeError(f"Attempting to broadcast a dimension of length {sh[d]} at {d}! Mismatching "
                                   f"argument at index {i} had {args[i].shape!r}; but expected shape should be "
                                   f"broadcastable to {common}") from None


def run_on_meta(op, args: tuple, kwargs: dict):
    """Run `op` (with no meta or composite kernel) on meta operands: NOTE [ The meta device ]."""
    if op.name in DATA_DEPENDENT:
        if op.name == "nonzero":
            raise NotImplementedError(_NONZERO)
        name = "unique_dim" if op.name == "unique" and len(args) > 1 and args[1] is not None else op.name
        raise NotImplementedError(f"aten::{_ATEN_NAMES.get(name, name)}: attempted to run this operator with Meta "
                                  "tensors, but there was no fake impl or Meta kernel registered. You may have run "
                                  "into this message while using an operator with PT2 compilation APIs "
                                  "(torch.compile/torch.export); in order to use this operator with those APIs "
                                  "you'll need to add a fake impl. Please see the following for next steps:  "
                                  "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")
    written = kwargs.get("out") if kwargs else None
    outs = () if written is None else written if isinstance(written, _SEQ) else (written,)
    for o in outs:
        if isinstance(o, Tensor) and o._storage.device.type != "meta":
            raise RuntimeError(f"Expected out tensor to have device meta, but got {o.device} instead")
    if op.mutates and written is None:
        target = args[op.mutates[0]]
        if isinstance(target, Tensor) and target._storage.device.type != "meta":
            raise NotImplementedError(NO_DATA)  # a CPU tensor written from a meta one (`copy_`)
        return target
    stand_ins: dict = {}  # id(meta storage) -> its zero-filled CPU stand-in
    storages: dict = {}  # id(stand-in storage) -> the meta storage it stands for
    originals: dict = {}  # id(stand-in tensor) -> the meta tensor
    made: dict = {}  # id(meta tensor) -> its stand-in (one each: `add(x, y, out=x)` is in place on the CPU too)

    def cpu(a):
        if isinstance(a, Tensor) and a._storage.device.type == "meta":
            if id(a) in made:
                return made[id(a)]
            st = a._storage
            sub = stand_ins.get(id(st))
            if sub is None:
                if sum(x.nbytes for x in stand_ins.values()) + st.nbytes > STAND_IN_LIMIT:
                    raise _TooBig
                sub = stand_ins[id(st)] = Storage(np.zeros(st.nbytes, np.uint8), st.nbytes)
                storages[id(sub)] = st
            t = Tensor._make(sub, a._offset, a._shape, a._strides, a._dtype)
            originals[id(t)] = a
            made[id(a)] = t
            return t
        if isinstance(a, _SEQ) and any(isinstance(x, Tensor) for x in a):  # `x[:, idx]`'s key is [None, idx]
            return type(a)(cpu(x) for x in a)
        return a

    try:
        cpu_kwargs = {k: cpu(v) for k, v in kwargs.items()} if kwargs else {}
        cpu_args = tuple(cpu(a) for a in args)
    except _TooBig:
        if any(o is a for o in outs for a in args):  # in place through `out=` (`mul_`): nothing to write
            return written
        raise NotImplementedError(
            f"{op.name} on meta tensors of more than {STAND_IN_LIMIT} bytes: ember works out this op's meta result "
            "by running its CPU kernel on zeros, which would need that memory") from None
    try:
        result = op.redispatch(cpu_args, cpu_kwargs)
    except RuntimeError as e:
        from ember.core.ops.linalg_solvers import LinAlgError

        if str(e).startswith("The size of tensor a ("):  # PyTorch's meta kernels broadcast in Python, in their words
            _raise_broadcast_error(args)
        if not isinstance(e, LinAlgError):
            raise
        # zeros are singular (inv, solve, cholesky refuse them): square matrices become identities instead
        for t in made.values():
            if t.ndim >= 2 and t._shape[-1] == t._shape[-2]:
                a = t._np()
                a[...] = np.eye(t._shape[-1]).astype(a.dtype)
        result = op.redispatch(cpu_args, cpu_kwargs)

    def back(r):
        if isinstance(r, Tensor):
            orig = originals.get(id(r))
            return orig if orig is not None else _meta_of(r, storages)
        if isinstance(r, _SEQ):
            return type(r)(back(x) for x in r)
        return r

    if written is not None:  # the kernel checked (and resized) `out`'s stand-in: `out` takes its geometry
        cpu_out = cpu_kwargs["out"]
        for o, sub in zip(outs, cpu_out if isinstance(written, _SEQ) else (cpu_out,)):
            o._set_meta(_meta_of(sub, storages)._storage, sub._offset, sub._shape, sub._strides)
    return back(result)


device_backends.register_backend("meta", device_backends.Backend(
    is_available=lambda: True, current_device=lambda: 0, storage=meta_storage, grow_storage=_grow,
    to_device=_to_device, to_host=_no_data, copy_to_host=_no_data, synchronize=lambda *a: None))
