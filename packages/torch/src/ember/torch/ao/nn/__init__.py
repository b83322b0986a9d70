"""`torch.ao.nn`: the fused module classes (`intrinsic`)."""

from ember.torch.ao.nn import intrinsic  # noqa: F401
