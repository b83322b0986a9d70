"""`torch.distributed.checkpoint.state_dict_loader`: ember-distributed's."""

from ember.distributed.checkpoint.state_dict_loader import *  # noqa: F403
from ember.distributed.checkpoint.state_dict_loader import __all__  # noqa: F401
