"""`ember.nn.modules`: every layer class (re-exported by `ember.nn`)."""

from ember.nn.modules.module import Module, register_module_forward_hook, register_module_forward_pre_hook
from ember.nn.modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from ember.nn.modules.linear import Bilinear, Flatten, Identity, Linear, Unflatten
from ember.nn.modules.activation import *
from ember.nn.modules.conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from ember.nn.modules.pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d,
)
from ember.nn.modules.normalization import (
    BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d, LayerNorm,
)
from ember.nn.modules.dropout import Dropout, Dropout2d
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
from ember.nn.modules.more import *
from ember.nn.modules.more import LinearCrossEntropyOptions
from ember.nn.modules.parallel import DataParallel

# the layer classes and the global hook registrars, not this package's submodules
__all__ = sorted(n for n, v in dict(globals()).items() if isinstance(v, type) and issubclass(v, Module)) + [
    "register_module_forward_hook", "register_module_forward_pre_hook", "LinearCrossEntropyOptions"]
