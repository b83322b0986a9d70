"""`torch.testing`: `assert_close` and `make_tensor` (ember.core.testing's)."""

from ember.core.testing import assert_close, make_tensor

__all__ = ["assert_close", "make_tensor"]
