"""`torch.masked.maskedtensor`: the `MaskedTensor` class and its constructors (`ember.core.masked_tensor`)."""

from ember.core.masked_tensor import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor

__all__ = ["MaskedTensor", "masked_tensor", "as_masked_tensor", "is_masked_tensor"]
