"""`torch.futures`: `Future`, `collect_all`, `wait_all`."""

from ember.core.futures import Future, collect_all, wait_all

__all__ = ["Future", "collect_all", "wait_all"]
