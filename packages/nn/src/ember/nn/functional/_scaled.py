"""`F.scaled_mm`: float8 matrix products with decoding scales, as PyTorch's CPU build computes them
(float32 accumulation, one rounding into `output_dtype`); tensor-wise and row-wise scaling."""

from __future__ import annotations

import enum

import ember.autograd as _ag

__all__ = ["ScalingType", "SwizzleType", "scaled_mm"]


class ScalingType(enum.Enum):
    """How a float8 operand was scaled: one scale (TensorWise), one per row of a / column of b (RowWise), or
    per block (the BlockWise kinds, which ember does not implement)."""

    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class SwizzleType(enum.Enum):
    """The memory layout of block scales (only meaningful for the BlockWise kinds)."""

    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


def _check(a, b, scale_a, recipe_a, scale_b, recipe_b) -> None:
    m, n = a.shape[0], b.shape[1]
    float8 = a.dtype in _ag.dtypes.FLOAT8 and b.dtype in _ag.dtypes.FLOAT8
    if recipe_a is ScalingType.TensorWise and recipe_b is ScalingType.TensorWise:
        ok = float8 and scale_a.numel() == 1 and scale_b.numel() == 1
    elif recipe_a is ScalingType.RowWise and recipe_b is ScalingType.RowWise:
        ok = float8 and tuple(scale_a.shape) == (m, 1) and tuple(scale_b.shape) == (1, n)
    else:
        raise NotImplementedError(f"scaled_mm: ember implements TensorWise and RowWise scaling; got {recipe_a} "
                                  f"and {recipe_b}")
    if not ok or not (scale_a.dtype.is_floating_point and scale_b.dtype.is_floating_point):
        raise ValueError("Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, scales "
                         "should be float and singletons.\n- For RowWise scaling, a and b should be float8, scales "
                         f"should be float, scale_a should be ({m}, 1) and scale_b should be (1, {n}), and both "
                         f"should be contiguous.\nGot mat_a.dtype()={a.dtype}, mat_b.dtype()={b.dtype}, "
                         f"scale_a.shape={tuple(scale_a.shape)}, scale_b.shape={tuple(scale_b.shape)}")


def scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None, swizzle_b=None,
              bias=None, output_dtype=_ag.bfloat16, contraction_dim=(), use_fast_accum: bool = False):
    """`(scale_a * mat_a) @ (scale_b * mat_b) (+ bias)` of the float8 matrices mat_a (M, K) and mat_b (K, N),
    accumulated in float32 and rounded once into `output_dtype` (bfloat16 by default)."""
    recipe_a = scale_recipe_a[0] if isinstance(scale_recipe_a, list | tuple) else scale_recipe_a
    recipe_b = scale_recipe_b[0] if isinstance(scale_recipe_b, list | tuple) else scale_recipe_b
    scale_a = scale_a[0] if isinstance(scale_a, list | tuple) else scale_a
    scale_b = scale_b[0] if isinstance(scale_b, list | tuple) else scale_b
    if mat_a.ndim != 2 or mat_b.ndim != 2:
        raise RuntimeError(f"scaled_mm: mat_a and mat_b must be matrices; got {mat_a.ndim}-D and {mat_b.ndim}-D")
    _check(mat_a, mat_b, scale_a, recipe_a, scale_b, recipe_b)
    a = mat_a.float() * scale_a.float()
    b = mat_b.float() * scale_b.float()
    out = a @ b
    if bias is not None:
        out = out + bias.float()
    return out.to(output_dtype or _ag.bfloat16)
