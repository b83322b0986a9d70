"""Activation functions: PyTorch's `torch.nn.functional` names over ember-core's activation kernels."""


from __future__ import annotations

from ember import autograd as ea
from ember.core import Tensor
from ember.core.dispatch import node_name
from ember.core.ops.softmax import _implicit_dim

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "celu", "gelu", "silu",
           "mish", "tanh", "sigmoid", "hardtanh", "hardtanh_", "softplus", "softmax", "log_softmax", "softmin",
           "logsigmoid", "softsign", "hardsigmoid", "hardswish", "tanhshrink", "glu", "threshold",
           "rrelu", "rrelu_"]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(0, x) elementwise."""
    return input.relu_() if inplace else ea.relu(input)


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6)."""
    return ea.relu6(input, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    return ea.leaky_relu(input, negative_slope, inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return ea.leaky_relu(input, negative_slope, True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    return ea.elu(input, alpha, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return ea.elu(input, alpha, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return ea.selu(input, inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return ea.celu(input, alpha, inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (`approximate="tanh"`: the tanh approximation)."""
    return ea.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x); PyTorch's kernel has no bool or integer instance (`torch.sigmoid` promotes, silu refuses)."""
    if isinstance(input, Tensor) and not (input.dtype.is_floating_point or input.dtype.is_complex):
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(f"silu_{input.device.type}", input.dtype)
    return ea.silu(input, out=input) if inplace else ea.silu(input)  # in place, the rule saves a clone of the input


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return ea.mish(input, inplace)


def tanh(input: Tensor) -> Tensor:
    return ea.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    return ea.sigmoid(input)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return ea.hardtanh(input, min_val, max_val, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, True)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    return ea.softplus(input, beta, threshold)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's deprecated implicit softmax dim (0 for 0-, 1- and 3-D inputs, else 1), with its warning at
    `stacklevel`; code written against PyTorch's functional module calls it."""
    return _implicit_dim(name, ndim, stacklevel + 1)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim` (None: PyTorch's deprecated implicit choice, with its warning)."""
    if dim is None and isinstance(input, Tensor):
        dim = _implicit_dim("softmax", input.dim())
    return input.softmax(dim, dtype=dtype)  # the method, as PyTorch's: its parser errors count from `dim`


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """x - logsumexp(x) along `dim` (None: PyTorch's deprecated implicit choice, with its warning)."""
    if dim is None and isinstance(input, Tensor):
        dim = _implicit_dim("log_softmax", input.dim())
    return input.log_softmax(dim, dtype=dtype)  # the method, as PyTorch's: its parser errors count from `dim`


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    return ea.softmin(input, dim, dtype=dtype)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), stable for large |x|."""
    return ea.logsigmoid(input)


def softsign(input: Tensor) -> Tensor:
    """`x / (|x| + 1)` composed as PyTorch's Python function is: its graph ends in DivBackward0, and a 16-bit
    input rounds at each step."""
    return input / (input.abs() + 1)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return ea.hardsigmoid(input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return ea.hardswish(input, inplace)


def tanhshrink(input: Tensor) -> Tensor:
    """`x - tanh(x)` composed as PyTorch's Python function is (SubBackward0; 16-bit inputs round at each step)."""
    return input - input.tanh()


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) where a, b are the halves of `input` along `dim` (core's glu: its checks, PyTorch's node, the
    product's or, for 16-bit inputs computed in float32, the cast's)."""
    r = ea.glu(input, dim)
    return node_name(r, "ToCopyBackward0" if r.dtype in (ea.float16, ea.bfloat16) else "MulBackward0", "GluBackward0")


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else value."""
    return ea.threshold(input, threshold, value, inplace)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: each non-positive element times a slope drawn from U(lower, upper) in training,
    times (lower + upper) / 2 otherwise."""
    return ea.rrelu(input, lower, upper, training, inplace)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return ea.rrelu(input, lower, upper, training, True)
