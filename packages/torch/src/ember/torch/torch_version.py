"""`torch.torch_version`: `TorchVersion`, the str subclass of `torch.__version__` that compares as a version."""

from ember.torch._version import TorchVersion, __version__

__all__ = ["TorchVersion", "__version__"]
