"""`torch.nn.parallel.data_parallel`: PyTorch's module path for `DataParallel`."""

from ember.torch.nn.parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
