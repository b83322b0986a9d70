"""`torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook`: PowerSGD gradient compression for DDP
(ember-distributed's `powersgd`)."""

from ember.distributed.powersgd import PowerSGDState, batched_powerSGD_hook, powerSGD_hook

__all__ = ["PowerSGDState", "powerSGD_hook", "batched_powerSGD_hook"]
