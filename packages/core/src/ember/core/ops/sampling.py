"""Spatial sampling: `grid_sample` (bilinear, nearest, bicubic; zeros, border, reflection padding)
over Numba CPU kernels with its backward, and `affine_grid` as a composition (a matmul of a base
grid by the transposed affine matrices, so its gradient and devices come from matmul's).

`grid_sampler(input, grid, mode, padding_mode, align_corners)` is the primitive; its backward
`grid_sampler_backward` returns the gradients of input and grid together, as PyTorch's does:
both are sums over the same taps. The meta step checks the grid against the input before any
kernel runs; the kernels bounds-check every tap, since the grid's values are arbitrary.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember.core import dispatch as _dispatch
from ember.core import dtypes
from ember.core.dispatch import declare, node_name
from ember.core.ops import shape as S
from ember.core.ops._util import wrap
from ember.core.ops.arguments import _type_name
from ember.core.ops.parser_errors import int_tuple_error
from ember.core.tensor import Tensor, describe

__all__ = ["grid_sample", "affine_grid", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
           "affine_grid_generator", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def _kernels():
    from ember.core.ops import _sampling_kernels

    return _sampling_kernels


grid_sampler_op = declare("grid_sampler", doc="""Sample `input` at the points of `grid`.

Positional signature: `grid_sampler(input, grid, interpolation_mode, padding_mode,
align_corners)`: input `(N, C, H, W)` with grid `(N, Ho, Wo, 2)`, or `(N, C, D, H, W)` with
grid `(N, Do, Ho, Wo, 3)`; the modes are ints (bilinear 0, nearest 1, bicubic 2; zeros 0,
border 1, reflection 2). Backward: `grid_sampler_backward(grad, input, grid, interpolation_mode,
padding_mode, align_corners)` -> (grad_input, grad_grid).""")


def _check(input, grid, interpolation_mode) -> None:
    """PyTorch's checks of `check_grid_sampler_common` and its 2-D/3-D variants, in its order."""
    shape, gshape = list(input._shape), list(grid._shape)
    if not shape or not gshape or shape[0] != gshape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {shape} and grid with sizes {gshape}")
    if gshape[-1] != len(shape) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(shape) - 2} in last dimension, but got "
                           f"grid with sizes {gshape}")
    for i in range(2, len(shape)):
        if shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {shape} with dimension {i} being empty")
    if len(shape) not in (4, 5) or len(gshape) != len(shape):
        raise RuntimeError(f"grid_sampler(): expected {4 if len(shape) == 4 else 5}D input and grid with same number "
                           f"of dimensions, but got input with sizes {shape} and grid with sizes {gshape}")
    if interpolation_mode == 2 and len(shape) != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input._dtype.is_floating_point:  # PyTorch dispatches on the input's dtype before it reads the grid
        if not input.numel():  # (an empty input's empty result it returns before)
            return
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("grid_sampler_2d_cpu_kernel_impl" if len(shape) == 4 else "grid_sampler3d_cpu",
                                  input._dtype)
    if input._dtype is not grid._dtype:  # PyTorch's kernel reads the grid as the input's type
        from ember.core.dtypes import TORCH_NAMES

        raise RuntimeError(f"expected scalar type {TORCH_NAMES[input._dtype.name]} but found "
                           f"{TORCH_NAMES[grid._dtype.name]}")


@grid_sampler_op.meta
def _grid_sampler_meta(input, grid, interpolation_mode, padding_mode, align_corners) -> None:
    _check(input, grid, interpolation_mode)


def _work(t: Tensor) -> np.ndarray:
    """A contiguous float32/float64 copy-or-view of `t` (half types computed in float32)."""
    a = t._np()
    dt = np.float64 if a.dtype == np.float64 else np.float32
    return np.ascontiguousarray(a, dtype=dt)


