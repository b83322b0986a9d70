"""The strides of PyTorch's einsum result: its contraction (aten `einsum`, left to right, no path) replayed on
shapes and strides alone, so that the CPU kernel (numpy's einsum) can hand back the same layout. PyTorch's result
is a permuted view of its last `bmm` (or the layout `mul` gives), so `.stride()`, `.is_contiguous()` and whether a
later `reshape` views or copies (`ViewBackward0` or `UnsafeViewBackward0`) depend on it."""

from __future__ import annotations

import functools
import string

from ember.core.ops.memfmt import iterator_strides
from ember.core.ops.shape import view_strides
from ember.core.tensor import _contiguous_strides_cached

__all__: list[str] = []  # internal: `ember.core.ops.linalg`'s einsum kernel asks for `einsum_strides`

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # PyTorch's label order: A-Z, then a-z

Geometry = tuple[tuple[int, ...], tuple[int, ...]]


def _aligned(term: str, shape: tuple, strides: tuple, order: str) -> Geometry:
    """One operand as PyTorch aligns it: repeated letters taken as diagonals, a size-1 dim (stride 1) appended per
    missing letter, then permuted to `order`."""
    sizes, steps, letters = [], [], []
    for c, n, s in zip(term, shape, strides, strict=True):
        if c in letters:  # the diagonal replaces the first occurrence
            steps[letters.index(c)] += s
            continue
        letters.append(c)
        sizes.append(n)
        steps.append(s)
    for c in order:
        if c not in letters:
            letters.append(c)
            sizes.append(1)
            steps.append(1)
    perm = [letters.index(c) for c in order]
    return tuple(sizes[p] for p in perm), tuple(steps[p] for p in perm)


def _summed(geom: Geometry, dims: list[int]) -> Geometry:
    """`sum(dims, keepdim=True)`: a new row-major tensor."""
    shape = tuple(1 if d in dims else n for d, n in enumerate(geom[0]))
    return shape, _contiguous_strides_cached(shape)


def _contiguous(shape: tuple, strides: tuple) -> bool:
    """PyTorch's `is_contiguous`: row-major but for the strides of size-1 dims."""
    expected = 1
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if st != expected:
                return False
            expected *= n
    return True


def _product(a: Geometry, b: Geometry, sum_dims: list[int]) -> Geometry:
    """aten's `sumproduct_pair(a, b, sum_dims, keepdim=True)`: `mul` without dims to sum, else a view of a
    row-major bmm result laid out as (both, left only, summed, right only), left and right swapped where every
    right-only dim comes before the left-only ones."""
    shape = tuple(max(m, n) for m, n in zip(a[0], b[0], strict=True))
    if not sum_dims:
        if a[0] == b[0] == shape and _contiguous(*a) and _contiguous(*b):  # TensorIterator's fast setup
            return shape, _contiguous_strides_cached(shape)
        strides = iterator_strides(shape, (a, b))
        return shape, strides if strides is not None else _contiguous_strides_cached(shape)
    lro, lo, ro = [], [], []
    for d in range(len(shape)):
        if d in sum_dims:
            continue
        sl, sr = a[0][d] != 1, b[0][d] != 1
        (lro if sl and sr else lo if sl else ro).append(d)
    if lo and ro and ro[-1] < lo[0]:  # PyTorch swaps the operands when that gives the output's own order
        lo, ro = ro, lo
    order = lro + lo + sum_dims + ro
    out_size = tuple(1 if d in sum_dims else shape[d] for d in order)
    cs = _contiguous_strides_cached(out_size)
    strides = [0] * len(shape)
    for i, d in enumerate(order):
        strides[d] = cs[i]
    return tuple(1 if d in sum_dims else n for d, n in enumerate(shape)), tuple(strides)


@functools.lru_cache(maxsize=1024)  # a model repeats its few einsum geometries every step
def einsum_strides(equation: str, terms: tuple[str, ...], out: str,
                   geometries: tuple[Geometry, ...]) -> tuple[int, ...] | None:
    """The strides of PyTorch's einsum result of at least two operands, from the equation, its parsed terms
    (every dim named, ellipsis dims by the spare letters that `equation` lacks) and the operands' (shape,
    strides); None where the result views as no strides (never for a replay of PyTorch's own views)."""
    used = set(out).union(*terms)
    summed = [c for c in _LETTERS if c in used and c not in out]
    # the dims of an ellipsis that the output drops come first, then the other summed letters in label order
    order = out + "".join([c for c in summed if c not in equation] + [c for c in summed if c in equation])
    ops = [_aligned(t, *g, order) for t, g in zip(terms, geometries, strict=True)]
    n_out = len(out)
    counts = [sum(op[0][d] != 1 for op in ops) for d in range(len(order))]
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(n_out, len(order)):
            if a[0][d] != 1 and b[0][d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if a[0][d] != 1:
                    a_sum.append(d)
                    counts[d] = 0
                elif b[0][d] != 1:
                    b_sum.append(d)
                    counts[d] = 0
        if a_sum:
            a = _summed(a, a_sum)
        if b_sum:
            b = _summed(b, b_sum)
        ops.insert(0, _product(a, b, sum_dims))
    shape, strides = ops[0]
    if len(order) == n_out:
        return strides
    return view_strides(shape, strides, shape[:n_out])
