"""`torch.nn.parallel`: `DataParallel` runs the module on its one device (ember runs one device per
process); `DistributedDataParallel` is ember-distributed's where that package is installed."""

from ember.nn.modules.parallel import DataParallel, data_parallel, gather, parallel_apply, replicate, scatter

try:
    from ember.distributed import DistributedDataParallel
except ImportError:  # ember-distributed is not installed
    from ember.nn import Module as _Module

    class DistributedDataParallel(_Module):
        """Stands for PyTorch's class (for `isinstance` checks); constructing it needs ember-distributed."""

        def __init__(self, module, *args, **kwargs) -> None:
            raise RuntimeError("DistributedDataParallel needs the ember-distributed package, which is not installed; "
                               "torch.distributed.is_available() is False")

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "gather", "parallel_apply", "replicate",
           "scatter"]
