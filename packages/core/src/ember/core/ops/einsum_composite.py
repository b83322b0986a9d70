"""einsum for every device without a kernel of its own (its `"any"` kernel, NOTE [ Composite
kernels ] in `ember.core.dispatch`; the CPU keeps numpy's einsum): repeated letters in one operand
become diagonals (views), letters no other operand or the output needs are summed out, and the
operands contract pairwise, left to right, as batched GEMMs (batch letters, then each side's own
letters, then the contracted ones), with a final permutation into the output's order. Bool and integer
operands are counted in int64 and cast to PyTorch's result dtype (`linalg.einsum_dtype`); mixed
float dtypes are computed in the result's."""

from __future__ import annotations

import functools
import string

from ember.core import dtypes
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__: list[str] = []  # a kernel only: the public function is ember.core.ops.linalg.einsum

_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _parse(equation: str, operands: tuple[Tensor, ...]) -> tuple[tuple[str, ...], str]:
    """The equation with every dim named: each operand's term (ellipsis dims as spare letters, right-aligned
    to the longest ellipsis) and the output term. Checks as PyTorch's parser does, in its order and with its
    messages: the left side, the operand count, each operand's rank, the output, then the sizes."""
    return _parse_shapes(equation, tuple(tuple(o._shape) for o in operands))


@functools.lru_cache(maxsize=512)
def _parse_shapes(equation: str, shapes: tuple[tuple[int, ...], ...]) -> tuple[tuple[str, ...], str]:
    lhs, arrow, rhs = equation.partition("->")
    labels: list[list[str]] = [[]]
    found_ell = False
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            op = len(labels) - 1
            if found_ell:
                raise RuntimeError(f"einsum(): found '.' for operand {op} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {op} that is not part of any ellipsis")
            labels[-1].append("...")
            found_ell = True
            i += 2
        elif c == ",":
            if len(labels) >= len(shapes):
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            labels.append([])
            found_ell = False
        elif c in _LETTERS:
            labels[-1].append(c)
        elif c != " ":
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
        i += 1
    if len(labels) != len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    count: dict[str, int] = {}
    ell_dims = 0
    for k, (term, shape) in enumerate(zip(labels, shapes, strict=True)):
        named = [c for c in term if c != "..."]
        for c in named:
            count[c] = count.get(c, 0) + 1
        if "..." in term:
            ell_dims = max(ell_dims, len(shape) - len(named))
        if (len(named) > len(shape)) if "..." in term else (len(named) != len(shape)):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) does not match the "
                               f"number of dimensions ({len(shape)}) for operand {k}"
                               f"{'' if '...' in term else ' and no ellipsis was given'}")
    used = set(equation)
    spare = [c for c in _LETTERS if c not in used]
    if ell_dims > len(spare):
        raise RuntimeError(f"einsum(): an ellipsis of {ell_dims} dims leaves too few of the 52 letters to name them")
    ell = "".join(spare[:ell_dims])
    if not arrow:
        out = ell + "".join(sorted(c for c, n in count.items() if n == 1))
    else:
        out = ""
        found_ell = False
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if found_ell:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                out += ell
                found_ell = True
                i += 2
            elif c in _LETTERS:
                if c in out or c not in count:
                    raise RuntimeError(f"einsum(): output subscript {c}" + (" appears more than once in the output"
                                       if c in out else " does not appear in the equation for any input operand"))
                out += c
            elif c != " ":
                raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the equation "
                                   "string, subscripts must be in [a-zA-Z]")
            i += 1
    terms = []
    size: dict[str, int] = {}
    for k, (term, shape) in enumerate(zip(labels, shapes, strict=True)):
        named = sum(c != "..." for c in term)
        spelled = "".join(ell[ell_dims - (len(shape) - named):] if c == "..." else c for c in term)
        first: dict[str, int] = {}
        for d, (c, n) in enumerate(zip(spelled, shape, strict=True)):
            if c in first:  # PyTorch takes that diagonal now: later dims are numbered one less
                if n != shape[first[c]]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't "
                                       f"match, {n} != {shape[first[c]]}")
                continue
            first[c] = d
            if n != 1:
                if size.get(c, 1) not in (1, n):
                    if c in ell:
                        raise RuntimeError(f"einsum(): dimension {len(first) - 1} covered by ellipsis in operand "
                                           f"{k}has size {n} "
                                           f"which does not broadcast with previously seen ellipsis with size "
                                           f"{size[c]} for the respective dimension")
                    raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which does not "
                                       f"broadcast with previously seen size {size[c]}")
                size[c] = n
        terms.append(spelled)
    return tuple(terms), out


