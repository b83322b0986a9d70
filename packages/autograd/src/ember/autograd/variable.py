"""`torch.autograd.variable`: where pre-0.4 code imports `Variable` from (a function returning the tensor)."""

from ember.autograd.tensor_api import Variable

__all__ = ["Variable"]
