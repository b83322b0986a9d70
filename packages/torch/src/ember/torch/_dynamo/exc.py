"""`torch._dynamo.exc`: the errors `torch.compile` raises."""

from __future__ import annotations

from ember.jit import TorchDynamoException, Unsupported

__all__ = ["TorchDynamoException", "InvalidBackend", "Unsupported"]


class InvalidBackend(TorchDynamoException):
    """`torch.compile(..., backend=name)` with a name no backend has."""

    def __init__(self, name) -> None:
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")
