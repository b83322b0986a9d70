"""`torch.nn.modules`: the layer classes under PyTorch's module paths (`nn.modules.activation`,
`nn.modules.batchnorm` ...); every class is ember.nn's own."""

from ember.nn.modules import *  # noqa: F403
from ember.torch.nn.modules import (
    activation, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold, instancenorm, lazy,
    linear, loss, module, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling, utils,
)
from ember.torch.nn.modules import adaptive, linear_cross_entropy_options  # noqa: E402, F401
