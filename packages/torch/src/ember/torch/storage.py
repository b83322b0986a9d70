"""`torch.storage`: PyTorch's module path for its storage classes."""

from ember.torch._typed_storage import TypedStorage
from ember.torch._untyped_storage import UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