def _taps(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """The kernels' operands: x `(N, C, L)`, grid `(N, P, gdim)` and the taps `(idx, wts, dws, muls)` of every
    point."""
    K = _kernels()
    x, g = _work(input), _work(grid)
    n, c = x.shape[:2]
    spatial = (1,) * (5 - x.ndim) + x.shape[2:]
    gdim = g.shape[-1]
    g = g.reshape(n, int(np.prod(g.shape[1:-1])), gdim)
    k = 16 if interpolation_mode == 2 else 1 if interpolation_mode == 1 else 2 ** gdim
    idx = np.empty((n, g.shape[1], k), np.int64)
    wts = np.empty((n, g.shape[1], k), x.dtype)
    dws = np.empty((n, g.shape[1], k, gdim), x.dtype)
    muls = np.empty((n, g.shape[1], gdim), x.dtype)
    if idx.size:
        single = input._dtype is not dtypes.float64  # PyTorch computes coordinates in the input's precision
        K.taps(g.astype(x.dtype, copy=False), *spatial, interpolation_mode, padding_mode, bool(align_corners), single,
               _half_bits(input, interpolation_mode), idx, wts, dws, muls)
    return x.reshape(n, c, int(np.prod(spatial))), g, idx, wts, dws, muls


def _half_bits(input: Tensor, interpolation_mode: int) -> int:
    """A float16/bfloat16 bilinear or nearest sample's significand bits (PyTorch's 2-D and 3-D CPU kernels round
    every operation to the type), else 0 (bicubic computed in float32 and rounded once)."""
    if interpolation_mode == 2:
        return 0
    return {dtypes.float16: 11, dtypes.bfloat16: 8}.get(input._dtype, 0)


@grid_sampler_op.register("cpu")
def _grid_sampler_cpu(input, grid, interpolation_mode, padding_mode, align_corners):
    x, g, idx, wts, _, _ = _taps(input, grid, interpolation_mode, padding_mode, align_corners)
    out = np.empty(x.shape[:2] + (g.shape[1],), x.dtype)
    if out.size:
        _kernels().gather(x, idx, wts, _half_bits(input, interpolation_mode), out)
    out = out.reshape(tuple(input._shape[:2]) + tuple(grid._shape[1:-1]))
    return wrap(out.astype(input._dtype.np, copy=False))


grid_sampler_backward = declare("grid_sampler_backward", doc="""The gradients of grid_sampler.

Positional signature: `grid_sampler_backward(grad_output, input, grid, interpolation_mode,
padding_mode, align_corners)` -> `(grad_input, grad_grid)`: each output gradient spread onto
the taps it read, and the interpolation weights' derivatives in the grid coordinates (zero for
nearest). Not differentiable again (as PyTorch's).""")


@grid_sampler_backward.meta
def _grid_sampler_backward_meta(grad_output, input, grid, interpolation_mode, padding_mode, align_corners) -> None:
    _check(input, grid, interpolation_mode)
    want = tuple(input._shape[:2]) + tuple(grid._shape[1:-1])
    if tuple(grad_output._shape) != want:
        raise RuntimeError(f"grid_sampler_backward: expected grad_output of shape {list(want)}; got "
                           f"{describe(grad_output)}")


@grid_sampler_backward.register("cpu")
def _grid_sampler_backward_cpu(grad_output, input, grid, interpolation_mode, padding_mode, align_corners):
    K = _kernels()
    x, g, idx, wts, dws, muls = _taps(input, grid, interpolation_mode, padding_mode, align_corners)
    go = _work(grad_output).astype(x.dtype, copy=False).reshape(x.shape[:2] + (g.shape[1],))
    gin, ggrid = np.zeros_like(x), np.zeros_like(g, dtype=x.dtype)
    if go.size:
        K.scatter(go, idx, wts, gin)
        if interpolation_mode != 1:  # nearest: the grid's gradient is zero
            K.grid_grad(go, x, idx, dws, muls, ggrid)
    return (wrap(gin.reshape(tuple(input._shape)).astype(input._dtype.np, copy=False)),
            wrap(ggrid.reshape(tuple(grid._shape)).astype(grid._dtype.np, copy=False)))


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """`torch.grid_sampler`: grid_sample with the modes as ints (bilinear 0, nearest 1, bicubic 2;
    zeros 0, border 1, reflection 2)."""
    return _named(grid_sampler_op(input, grid, int(interpolation_mode), int(padding_mode), bool(align_corners)),
                  input)


def _named(out: Tensor, input: Tensor) -> Tensor:
    """A volumetric sample's node is PyTorch's GridSampler3DBackward0 (one op serves both ranks here)."""
    return node_name(out, "GridSampler2DBackward0", "GridSampler3DBackward0") if input.ndim == 5 else out


grid_sampler_2d = grid_sampler
grid_sampler_3d = grid_sampler


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Sample `input` at the normalized coordinates of `grid`, as `torch.nn.functional.grid_sample`.

    Args:
        input: `(N, C, H_in, W_in)` or `(N, C, D_in, H_in, W_in)`.
        grid: `(N, H_out, W_out, 2)` or `(N, D_out, H_out, W_out, 3)`, (x, y[, z]) in [-1, 1]
            (-1 the left/top edge; the corner pixels' centres with align_corners=True).
        mode: 'bilinear' (trilinear for 5-D input), 'nearest' or 'bicubic' (4-D only).
        padding_mode: what out-of-range points read: 'zeros', 'border' (clamped) or 'reflection'.
        align_corners: default False (warns when not given, as PyTorch).
    Returns:
        `(N, C, H_out, W_out)` or `(N, C, D_out, H_out, W_out)`.
    Raises:
        ValueError: an unknown mode or padding_mode. RuntimeError: a grid that does not match the input.

    >>> import ember.core as ec
    >>> ec.grid_sample(ec.tensor([[[[1.0, 3.0]]]]), ec.tensor([[[[0.0, 0.0]]]]), align_corners=True).tolist()
    [[[[2.0]]]]
    """
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    for name, t in (("input", input), ("grid", grid)):
        if not isinstance(t, Tensor):
            raise TypeError(f"grid_sample(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    _check_bool("grid_sampler", align_corners, 5)
    return _named(grid_sampler_op(input, grid, GRID_SAMPLE_INTERPOLATION_MODES[mode],
                                  GRID_SAMPLE_PADDING_MODES[padding_mode], bool(align_corners)), input)


def _check_bool(op: str, align_corners, position: int) -> None:
    """PyTorch's functional code hands align_corners to the op's parser, which takes a Python bool only (not 1, not
    numpy's bool)."""
    if not isinstance(align_corners, bool):
        raise TypeError(f"{op}(): argument 'align_corners' (position {position}) must be bool, not "
                        f"{_type_name(align_corners)}")


def _base_grid(size: tuple[int, ...], align_corners: bool, npdt) -> np.ndarray:
    """`(prod(spatial), nd + 1)` rows `[x, y, (z,) 1]` of every output point, x fastest, in theta's dtype and
    rounded as PyTorch's (its linspace, then `* (n - 1)` and `/ n`): nearest sampling rounds the same points."""
    from ember.core.creation import _linspace_floating

    npdt = np.dtype(npdt).type
    axes = []
    for n in reversed(size[2:]):  # x (W) first
        v = _linspace_floating(-1.0, 1.0, n, npdt) if n > 1 else np.zeros(1, npdt)
        axes.append(v if align_corners or n <= 1 else (v * npdt(n - 1)).astype(npdt) / npdt(n))
    mesh = np.meshgrid(*reversed(axes), indexing="ij")  # spatial order D, H, W
    cols = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(mesh[0].size)]
    return np.stack(cols, axis=1)


def affine_grid_generator(theta: Tensor, size: list[int], align_corners: bool) -> Tensor:
    """`torch.affine_grid_generator`: affine_grid without its argument checks."""
    from ember.core.creation import from_numpy

    nd = len(size) - 2
    base = from_numpy(_base_grid(tuple(size), align_corners, theta._dtype.np).astype(theta._dtype.np))
    if theta._storage.device.type != "cpu":
        base = base.to(theta._storage.device)
    if size[0] != theta._shape[0]:
        # PyTorch's words are those of the bmm of its base grid with theta^T
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {nd + 1}] "
                           f"but got: [{theta._shape[0]}, {nd + 1}].")
    reduced = theta._dtype in (dtypes.float16, dtypes.bfloat16)
    skip = _dispatch._SKIP
    if (not reduced and theta._requires_grad and _dispatch.untracked and theta.__class__ in skip
            and not (theta._conj or theta._neg)):
        # PyTorch's one AffineGridGeneratorBackward0 node, its edge to theta's own (NOTE [ One node computed outside
        # dispatch ] in ember.autograd.record)
        plain = Tensor._make(theta._storage, theta._offset, theta._shape, theta._strides, theta._dtype)
        return _dispatch.record("affine_grid_generator", (theta, list(size), bool(align_corners)),
                                _grid_values(plain, base, size, False))
    out = _grid_values(theta, base, size, reduced)
    return node_name(out, type(out.grad_fn).__name__, "AffineGridGeneratorBackward0") if out.grad_fn else out


