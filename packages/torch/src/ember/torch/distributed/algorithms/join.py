"""`torch.distributed.algorithms.join`: the `Join` context manager for uneven inputs, `Joinable`
and `JoinHook` (ember-distributed's `join`)."""

from ember.distributed.join import Join, Joinable, JoinHook

__all__ = ["JoinHook", "Joinable", "Join"]
