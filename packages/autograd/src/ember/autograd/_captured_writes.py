"""grad/vjp/jvp's refusal of an in-place write into a captured tensor, in PyTorch's words.

Under PyTorch's grad transforms, a tensor made outside the transformed function (a global buffer, a module's
running statistics) is not wrapped at the transform's level, and writing into it in place raises ("... would
mutate a captured Tensor"). ember runs the function on the tape, where such a write would silently work and leak
out of the transform: while the function runs, the storages it makes are noted (`storage.created_hook`), and a
dispatch hook refuses a write from user code into a storage that is neither one of those nor an input's. User
code is what PyTorch runs as Python: the program and torch.nn's modules; ember.core's ops are ATen's own kernels
(`_vmap_writes._caller` tells them apart).
"""

from __future__ import annotations

import contextlib
import sys

from ember.core import dispatch, storage
from ember.core.tensor import Tensor

from ember.autograd._vmap_writes import _caller

__all__ = ["refusing_captured_writes"]

_MESSAGE = ("During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call in-place "
            "operation ({}) that would mutate a captured Tensor. This is not supported; please rewrite the function "
            "being transformed to explicitly accept the mutated Tensor(s) as inputs.")
_NO_OVERLOAD = frozenset({"copy_", "index_put_"})  # ATen's in-place ops PyTorch names without an overload


def _aten_name(name: str) -> str:
    name = name if name.endswith("_") else name + "_"
    if name in _NO_OVERLOAD:
        return f"aten::{name}"
    if name == "fill_":
        return "aten::fill_.Scalar"
    return f"aten::{name}.Tensor"


class _Refusal:
    def __init__(self, inputs, outer) -> None:
        self.made: dict[int, object] = {id(t._storage): t._storage for t in inputs if isinstance(t, Tensor)}
        self.outer = outer

    def created(self, st) -> None:
        self.made[id(st)] = st
        if self.outer is not None:
            self.outer(st)

    def __call__(self, op, args, kwargs, call_next):
        out = kwargs.get("out") if kwargs else None
        written = out if out is not None else (args[op.mutates[0]] if op.mutates else None)
        if isinstance(written, Tensor) and id(written._storage) not in self.made:
            frame, name, _, _ = _caller(sys._getframe(1), op.name)
            if frame is not None and not frame.f_globals.get("__name__", "").startswith("ember.core"):
                raise RuntimeError(_MESSAGE.format(_aten_name(name)))
        return call_next(op, args, kwargs)


@contextlib.contextmanager
def refusing_captured_writes(inputs):
    """While the transformed function runs: refuse its in-place writes into tensors made outside it but `inputs`."""
    refusal = _Refusal(inputs, storage.created_hook[0])
    storage.created_hook[0] = refusal.created
    dispatch.register_dispatch_hook(refusal)
    try:
        yield
    finally:
        dispatch.remove_dispatch_hook(refusal)
        storage.created_hook[0] = refusal.outer
