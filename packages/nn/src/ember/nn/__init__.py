"""`ember.nn`: PyTorch's `torch.nn` (Module, Parameter, layers, losses, containers) on ember."""

from ember.nn.parameter import Buffer, Parameter
from ember.nn.modules import *
from ember.nn.modules import Module
from ember.nn import functional, grad, init, utils
