"""`torch.distributed.nn`: ember-distributed's differentiable collectives (`functional`), also at this level."""

from ember.distributed.nn import *  # noqa: F403
from ember.torch.distributed.nn import functional  # noqa: F401
