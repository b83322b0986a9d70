"""`torch.onnx`: importable, but ember cannot export models to ONNX (export traces PyTorch's C++ graph)."""

from ember.torch._unsupported import unsupported

_WHY = "ONNX export traces the model into PyTorch's C++ graph IR, which ember does not have"
export = unsupported("torch.onnx.export", _WHY)


def is_in_onnx_export() -> bool:
    """Never: ember does not export."""
    return False


__all__ = ["export", "is_in_onnx_export"]
