"""`ember.nn.utils`: gradient clipping, parameter/vector conversion, `rnn` (padding and packing),
`stateless` (functional_call)."""

from ember.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm
from ember.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from ember.nn.utils import rnn
from ember.nn.utils.weight_norm import remove_weight_norm, weight_norm
from ember.nn.utils import parametrizations, parametrize
from ember.nn.utils import stateless
