"""`torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks`: `noop_hook`, which communicates nothing."""

from ember.distributed.comm_hook_types import noop_hook

__all__ = ["noop_hook"]
