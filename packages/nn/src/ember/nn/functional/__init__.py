"""`ember.nn.functional`: PyTorch's `torch.nn.functional` (activations, losses, layers, attention)."""

from ember.nn.functional._activation import *
from ember.nn.functional._attention import *
from ember.nn.functional._attention import (  # noqa: F401 - PyTorch's private helpers
    _canonical_mask, _in_projection, _in_projection_packed, _mha_shape_check, _none_or_dtype,
)
from ember.nn.functional._layers import *
from ember.nn.functional._layers import _verify_batch_size, _verify_spatial_size  # noqa: F401 - PyTorch's private helpers
from ember.nn.functional._activation import _get_softmax_dim  # noqa: F401
from ember.nn.functional._loss import *
from ember.nn.functional._extra import *
from ember.nn.functional._volumetric import *
from ember.nn.functional._vision import *
from ember.nn.functional._loss_extra import *
from ember.nn.functional._composed import *
from ember.nn import grad  # noqa: E402 - `torch.nn.functional.grad` is the module `torch.nn.grad`
from ember.nn.functional._scaled import *
from ember.core.overrides import (  # noqa: E402 - as in PyTorch, F re-exports the protocol helpers
    handle_torch_function, has_torch_function, has_torch_function_unary, has_torch_function_variadic,
)
