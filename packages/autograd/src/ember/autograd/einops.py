"""`torch.func.rearrange`: einops' `rearrange` (a pattern such as `"b (h w) c -> b c h w"`) as functorch does it,
with its errors: ValueError for a bad pattern, TypeError for a length that is no int, and functorch.dim's
DimensionBindError where the lengths do not fit the tensor.

The pattern is parsed once per (ndim, pattern, lengths) into a plan: split the input's dims into their elementary
axes (`reshape`), sum away the input's unit axes (functorch sums them, whatever their size), order the axes as the
right side names them (`permute`) and merge its groups (`reshape`); all differentiable ops.
"""

from __future__ import annotations

import keyword
import math
import warnings
from functools import lru_cache

from ember.core import Tensor
from ember.core.ops.join import stack

__all__ = ["rearrange", "DimensionBindError"]

_ELLIPSIS = "\u2026"  # "..." once parsed: one character, so the scanner treats it as an axis name


class DimensionBindError(Exception):
    """functorch.dim's error for axis lengths that do not fit the tensor's sizes."""


class _Side:
    """One side of a pattern: `groups`, each a list of axis names (`[]` for a unit axis) or `_ELLIPSIS`."""

    def __init__(self, text: str) -> None:
        self.groups: list = []
        self.names: set[str] = set()
        self.ellipsis = self.ellipsis_grouped = False
        self.sized_anonymous = False
        if "." in text:
            if "..." not in text:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if text.count("...") != 1 or text.count(".") != 3:
                raise ValueError("Expression may contain dots only inside ellipsis (...); only one ellipsis for "
                                 "tensor ")
            text, self.ellipsis = text.replace("...", _ELLIPSIS), True
        group: list | None = None
        word = ""
        for ch in text + " ":
            if ch.isalnum() or ch in ("_", _ELLIPSIS):
                word += ch
                continue
            if ch not in "() ":
                raise ValueError(f"Unknown character '{ch}'")
            if word:
                self._add(word, group)
                word = ""
            if ch == "(":
                if group is not None:
                    raise ValueError("Axis composition is one-level (brackets inside brackets not allowed)")
                group = []
            elif ch == ")":
                if group is None:
                    raise ValueError("Brackets are not balanced")
                self.groups.append(group)
                group = None
        if group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{text}'")

    def _add(self, name: str, group: list | None) -> None:
        if name in self.names:
            raise ValueError(f"Indexing expression contains duplicate dimension '{name}'")
        if name == _ELLIPSIS:
            self.names.add(name)
            self.ellipsis_grouped = group is not None
            (self.groups if group is None else group).append(name)
            return
        if name.isdecimal():
            if int(name) == 1:
                if group is None:
                    self.groups.append([])
                return
            self.sized_anonymous = True  # rearrange refuses it once both sides are parsed
            (self.groups if group is None else group).append([name] if group is None else name)
            return
        _check_name(name)
        self.names.add(name)
        (self.groups if group is None else group).append([name] if group is None else name)


def _check_name(name: str) -> None:
    if not name.isidentifier():
        raise ValueError(f"Invalid axis identifier: {name}\nnot a valid python identifier")
    if name[0] == "_" or name[-1] == "_":
        raise ValueError(f"Invalid axis identifier: {name}\naxis name should should not start or end with underscore")
    if keyword.iskeyword(name):
        warnings.warn(f"It is discouraged to use axes names that are keywords: {name}", RuntimeWarning, stacklevel=5)
    if name == "axis":
        warnings.warn("It is discouraged to use 'axis' as an axis name and will raise an error in future",
                      FutureWarning, stacklevel=5)


def _parse(pattern: str, lengths: dict) -> tuple[_Side, _Side]:
    sides = pattern.split("->")
    if len(sides) != 2:
        raise ValueError("Pattern must contain a single '->' separator")
    if _ELLIPSIS in lengths:
        raise ValueError(f"'{_ELLIPSIS}' is not an allowed axis identifier")
    left, right = _Side(sides[0]), _Side(sides[1])
    if right.ellipsis and not left.ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.ellipsis and left.ellipsis_grouped:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for n in lengths.values():
        if type(n) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(n)}")
    if left.sized_anonymous or right.sized_anonymous:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    if one_side := left.names ^ right.names:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on both): {one_side}")
    if unknown := lengths.keys() - left.names:
        raise ValueError(f"Identifiers not found in rearrange expression: {set(unknown)}")
    return left, right


