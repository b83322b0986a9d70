"""`torch.distributed.checkpoint.filesystem`: ember-distributed's."""

from ember.distributed.checkpoint.filesystem import *  # noqa: F403
from ember.distributed.checkpoint.filesystem import __all__  # noqa: F401
