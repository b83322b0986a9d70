"""`torch.distributed.nn.functional`: ember-distributed's differentiable collectives."""

from ember.distributed.nn.functional import *  # noqa: F403
