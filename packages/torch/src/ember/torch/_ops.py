"""`torch.ops`: the operators that `torch.library.custom_op` registered, reached by name as PyTorch code calls
them (`torch.ops.mylib.crop(x)`, `torch.ops.mylib.crop.default`). ember has no ATen registry, so a namespace
holds only custom ops; `torch.ops.aten` names ember's operators as ATen's overloads (ember.torch._aten_ops)."""

from __future__ import annotations

from ember.torch.library import _OPS, CustomOpDef


class OpOverload:
    """One overload of a custom op (ember's ops have only `default`): calls the op."""

    def __init__(self, op: CustomOpDef) -> None:
        self._op = op
        self._name = op._name
        self._overloadname = "default"

    def name(self) -> str:
        return self._name

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self._name.replace('::', '.')}', overload='default')>"

    def __str__(self) -> str:
        return f"{self._name.replace('::', '.')}.default"


class OpOverloadPacket:
    """`torch.ops.<ns>.<op>`: callable as the op, its overloads as attributes."""

    def __init__(self, op: CustomOpDef) -> None:
        self._qualified_op_name = op._name
        self.default = op._opoverload

    def overloads(self) -> list[str]:
        return ["default"]

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'")

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self}')>"

    def __str__(self) -> str:
        return self._qualified_op_name.replace("::", ".")


class _OpNamespace:
    """`torch.ops.<ns>`: the custom ops registered under `ns`."""

    def __init__(self, ns: str) -> None:
        self.name = ns

    def __getattr__(self, op: str) -> OpOverloadPacket:
        if op.startswith("__"):
            raise AttributeError(op)
        found = _OPS.get(f"{self.name}::{op}")
        if found is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}'")
        packet = found.__dict__.get("_packet")
        if packet is None:  # one per op, as PyTorch's (`torch.ops.ns.op is torch.ops.ns.op`)
            packet = found.__dict__["_packet"] = OpOverloadPacket(found)
        return packet

    def __repr__(self) -> str:
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"


class _Ops:
    """`torch.ops`: one namespace per library."""

    def __getattr__(self, ns: str) -> _OpNamespace:
        if ns.startswith("__"):
            raise AttributeError(ns)
        if ns == "aten":
            from ember.torch._aten_ops import aten

            self.__dict__["aten"] = aten
            return aten
        if ns in ("prims", "quantized"):
            raise AttributeError(f"torch.ops.{ns}: PyTorch's C++ operator registry is not provided by ember; "
                                 "torch.ops holds only torch.library.custom_op operators (see docs/porting.md)")
        namespace = self.__dict__[ns] = _OpNamespace(ns)  # found as an attribute from now on
        return namespace

    def __repr__(self) -> str:
        return "<module 'torch.ops' from 'torch.ops'>"


ops = _Ops()
