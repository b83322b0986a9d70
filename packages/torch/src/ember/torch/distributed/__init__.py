"""`torch.distributed`: ember-distributed's API where that package is installed; otherwise
`is_available()` is False, as in a PyTorch build without distributed support, and the entry points
raise saying what to install."""

from __future__ import annotations

try:
    from ember.distributed import *  # noqa: F403
    from ember.distributed import is_available
except ImportError:  # ember-distributed is not installed
    from ember.torch._unsupported import unsupported

    _WHY = "the ember-distributed package is not installed (torch.distributed.is_available() is False)"

    def is_available() -> bool:
        """Whether ember-distributed is installed: not here."""
        return False

    def is_initialized() -> bool:
        """No process group exists without ember-distributed."""
        return False

    for _name in ("init_process_group", "destroy_process_group", "get_rank", "get_world_size", "barrier",
                  "all_reduce", "all_gather", "broadcast", "reduce", "new_group", "get_backend"):
        globals()[_name] = unsupported(f"torch.distributed.{_name}", _WHY)