def _fused_grid_values(theta: Tensor, base: Tensor, size) -> Tensor:
    """`base @ theta^T` as PyTorch's CPU bmm accumulates a float32/float64 row: the first product rounded, each
    next term added by a fused multiply-add (`acc = fma(b_k, t_k, acc)`), so every point is PyTorch's to the bit."""
    from ember.core.ops import numba_cpu

    nd = len(size) - 2
    th, b = theta._np(), base._np()
    axpy = numba_cpu.axpy_ufunc()  # axpy(acc, b, t) = fma(b, t, acc), rounded once
    acc = b[None, :, 0:1] * th[:, None, :, 0]
    for k in range(1, nd + 1):
        acc = axpy(acc, b[None, :, k : k + 1], th[:, None, :, k])
    return wrap(np.ascontiguousarray(acc).reshape((size[0],) + tuple(size[2:]) + (nd,)))


def _grid_values(theta: Tensor, base: Tensor, size, reduced: bool) -> Tensor:
    """`base @ theta^T` per batch as `(N, *spatial, nd)`. Each coordinate is summed in order, rounded after every
    term, as PyTorch's kernel (a BLAS product rounds otherwise and moves points across nearest sampling's rounding
    boundaries); float16/bfloat16 accumulate in float32 and round once, as PyTorch's reduced-precision bmm."""
    nd = len(size) - 2
    # PyTorch's CPU bmm runs a product under 400 multiply-adds per batch in its own loop (each term rounded, as
    # below), a larger one by BLAS (fused)
    blas = (nd + 1) * base._shape[0] * nd >= 400
    if blas and not reduced and theta._storage.device.type == "cpu" and not theta._requires_grad:
        return _fused_grid_values(theta, base, size)
    th = theta.to(dtypes.float32) if reduced else theta
    base = base.to(dtypes.float32) if reduced else base
    out = base[:, 0:1] * th[:, :, 0].unsqueeze(1)
    for k in range(1, nd + 1):
        out = out + base[:, k : k + 1] * th[:, :, k].unsqueeze(1)
    out = S._unsafe_view(out, (size[0],) + tuple(size[2:]) + (nd,))  # a new tensor, no view of the sum (PyTorch's)
    return out.to(theta._dtype) if reduced else out


