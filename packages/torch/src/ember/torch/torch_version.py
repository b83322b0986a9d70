"""`torch.torch_version`: `TorchVersion`, a version string that compares by release numbers."""

from ember.torch._version import TorchVersion, __version__

__all__ = ["TorchVersion", "__version__"]
