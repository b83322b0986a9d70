"""`torch.nn.parallel.distributed`: PyTorch's module path for `DistributedDataParallel`."""

from ember.torch.nn.parallel import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
