"""`ember.nn.init`: PyTorch's weight initialisers; each fills its tensor in place under `no_grad`."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ember import autograd as ea
from ember.core import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_", "dirac_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "trunc_normal_", "sparse_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform",
           "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for `nonlinearity` (e.g. sqrt(2) for relu, 5/3 for tanh)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int | float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b)."""
    with ea.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2)."""
    with ea.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill with N(mean, std^2) truncated to [a, b], drawn as PyTorch 2.13 draws it: normals redrawn where they fall
    outside when [a, b] holds more than 30% of the mass, else uniform candidates accepted by the density."""
    if tensor.is_meta:
        return tensor  # nothing to write (NOTE [ The meta device ])

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)
    with ea.no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = tensor.new_tensor(a, device="cpu").item(), tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while bool((mask := (result < lo) | (result > hi)).any()):
                result = ea.where(mask, ea.empty_like(result).normal_(mean, std, generator=generator), result)
            return tensor if result is tensor else tensor.copy_(result)
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2
        candidates, accept = ea.empty_like(tensor), ea.empty_like(tensor)

        def rejected(c):  # the candidates whose log-density falls below a uniform's log
            c.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            return accept.uniform_(generator=generator).log_().gt(c)

        tensor.uniform_(a, b, generator=generator)
        pending = rejected(candidates.copy_(tensor))
        result = tensor
        while bool(pending.any()):
            candidates.uniform_(a, b, generator=generator)
            result = ea.where(pending, candidates, result)
            pending = ea.where(pending, rejected(candidates), pending)
        return tensor if result is tensor else tensor.copy_(result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with ea.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    with ea.no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with ea.no_grad():
        return tensor.zero_()


def _copy_numpy(tensor: Tensor, values: np.ndarray) -> Tensor:
    with ea.no_grad():
        return tensor.copy_(ea.from_numpy(np.ascontiguousarray(values)).to(tensor.dtype))


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the diagonal)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    return _copy_numpy(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a {3, 4, 5}-D conv weight with the Dirac delta: the convolution keeps its input's channels."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    w = np.zeros(tuple(sizes))
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            w[(g * out_per_group + d, d, *centre)] = 1
    return _copy_numpy(tensor, w)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan_mode) (He et al., 2015)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan_mode)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix (QR of a Gaussian matrix, signs fixed by R's diagonal) times gain."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)  # PyTorch's draw, in its dtype
    a = flat.detach().numpy()
    if rows < cols:
        a = a.T
    q, r = np.linalg.qr(a)
    # ember's sign: PyTorch's refusal of a complex tensor; a copy, as np.diag's view is read-only (from_numpy warns)
    q = q * ea.sign(ea.from_numpy(np.diag(r).copy())).numpy()
    if rows < cols:
        q = q.T
    return _copy_numpy(tensor, (gain * q).reshape(tuple(tensor.shape)))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """N(0, std^2) with a fraction `sparsity` of each column set to zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    normal_(tensor, 0, std, generator)
    with ea.no_grad():
        for c in range(cols):
            tensor[ea.randperm(rows)[:num_zeros], c] = 0  # PyTorch draws the zeros from the global generator
    return tensor


def _deprecated(fn):
    """PyTorch's old names without the trailing underscore: warn, then call the new one."""
    old = fn.__name__[:-1]

    def wrapper(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{fn.__name__}`.", FutureWarning,
                      stacklevel=2)
        return fn(*args, **kwargs)

    wrapper.__name__ = old
    wrapper.__doc__ = f"Deprecated alias of `{fn.__name__}`."
    return wrapper


# PyTorch's private fillers, which code that writes its own initialisers (older timm copies) imports
def _no_grad_uniform_(tensor: Tensor, a: float, b: float, generator=None) -> Tensor:
    return uniform_(tensor, a, b, generator)


def _no_grad_normal_(tensor: Tensor, mean: float, std: float, generator=None) -> Tensor:
    return normal_(tensor, mean, std, generator)


def _no_grad_trunc_normal_(tensor: Tensor, mean: float, std: float, a: float, b: float, generator=None) -> Tensor:
    return trunc_normal_(tensor, mean, std, a, b, generator)


def _no_grad_fill_(tensor: Tensor, val: float) -> Tensor:
    return constant_(tensor, val)


def _no_grad_zero_(tensor: Tensor) -> Tensor:
    return zeros_(tensor)


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
