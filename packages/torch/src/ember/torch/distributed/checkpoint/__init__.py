"""`torch.distributed.checkpoint` (DCP): ember-distributed's `save`/`load`, storage objects and metadata."""

from ember.distributed.checkpoint import *  # noqa: F403
from ember.distributed.checkpoint import __all__  # noqa: F401
from ember.torch.distributed.checkpoint import filesystem, metadata, state_dict, stateful  # noqa: F401
