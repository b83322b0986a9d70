"""`torch.distributed.checkpoint.api`: ember-distributed's."""

from ember.distributed.checkpoint.api import *  # noqa: F403
from ember.distributed.checkpoint.api import __all__  # noqa: F401
