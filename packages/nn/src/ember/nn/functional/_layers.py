"""Layer functions: linear maps and thin PyTorch-signature wrappers over ember-core's nn kernels
(convolution, pooling, normalization, dropout, embedding, padding, resampling)."""


from __future__ import annotations

import math
import numbers
import warnings

from ember import autograd as ea
from ember.core import Tensor, dtypes
from ember.autograd.func import is_mapped
from ember.autograd.record import computed
from ember.core import dispatch as _dispatch
from ember.core import storage as _storage
from ember.core.dispatch import SAVES_IN_ARGUMENT_ORDER, composite, node_name
from ember.core.ops.arguments import parsed
from ember.core.ops.linalg import linear_untracked
from ember.core.ops._util import tp_name as _type_name

__all__ = ["linear", "bilinear", "conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
           "adaptive_avg_pool2d", "batch_norm", "layer_norm", "group_norm", "dropout", "dropout2d", "embedding",
           "embedding_bag", "pad", "interpolate", "one_hot", "flatten"]

_REDUCED = (ea.bfloat16, ea.float16)
_UNTRACKED = (ea.float32, ea.float64)  # the dtypes `linear_untracked` computes


def _direct(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor | None:
    """`linear` computed without dispatching its ops, where nothing but autograd would see them (no other hook or mode:
    `dispatch.untracked`; operands of no `__torch_function__`) and the CPU's float32/float64 kernels compute it: at once
    (`linear_untracked`, a third of the dispatched ops' time), recorded as PyTorch's one node where an operand
    requires grad (NOTE [ One node computed outside dispatch ]); None otherwise. The caller checked shapes and
    dtypes."""
    skip = _dispatch._SKIP
    if not (_dispatch.untracked and input._dtype in _UNTRACKED and all(input._shape) and weight._shape[0] > 0
            and input.__class__ in skip and weight.__class__ in skip and bias.__class__ in skip and (
                _storage.only_cpu or all(t is None or t._storage.device.type == "cpu" for t in (input, weight, bias)))):
        return None
    try:
        r = linear_untracked(input, weight, bias)
    except NotImplementedError:  # a sparse operand has no dense array: the dispatched ops
        return None
    if not ((input._requires_grad or weight._requires_grad or bias is not None and bias._requires_grad)
            and ea.is_grad_enabled()):
        return r
    wt = weight.t()  # TBackward0, as PyTorch's
    return computed("mm", (input, wt), r) if bias is None else computed("addmm", (bias, input, wt), r)


def _check_linear_shapes(input: Tensor, weight: Tensor) -> None:
    """PyTorch's words for a matmul of input (*, in) by weight.T that does not fit."""
    if input.dim() == 0 or weight.dim() == 0:
        op = "matmul" if is_mapped(input) or is_mapped(weight) else "linear"  # vmap's rule decomposes linear
        raise RuntimeError(f"both arguments to {op} need to be at least 1D, but they are {input.dim()}D and "
                           f"{weight.dim()}D")
    if weight.dim() > 2:  # PyTorch transposes the weight before any shape check
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.dim()}D")
    if input.shape[-1] != weight.shape[-1]:
        rows = math.prod(input.shape[:-1])
        w = "x".join(str(s) for s in reversed(weight.shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and {w})")


def _addmm_product(input: Tensor, weight: Tensor) -> Tensor:
    """`input @ weight.T` of a linear that PyTorch runs as one addmm: its saved tensors in addmm's order (input
    first; NOTE in ember.core.dispatch on one-node composites)."""
    SAVES_IN_ARGUMENT_ORDER[0] += 1
    try:
        return ea.matmul(input, weight.t())
    finally:
        SAVES_IN_ARGUMENT_ORDER[0] -= 1


@composite("linear")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias; input (*, in_features), weight (out_features, in_features)."""
    if (isinstance(input, Tensor) and isinstance(weight, Tensor) and len(xs := input._shape) == 2
            and len(ws := weight._shape) == 2 and xs[1] == ws[1] and (dt := weight._dtype) is input._dtype
            and dt not in _REDUCED):  # a matrix by a matrix of its dtype: nothing to refuse, no addmm to mimic
        if bias is None:
            r = _direct(input, weight, None)
            return ea.matmul(input, weight.t()) if r is None else r
        if isinstance(bias, Tensor) and bias._dtype is dt and bias._shape == (ws[0],):
            r = _direct(input, weight, bias)
            if r is not None:
                return r
            return node_name(_addmm_product(input, weight) + bias, "AddBackward0", "AddmmBackward0")
    elif (isinstance(input, Tensor) and isinstance(weight, Tensor) and isinstance(bias, Tensor)
          and len(xs := input._shape) > 2 and len(ws := weight._shape) == 2 and xs[-1] == ws[1]
          and (dt := weight._dtype) is input._dtype and bias._dtype is dt and bias._shape == (ws[0],)
          and input.is_contiguous()):
        # PyTorch's flattened addmm (below): at once, or one AddmmBackward0 between the views
        if not ((input._requires_grad or weight._requires_grad or bias._requires_grad) and ea.is_grad_enabled()):
            if (r := _direct(input, weight, bias)) is not None:
                return r
        elif (r := _direct(input.reshape(-1, xs[-1]), weight, bias)) is not None:
            return r.reshape(*xs[:-1], ws[0])
    for position, (name, value) in enumerate((("input", input), ("weight", weight), ("bias", bias)), 1):
        if not isinstance(value, Tensor) and (value is not None or name != "bias"):
            raise TypeError(f"linear(): argument '{name}' (position {position}) must be Tensor, not "
                            f"{_type_name(value)}")
    if weight.dim() == 1 and bias is not None and (input.dim() == 2 or bias.dim() >= 1):
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")  # PyTorch's addmm path for a vector weight
    _check_linear_shapes(input, weight)
    if bias is not None and (input.dtype is not weight.dtype or bias.dtype is not weight.dtype) and \
            weight.dim() == 2 and not (ea.is_autocast_enabled("cpu") or ea.is_autocast_enabled("cuda")):
        # PyTorch's addmm/addmv words (without a bias, matmul's own check speaks)
        a, what = (input, "mat1") if input.dtype is not weight.dtype else (bias, "self")
        raise RuntimeError(f"{what} and mat2 must have the same dtype, but got {dtypes.TORCH_NAMES[a.dtype.name]} "
                           f"and {dtypes.TORCH_NAMES[weight.dtype.name]}")
    if bias is not None and bias.dim() == 1 and weight.dim() == 2 and bias.shape[0] not in (1, weight.shape[0]):
        # PyTorch adds a vector bias through addmm, expanding it to (rows, out_features): expand's error
        rows = math.prod(input.shape[:-1])
        raise RuntimeError(f"The expanded size of the tensor ({weight.shape[0]}) must match the existing size "
                           f"({bias.shape[0]}) at non-singleton dimension 1.  Target sizes: [{rows}, "
                           f"{weight.shape[0]}].  Tensor sizes: [{bias.shape[0]}]")
    if bias is not None and weight.dim() == 2 and input.dim() != 2 and bias.dim() == 1 and input.is_contiguous() or \
            bias is not None and input.dtype in _REDUCED and weight.dim() == 2 and input.dim() == 2:
        # PyTorch's _flatten_nd_linear (flatten, addmm, view); in bfloat16/float16, addmm's float32 sum rounded once.
        # A non-contiguous input of more dims is matmul, then add: rounded twice
        if input.dim() == 2:  # one addmm, no view after it (AddmmBackward0, as PyTorch's)
            return ea.addmm(bias, input, weight.t())
        flat = ea.addmm(bias, input.reshape(-1, input.shape[-1]), weight.t())
        return flat.reshape(*input.shape[:-1], weight.shape[0])
    if bias is not None and input.dim() == 2 and bias.dim() == 1 and weight.dim() == 2:
        out = _addmm_product(input, weight)
    else:
        out = ea.matmul(input, weight.t()) if weight.dim() == 2 else ea.matmul(input, weight)
    if bias is None:
        return out
    # a matrix input with a vector bias is one addmm in PyTorch
    return node_name(out + bias, "AddBackward0", "AddmmBackward0") if input.dim() == 2 and bias.dim() == 1 else \
        out + bias


def _check_bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's checks of bilinear's operands, in its order and words."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    for name, x, want in (("input1", input1, weight.shape[1]), ("input2", input2, weight.shape[2])):
        if x.shape[-1] != want:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {x.shape[-1]} but "
                               f"expected {want}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")


@composite("bilinear")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y_k = x1^T W_k x2 + b_k; input1 (*, in1), input2 (*, in2), weight (out, in1, in2)."""
    out_f, in1, in2 = weight.shape
    _check_bilinear(input1, input2, weight, bias)
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    tmp = ea.matmul(x1, weight.permute(1, 0, 2).reshape(in1, out_f * in2)).reshape(-1, out_f, in2)
    out = (tmp * x2.unsqueeze(1)).sum(-1).reshape(*lead, out_f)
    return out if bias is None else out + bias


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """1-D cross-correlation; input (N, C_in, L) or (C_in, L), weight (C_out, C_in / groups, k)."""
    return ea.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """2-D cross-correlation; input (N, C_in, H, W) or (C_in, H, W), weight (C_out, C_in / groups, kH, kW)."""
    return ea.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The gradient of conv2d with respect to its input; weight (C_in, C_out / groups, kH, kW)."""
    return ea.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Maximum over kernel_size windows; `return_indices` also gives the flat argmax per window."""
    return ea.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode,
                         return_indices=return_indices)


