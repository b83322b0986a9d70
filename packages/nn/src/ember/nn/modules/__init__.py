"""`ember.nn.modules`: every layer class (re-exported by `ember.nn`)."""

from ember.nn.modules.module import (
    Module, register_module_backward_hook, register_module_buffer_registration_hook, register_module_forward_hook,
    register_module_forward_pre_hook, register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook,
)
from ember.nn.modules.container import Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from ember.nn.modules.linear import Bilinear, Flatten, Identity, Linear, Unflatten
from ember.nn.modules.activation import *
from ember.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ember.nn.modules.pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
    AvgPool1d, AvgPool2d, AvgPool3d, MaxPool1d, MaxPool2d, MaxPool3d,
)
from ember.nn.modules.normalization import (
    BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LayerNorm,
    SyncBatchNorm,
)
from ember.nn.modules.lazy import (
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,
    LazyConvTranspose2d, LazyConvTranspose3d,
    LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear, LazyModuleMixin,
)
from ember.nn.modules.dropout import AlphaDropout, Dropout, Dropout2d, Dropout3d, FeatureAlphaDropout
from ember.nn.modules.sparse import Embedding, EmbeddingBag
from ember.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from ember.nn.modules.loss import *
from ember.nn.modules.transformer import (
    MultiheadAttention, NonDynamicallyQuantizableLinear, Transformer, TransformerDecoder, TransformerDecoderLayer,
    TransformerEncoder, TransformerEncoderLayer,
)
from ember.nn.modules.upsampling import Upsample
from ember.nn.modules.extra import *
from ember.nn.modules.vision import *
from ember.nn.modules.loss_extra import *
from ember.nn.modules.linear_cross_entropy import *
from ember.nn.modules.linear_cross_entropy import LinearCrossEntropyOptions
from ember.nn.modules.parallel import DataParallel

# the layer classes and the global hook registrars, not this package's submodules
__all__ = sorted(n for n, v in dict(globals()).items() if isinstance(v, type) and issubclass(v, Module)) + [
    "LazyModuleMixin", "register_module_forward_hook", "register_module_forward_pre_hook",
    "register_module_full_backward_pre_hook", "register_module_full_backward_hook", "register_module_backward_hook",
    "register_module_buffer_registration_hook", "register_module_module_registration_hook",
    "register_module_parameter_registration_hook", "LinearCrossEntropyOptions"]
