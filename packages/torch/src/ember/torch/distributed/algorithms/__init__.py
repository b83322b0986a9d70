"""`torch.distributed.algorithms`: DDP's communication hooks (`ddp_comm_hooks`) and the `Join`
context manager for uneven inputs (`join`)."""

from ember.torch.distributed.algorithms.join import Join, Joinable, JoinHook

__all__ = ["Join", "Joinable", "JoinHook"]
