"""`torch.masked`: reductions and normalizations with `mask=` and `MaskedTensor` (`ember.core.masked`)."""

from ember.core.masked import *  # noqa: F403
from ember.core.masked import __all__  # noqa: F401
from ember.torch.masked import maskedtensor  # noqa: E402
