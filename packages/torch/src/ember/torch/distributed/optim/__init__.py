"""`torch.distributed.optim`: ember-distributed's `ZeroRedundancyOptimizer`."""

from ember.distributed.optim import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