@lru_cache(256)
def _plan(ndim: int, pattern: str, lengths: tuple):
    """(split shape rule, unit axes to sum, permutation, right groups) for a tensor of `ndim` dims."""
    sizes = dict(lengths)
    left, right = _parse(pattern, sizes)
    if left.ellipsis:
        n_pattern = sum(1 for g in left.groups if g == []) + len(left.names) - 1
        if n_pattern > ndim:
            raise ValueError(f"Number of dimensions in pattern ({n_pattern}) must be less than or equal to the "
                             f"number of dimensions in the tensor ({ndim})")
        n_ellipsis = ndim - (len(left.groups) - 1)
    else:
        if len(left.groups) != ndim:
            raise ValueError(f"Number of dimensions in pattern ({len(left.groups)}) must be equal to the number of "
                             f"dimensions in the tensor ({ndim})")
        n_ellipsis = 0
    ell = [f"{_ELLIPSIS}{i}" for i in range(n_ellipsis)]
    return left, right, ell, sizes


def _expand(groups: list, ell: list[str]) -> list[list[str]]:
    """The groups with the ellipsis as its own one-axis groups (or, inside a group, its axes in place)."""
    out = []
    for g in groups:
        if g == _ELLIPSIS:
            out.extend([e] for e in ell)
        else:
            out.append([a for n in g for a in (ell if n == _ELLIPSIS else [n])])
    return out


def _bind(groups: list[list[str]], shape: tuple, sizes: dict) -> tuple[list, dict, list[int]]:
    """Each left axis's length from the input's sizes and the given lengths; the split shape and unit dims.
    Errors name the axes as functorch's first-class dims (`d0`, `d1`, ... in left-side order)."""
    known = dict(sizes)
    split, units = [], []
    for g, n in zip(groups, shape):
        if not g:
            units.append(len(split))
            split.append(n)
            continue
        first = len(split)
        dims = [f"d{first + i}" for i in range(len(g))]
        free = [i for i, a in enumerate(g) if a not in known]
        if len(free) > 1:
            raise DimensionBindError(f"cannot infer the sizes of two dimensions at once {dims[free[0]]} and "
                                     f"{dims[free[1]]}")
        product = math.prod(known[a] for a in g if a in known)
        if free:
            if product == 0:
                raise ZeroDivisionError("integer modulo by zero")
            if n % product:
                raise DimensionBindError(f"inferred dimension does not evenly fit into larger dimension: {n} vs "
                                         f"{tuple(known.get(a, '?') for a in g)}")
            known[g[free[0]]] = n // product
        elif product != n:
            raise DimensionBindError(f"Dimension sizes to do not match ({n} != {product}) when matching dimension "
                                     f"pack ({', '.join(dims)}{',' if len(dims) == 1 else ''})")
        split.extend(known[a] for a in g)
    return split, known, units


def rearrange(tensor: Tensor | list[Tensor] | tuple[Tensor, ...], pattern: str, **axes_lengths: int) -> Tensor:
    """einops' `rearrange`: transpose, reshape, squeeze, unsqueeze and stack by a pattern of named axes.

    Args:
        tensor: a tensor, or a sequence of tensors to stack along a new first dim
        pattern: `"<left> -> <right>"`: axis names, `(groups)` of names that share one dim, `1` for a unit
            axis and `...` for the dims no name covers
        axes_lengths: the lengths of axes that a group splits (all but one of a group's axes)

    Returns:
        The rearranged tensor.

    Raises:
        ValueError: a malformed pattern; TypeError: a length that is no int; DimensionBindError: lengths that
        do not fit the tensor.

    Example:
        >>> import ember.autograd as torch
        >>> rearrange(torch.zeros(2, 6, 5), "b (h w) c -> b c h w", h=2).shape
        ember.Size([2, 5, 2, 3])
    """
    if not isinstance(tensor, Tensor):
        tensor = stack(tensor)
    left, right, ell, sizes = _plan(tensor.ndim, pattern, tuple(axes_lengths.items()))
    split, known, units = _bind(_expand(left.groups, ell), tuple(tensor.shape), sizes)
    if not split:  # functorch's identity of a 0-dim tensor
        return tensor
    x = tensor.reshape(split)
    axes = [a for g in _expand(left.groups, ell) for a in (g or [None])]
    if units:
        x = x.sum(units)
        axes = [a for a in axes if a is not None]
    out_groups = _expand(right.groups, ell)
    order = [axes.index(a) for g in out_groups for a in g]
    if order != sorted(order):
        x = x.permute(order)
    return x.reshape([math.prod(known[a] for a in g) for g in out_groups])
