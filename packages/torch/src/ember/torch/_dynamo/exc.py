"""`torch._dynamo.exc`: the errors `torch.compile` raises."""

from __future__ import annotations

from ember.jit import TorchDynamoException, Unsupported

__all__ = ["TorchDynamoException", "InvalidBackend", "Unsupported"]  # and BackendCompilerFailed, on first use


class InvalidBackend(TorchDynamoException):
    """`torch.compile(..., backend=name)` with a name no backend has."""

    def __init__(self, name) -> None:
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


def __getattr__(name: str):
    if name == "BackendCompilerFailed":  # torch.fx comes with it: imported on first use
        from ember.torch._dynamo.fx_backend import BackendCompilerFailed

        return BackendCompilerFailed
    raise AttributeError(f"module 'torch._dynamo.exc' (ember.torch._dynamo.exc) has no attribute '{name}'")
