"""`torch.distributed.checkpoint.stateful`: ember-distributed's."""

from ember.distributed.checkpoint.stateful import *  # noqa: F403
from ember.distributed.checkpoint.stateful import __all__  # noqa: F401
