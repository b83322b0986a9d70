"""`ember.nn.utils`: gradient clipping, parameter/vector conversion, `rnn` (padding and packing), weight and
spectral norms, `parametrize`, `prune`, `fusion`, `stateless`."""

from ember.nn.utils.clip_grad import (
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
)
from ember.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from ember.nn.utils import rnn
from ember.nn.utils.weight_norm import remove_weight_norm, weight_norm
from ember.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from ember.nn.utils.fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from ember.nn.utils.init import skip_init
from ember.nn.utils.memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from ember.nn.utils import fusion, parametrizations, parametrize, prune, stateless
