"""`torch.distributed.optim`: `ZeroRedundancyOptimizer`, optimizer state sharded across the ranks."""

from ember.distributed.optim.zero import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