def affine_grid(theta: Tensor, size: list[int] | tuple[int, ...], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of a batch of affine maps, as `torch.nn.functional.affine_grid`.

    Args:
        theta: `(N, 2, 3)` for 2-D or `(N, 3, 4)` for 3-D maps of output to input coordinates.
        size: the target `(N, C, H, W)` or `(N, C, D, H, W)`.
        align_corners: default False (warns when not given, as PyTorch).
    Returns:
        `(N, H, W, 2)` or `(N, D, H, W, 3)`, for `grid_sample`.
    Raises:
        ValueError: theta not floating point or of the wrong shape. NotImplementedError: a size of other rank.

    >>> import ember.core as ec
    >>> ec.affine_grid(ec.tensor([[[1.0, 0, 0], [0, 1, 0]]]), (1, 1, 1, 2), align_corners=True).tolist()
    [[[[-1.0, 0.0], [1.0, 0.0]]]]
    """
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    if not isinstance(theta, Tensor):
        raise TypeError(f"affine_grid(): argument 'theta' must be Tensor, not {type(theta).__name__}")
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    given, size = size, tuple(int(s) for s in size)  # the messages show the size as given, as PyTorch's
    shape = tuple(theta.shape)
    if len(size) == 4:
        if theta.ndim != 3 or shape[-2:] != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {given}. Got "
                             f"{theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or shape[-2:] != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {given}. Got "
                             f"{theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {given}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {given}")
    err = int_tuple_error("affine_grid_generator", "size", " (position 2)", given)
    if err is not None:  # a float size (`H / 2`): the generator's parser refuses it, no truncation
        raise err
    _check_bool("affine_grid_generator", align_corners, 3)
    return affine_grid_generator(theta, list(size), align_corners)

