"""`torch.nn.modules.adaptive`: PyTorch's module path for ember.nn's adaptive softmax."""

from ember.nn.modules.loss_extra import AdaptiveLogSoftmaxWithLoss

__all__ = ["AdaptiveLogSoftmaxWithLoss"]
