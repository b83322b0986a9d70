"""einsum for every device without a kernel of its own (its `"any"` kernel, NOTE [ Composite
kernels ] in `ember.core.dispatch`; the CPU keeps numpy's einsum): repeated letters in one operand
become diagonals (views), letters no other operand or the output needs are summed out, and the
operands contract pairwise, left to right, as batched GEMMs (batch letters, then each side's own
letters, then the contracted ones), with a final permutation into the output's order. Bool and integer
operands are counted in int64 and cast to PyTorch's result dtype (`linalg._integral_dtype`)."""

from __future__ import annotations

import string

from ember.core import dtypes
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__: list[str] = []  # a kernel only: the public function is ember.core.ops.linalg.einsum


def _parse(equation: str, operands: tuple[Tensor, ...]) -> tuple[list[str], str]:
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum(): {len(terms)} operand terms in {equation!r} but {len(operands)} operands")
    spare = iter(c for c in string.ascii_letters[::-1] if c not in eq)
    ell = None
    out_terms = []
    for term, op in zip(terms, operands, strict=True):
        if "..." in term:
            n = op.ndim - (len(term) - 3)
            if ell is None:
                ell = []
            while len(ell) < n:
                ell.insert(0, next(spare))
            term = term.replace("...", "".join(ell[len(ell) - n:]))
        if len(term) != op.ndim:
            raise RuntimeError(f"einsum(): the term {term!r} does not match an operand of {op.ndim} dims")
        out_terms.append(term)
    if arrow:
        out = rhs.replace("...", "".join(ell or []))
    else:
        letters = "".join(out_terms)
        out = "".join(ell or []) + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and
                                                  c not in (ell or [])))
    return out_terms, out


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


def _einsum(equation, *operands, out=None):  # operands of one dtype, checked by the op's meta step
    dt = operands[0]._dtype
    if not (dt.is_floating_point or dt.is_complex) and dt is not dtypes.int64:
        from ember.core.ops.linalg import _integral_dtype

        # count in int64 (its sums stand in for PyTorch's int64 `sum`; narrower results wrap the same), then
        # cast to the dtype PyTorch's pairwise contraction ends in
        r = _einsum(equation, *(o.to(dtypes.int64) for o in operands)).to(_integral_dtype(equation, operands))
        return r if out is None else out.resize_(r.shape).copy_(r)
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