@parsed("avg_pool2d", kernel_size="tuple of ints", stride="tuple of ints?",  # PyTorch's builtin: a keyword
         padding="tuple of ints")  # is named without a position
def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Mean over kernel_size windows."""
    return ea.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Mean pooling to a fixed output size (H_out, W_out)."""
    return ea.adaptive_avg_pool2d(input, output_size)


_VMAP_RUNNING_STATS = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated in place, "
    "were not batched.\nIf you are using a module and do not need eval mode, please set `track_running_stats` to be "
    "False.If you are using a prebuilt module and do not need eval mode, please see the functorch website for "
    "resources on how to patch your module to work with vmap")


def _verify_batch_size(size) -> None:
    """PyTorch's check that a normalisation in training sees more than one value per channel (batch and spatial
    sizes, not dim 1); an empty input passes."""
    if math.prod(size[:1]) * math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size) -> None:
    """PyTorch's check that instance norm in training sees more than one spatial element."""
    if math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (dim 1); in training the batch
    statistics are used and the running ones updated in place."""
    if training:
        _verify_batch_size(input.shape)
    if (training and running_mean is not None and is_mapped(input)
            and not (is_mapped(running_mean) and (running_var is None or is_mapped(running_var)))):
        raise RuntimeError(_VMAP_RUNNING_STATS)
    return ea.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing `normalized_shape` dimensions."""
    return ea.layer_norm(input, tuple(normalized_shape), weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each of `num_groups` channel groups of each sample; as PyTorch's, refuses a group of one value
    (its error prints the size [N * C // G, G, *spatial] it checks)."""
    if input.dim() >= 2:  # a lower rank is the op's own error
        _verify_batch_size([input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]])
    return ea.group_norm(input, num_groups, weight, bias, eps)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p in training and scale the rest by 1 / (1 - p)."""
    _check_p(p)
    return ea.dropout(input, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) with probability p in training, scaling the rest.

    As PyTorch 2.13, the first two dimensions of any other rank are (N, C), with a deprecation
    warning: a 2-D input (N, C) drops single elements, a 3-D input is (N, C, L), as `dropout1d`."""
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
                      "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 3D or 4D inputs).", stacklevel=2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    if input.dim() == 4:
        return ea.dropout2d(input, p, training, inplace)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    result = ea.feature_dropout(input, p, training)
    return input.copy_(result) if inplace and result is not input else result


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of `weight` selected by the integer tensor `input`; output (*input.shape, embedding_dim).

    `sparse=True` gives `weight` a sparse COO gradient, as PyTorch's: the looked-up ids in order (uncoalesced,
    `padding_idx` left out) with the rows of the incoming gradient (`ember.autograd.sparse`).
    """
    for name, pos, arg in (("weight", 1, weight), ("indices", 2, input)):  # as torch.embedding(weight, input)'s parser
        if not isinstance(arg, Tensor):
            raise TypeError(f"embedding(): argument '{name}' (position {pos}) must be Tensor, not {type(arg).__name__}")
    if padding_idx is not None:  # PyTorch's checks: 0 is never out of range (an empty table takes it)
        if padding_idx > 0 and padding_idx >= weight.shape[0] or padding_idx < 0 and padding_idx < -weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx += weight.shape[0]
    if max_norm is not None:
        _renorm(weight, input, max_norm, norm_type)
    return ea.embedding(input, weight, padding_idx, None, norm_type, scale_grad_by_freq, sparse)


def _renorm(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Scale the looked-up rows of `weight` down to `max_norm` in place, outside the graph (PyTorch
    renormalises under no_grad, so the weight stays a leaf)."""
    with ea.no_grad():
        ea.embedding_renorm_(weight, input, float(max_norm), float(norm_type))


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sum/mean/max of the embeddings of each bag (rows of a 2-D `input`, or 1-D `input` cut at `offsets`);
    `sparse=True` gives a sparse gradient, as `embedding`'s (not with mode 'max', as PyTorch)."""
    if max_norm is not None:  # (core checks the arguments; a bad call with max_norm renormalises first)
        _renorm(weight, input, max_norm, norm_type)
    return ea.embedding_bag(input, weight, offsets, None, norm_type, scale_grad_by_freq, mode, sparse,
                            per_sample_weights, include_last_offset, padding_idx)


def _parser_name(v) -> str:
    t = type(v)
    return "Tensor" if isinstance(v, Tensor) else t.__name__ if t.__module__ == "builtins" else \
        f"{t.__module__}.{t.__name__}"


def _is_int(v) -> bool:
    if isinstance(v, Tensor):
        return v.ndim == 0 and not (v.dtype.is_floating_point or v.dtype.is_complex or v.dtype is dtypes.bool)
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_pad_ints(pad) -> None:
    """PyTorch's argument parser on `pad`: a tuple or list of ints (its first element decides the overload)."""
    head = "pad(): argument 'pad' (position 2) must be tuple of ints"
    if not isinstance(pad, tuple | list):
        raise TypeError(f"{head}, not {_parser_name(pad)}")
    for i, p in enumerate(pad):
        if not _is_int(p):
            if i == 0:
                raise TypeError(f"{head}, but found element of type {_parser_name(p)} at pos 0")
            raise TypeError(f"pad(): argument 'pad' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_parser_name(p)}\"")


def pad(input: Tensor, pad: tuple[int, ...], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last len(pad) / 2 dimensions: pad = (left, right, top, bottom, ...); core's `pad` checks them."""
    _check_pad_ints(pad)
    return ea.pad(input, tuple(pad), mode, value)


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resample the spatial dimensions to `size` or by `scale_factor` (nearest, bilinear, ...)."""
    return ea.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)


@parsed("one_hot", num_classes="int")  # a keyword is named without its position, as PyTorch's
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """An int64 tensor (*tensor.shape, num_classes) with a 1 at each class id."""
    return ea.one_hot(tensor, num_classes)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return input.flatten(start_dim, end_dim)
