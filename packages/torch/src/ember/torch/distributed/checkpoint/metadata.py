"""`torch.distributed.checkpoint.metadata`: ember-distributed's."""

from ember.distributed.checkpoint.metadata import *  # noqa: F403
from ember.distributed.checkpoint.metadata import __all__  # noqa: F401
