"""`torch.nn.modules.activation`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.activation import (
    ELU, GELU, GLU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish, ReLU, ReLU6, RReLU,
    SiLU, Sigmoid, Softmax, Softmin, Softplus, Softsign, Tanh, Tanhshrink, Threshold,
)
from ember.nn.modules.extra import CELU, Hardshrink, PReLU, SELU, Softmax2d, Softshrink
from ember.nn.modules.transformer import MultiheadAttention
from ember.nn.modules.transformer import NonDynamicallyQuantizableLinear as NonDynamicallyQuantizableLinear

__all__ = [
    "CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid",
    "LogSoftmax", "Mish", "MultiheadAttention", "PReLU", "ReLU", "ReLU6", "RReLU", "SELU", "SiLU", "Sigmoid", "Softmax",
    "Softmax2d", "Softmin", "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold"
]