def normalize(equation: str, operands: tuple[Tensor, ...]) -> str:
    """The equation with every dim named and the output explicit (what the op's kernels and derivative get)."""
    terms, out = _parse(equation, operands)
    return ",".join(terms) + "->" + out


def _diagonals(x: Tensor, term: str) -> tuple[Tensor, str]:
    """Collapse repeated letters of one operand into diagonal views (the diagonal dim goes last)."""
    while True:
        dup = next((c for c in term if term.count(c) > 1), None)
        if dup is None:
            return x, term
        i = term.index(dup)
        j = term.index(dup, i + 1)
        x = x.diagonal(0, i, j)
        term = term[:i] + term[i + 1:j] + term[j + 1:] + dup


def _sum_out(x: Tensor, term: str, keep: set[str]) -> tuple[Tensor, str]:
    dims = tuple(i for i, c in enumerate(term) if c not in keep)
    if not dims:
        return x, term
    return get_op("sum")(x, dims, False, None), "".join(c for c in term if c in keep)


def _contract(a: Tensor, ta: str, b: Tensor, tb: str, keep: set[str]) -> tuple[Tensor, str]:
    batch = [c for c in ta if c in tb and c in keep]
    contract = [c for c in ta if c in tb and c not in keep]
    a_only = [c for c in ta if c not in tb]
    b_only = [c for c in tb if c not in ta]
    size = {c: max(a._shape[ta.index(c)] if c in ta else 1, b._shape[tb.index(c)] if c in tb else 1)
            for c in set(ta) | set(tb)}
    pa = a.permute(*(ta.index(c) for c in batch + a_only + contract))
    pb = b.permute(*(tb.index(c) for c in batch + contract + b_only))
    pa = pa.expand(*(size[c] for c in batch + a_only + contract))
    pb = pb.expand(*(size[c] for c in batch + contract + b_only))

    def prod(cs):
        n = 1
        for c in cs:
            n *= size[c]
        return n

    r = get_op("bmm")(pa.reshape(prod(batch), prod(a_only), prod(contract)),
                      pb.reshape(prod(batch), prod(contract), prod(b_only)))
    term = "".join(batch + a_only + b_only)
    return r.reshape(*(size[c] for c in term)), term


def _einsum(equation, *operands, out=None):  # the op's meta step checked the equation and the dtypes
    from ember.core.ops.linalg import einsum_dtype

    dt = einsum_dtype(equation, operands)
    if not (dt.is_floating_point or dt.is_complex) and not all(o._dtype is dtypes.int64 for o in operands):
        # count in int64 (its sums stand in for PyTorch's int64 `sum`; narrower results wrap the same), then
        # cast to the dtype PyTorch's pairwise contraction ends in
        r = _einsum(equation, *(o.to(dtypes.int64) for o in operands)).to(dt)
        return r if out is None else out.resize_(r.shape).copy_(r)
    if any(o._dtype is not dt for o in operands):  # mixed dtypes: computed in the result's
        operands = tuple((o.real if o._dtype.is_complex and not dt.is_complex else o).to(dt) for o in operands)
    terms, out_term = _parse(equation, operands)
    items = [_diagonals(o, t) for o, t in zip(operands, terms, strict=True)]
    x, tx = items[0]
    for k in range(1, len(items) + 1):
        later = set(out_term).union(*(t for _, t in items[k:]))
        x, tx = _sum_out(x, tx, later | (set(items[k][1]) if k < len(items) else set()))
        if k < len(items):
            y, ty = items[k]
            y, ty = _sum_out(y, ty, later | set(tx))
            x, tx = _contract(x, tx, y, ty, later)
    if sorted(tx) != sorted(out_term):
        raise RuntimeError(f"einsum(): the output term {out_term!r} names letters the operands lack")
    r = x.permute(*(tx.index(c) for c in out_term)) if out_term else x
    r = get_op("clone")(r)
    return r if out is None else out.resize_(r.shape).copy_(r)


get_op("einsum").register("any")(_einsum)
