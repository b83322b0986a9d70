"""`torch.distributed.checkpoint.state_dict`: ember-distributed's."""

from ember.distributed.checkpoint.state_dict import *  # noqa: F403
from ember.distributed.checkpoint.state_dict import __all__  # noqa: F401
