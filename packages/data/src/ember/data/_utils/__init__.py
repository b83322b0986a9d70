"""PyTorch's private `torch.utils.data._utils` path, which library code imports collate and worker helpers
from (`from torch.utils.data._utils.collate import collate, default_collate_fn_map`): the very modules
`ember.data.collate` and `ember.data.worker`, registered under this package's names."""

import sys

from ember.data import collate, worker

sys.modules[__name__ + ".collate"] = collate
sys.modules[__name__ + ".worker"] = worker

__all__ = ["collate", "worker"]
