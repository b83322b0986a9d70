"""`torch.distributed.checkpoint.state_dict_saver`: ember-distributed's."""

from ember.distributed.checkpoint.state_dict_saver import *  # noqa: F403
from ember.distributed.checkpoint.state_dict_saver import __all__  # noqa: F401
