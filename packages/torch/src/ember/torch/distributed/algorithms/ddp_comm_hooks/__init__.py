"""`torch.distributed.algorithms.ddp_comm_hooks`: the hooks `DistributedDataParallel.register_comm_hook`
takes (`default_hooks`, `powerSGD_hook`); needs ember-distributed."""

from ember.torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook

__all__ = ["default_hooks", "powerSGD_hook"]
