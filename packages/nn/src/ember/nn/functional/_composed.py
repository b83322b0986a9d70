"""The rest of `torch.nn.functional` that composes from primitives: conv_tbc, native_channel_shuffle,
linear_cross_entropy, grouped_mm, and the helpers PyTorch's module exposes (`assert_int_or_pair`,
`boolean_dispatch`)."""

from __future__ import annotations

from collections.abc import Callable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.dtypes import TORCH_NAMES
from ember.core.tensor import describe

__all__ = ["conv_tbc", "native_channel_shuffle", "linear_cross_entropy", "assert_int_or_pair", "boolean_dispatch",
           "grouped_mm"]

_SELU_ALPHA = 1.7580993408473766  # -SELU's negative saturation (scale * alpha), what dropped units are set to


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution in time-batch-channel layout: input `(T, B, C_in)`, weight `(K, C_in, C_out)`,
    bias `(C_out,)` -> `(T + 2 pad - K + 1, B, C_out)`."""
    if input.dim() != 3:
        raise RuntimeError(f"Input must have 3 dims: time, batch, in_channel; got {describe(input)}")
    if weight.dim() != 3:
        raise RuntimeError(f"Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.; got "
                           f"{describe(weight)}")
    if bias.dim() != 1:
        raise RuntimeError(f"Bias must be 1-D; got {describe(bias)}")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    # PyTorch's kernel is an addmm into the bias: its dtype rules, and a bias of any dtype cast to the input's
    if weight.dtype != input.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {TORCH_NAMES[input.dtype.name]} and "
                           f"{TORCH_NAMES[weight.dtype.name]}")
    if input.dtype == ea.bool:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if bias.dtype != input.dtype:
        bias = bias.to(input.dtype)
    out = ea.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """`channel_shuffle` (PyTorch's native spelling)."""
    from ember.nn.functional import channel_shuffle

    return channel_shuffle(input, groups)


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options=None) -> Tensor:
    """`cross_entropy(linear(input, linear_weight) + linear_bias, target, ...)`, as PyTorch's reference path.

    Args:
        input: `(N, in_features)` or `(in_features,)`. linear_weight: `(C, *out_features, in_features)`.
        options: PyTorch's chunking options; accepted, ember always computes the reference (unchunked) way.
    """
    from ember.nn.functional import cross_entropy

    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    logits = ea.matmul(input, linear_weight.reshape(-1, in_features).t()).reshape(logits_shape)
    if linear_bias is not None:
        logits = logits + linear_bias
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)


def grouped_mm(mat_a: Tensor, mat_b: Tensor, *, offs: Tensor | None = None, bias: Tensor | None = None,
               out_dtype=None) -> Tensor:
    """Per-group matrix products (Mixture-of-Experts layers), as `torch.nn.functional.grouped_mm`.

    3-D `(G, M, K)` @ 3-D `(G, K, N)` is a batched matmul (no offs). With a 2-D operand, `offs`
    (ascending group ends) splits its jagged dim: 2-D `(M, K)` @ 3-D `(G, K, N)` splits the rows of
    mat_a -> `(M, N)`; 3-D `(G, M, K)` @ 2-D `(K, N)` the columns of mat_b -> `(M, N)`; 2-D `(M, K)` @
    2-D `(K, N)` the shared K -> `(G, M, N)`. Rows or columns past `offs[-1]` are zero (PyTorch leaves
    them unwritten). Composed from matmuls, so it is differentiable on any dtype and device.
    """
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if mat_a.dim() not in (2, 3) or mat_b.dim() not in (2, 3):
        raise RuntimeError(f"grouped_mm: expected 2-D or 3-D operands; got {describe(mat_a)} and {describe(mat_b)}")
    if (offs is None) != (mat_a.dim() == 3 and mat_b.dim() == 3):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is None:
        out = ea.matmul(mat_a, mat_b)
    else:
        ends = [int(v) for v in offs.detach().cpu().reshape(-1).tolist()]
        jagged = mat_a.shape[0] if mat_a.dim() == 2 and mat_b.dim() == 3 else \
            mat_b.shape[1] if mat_a.dim() == 3 else mat_a.shape[1]
        if any(b < a for a, b in zip([0] + ends, ends)) or (ends and ends[-1] > jagged):
            raise RuntimeError(f"grouped_mm: offs must be non-decreasing and at most {jagged}; got {ends}")
        spans = list(zip([0] + ends[:-1], ends))
        if mat_a.dim() == 2 and mat_b.dim() == 3:
            parts = [ea.matmul(mat_a[s:e], mat_b[g]) for g, (s, e) in enumerate(spans)]
            parts.append(ea.zeros(jagged - (ends[-1] if ends else 0), mat_b.shape[2], dtype=mat_a.dtype,
                                  device=mat_a.device))
            out = ea.cat(parts, 0)
        elif mat_a.dim() == 3:
            parts = [ea.matmul(mat_a[g], mat_b[:, s:e]) for g, (s, e) in enumerate(spans)]
            parts.append(ea.zeros(mat_a.shape[1], jagged - (ends[-1] if ends else 0), dtype=mat_a.dtype,
                                  device=mat_a.device))
            out = ea.cat(parts, 1)
        else:
            out = ea.stack([ea.matmul(mat_a[:, s:e], mat_b[s:e]) for s, e in spans])
    return out if out_dtype is None else out.to(out_dtype)


def assert_int_or_pair(arg: list[int] | int, arg_name: str, message: str) -> None:
    """PyTorch's helper: `arg` is an int or a pair, else AssertionError with `message.format(arg_name)`."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def boolean_dispatch(arg_name: str, arg_index: int, default: bool, if_true: Callable, if_false: Callable,
                     module_name: str | None = None, func_name: str | None = None) -> Callable:
    """A function that calls `if_true` or `if_false` by the boolean argument `arg_name` (at `arg_index`
    positionally, `default` when absent): PyTorch's helper behind `max_pool2d(return_indices=...)`."""
    def fn(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        fn.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        fn.__doc__ = if_true.__doc__
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn
