"""Writing into overlapping memory (NOTE [ Writing into overlapping memory ] in ember.core.dispatch):
an in-place op or `out=` whose written tensor has two elements at one address, or shares part of an
input's memory, raises PyTorch's RuntimeError before any device's kernel; what PyTorch allows
computes the values numpy gives."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.core as E

INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")
PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.")


def _expanded(m, dtype="float32"):
    """A (2, 3) tensor whose rows are one row of memory."""
    return m(E.zeros(3, dtype=getattr(E, dtype))).expand(2, 3)


def _long(m, *values):
    return m(E.tensor(list(values), dtype=E.int64))


def _ar(m):
    return m(E.arange(6.0))


# (label, fn(m) -> the call, PyTorch's message); `m` puts a tensor on the device. Each was checked
# against PyTorch 2.13 (test_the_table_agrees_with_pytorch).
REFUSED = [
    ("add_ on an expanded tensor", lambda m: _expanded(m).add_(1), INTERNAL),
    ("mul_ by a tensor", lambda m: _expanded(m).mul_(m(E.ones(2, 3))), INTERNAL),
    ("copy_ into an expanded tensor", lambda m: _expanded(m).copy_(m(E.ones(2, 3))), INTERNAL),
    ("add out= an expanded tensor", lambda m: E.add(m(E.ones(2, 3)), 1, out=_expanded(m)), INTERNAL),
    ("neg out= an expanded tensor", lambda m: E.neg(m(E.ones(2, 3)), out=_expanded(m)), INTERNAL),
    ("clamp_", lambda m: _expanded(m).clamp_(0, 1), INTERNAL),
    ("pow_", lambda m: _expanded(m).pow_(2), INTERNAL),
    ("lerp_", lambda m: _expanded(m).lerp_(m(E.ones(3)), 0.5), INTERNAL),
    ("addcmul_", lambda m: _expanded(m).addcmul_(m(E.ones(3)), m(E.ones(3))), INTERNAL),
    ("add_ on as_strided with a zero stride", lambda m: m(E.zeros(3)).as_strided((2, 3), (0, 1)).add_(1), INTERNAL),
    ("uniform_", lambda m: _expanded(m).uniform_(), INTERNAL),
    ("normal_", lambda m: _expanded(m).normal_(), INTERNAL),
    ("mean out=", lambda m: E.mean(m(E.ones(2, 3, 3)), 2, out=_expanded(m)), INTERNAL),
    ("cumsum out=", lambda m: E.cumsum(m(E.ones(2, 3)), 1, out=_expanded(m)), INTERNAL),
    ("mm out=", lambda m: E.mm(m(E.ones(2, 3)), m(E.ones(3, 3)), out=_expanded(m)), INTERNAL),
    ("sort out= with expanded values",
     lambda m: E.sort(m(E.ones(2, 3)), out=(_expanded(m), m(E.zeros(2, 3, dtype=E.int64)))), INTERNAL),
    ("sort out= with expanded indices",
     lambda m: E.sort(m(E.ones(2, 3)), out=(m(E.zeros(2, 3)), _expanded(m, "int64"))), INTERNAL),
    ("gather out=", lambda m: E.gather(m(E.ones(2, 3)), 1, m(E.zeros(2, 3, dtype=E.int64)), out=_expanded(m)),
     INTERNAL),
    ("cat out=", lambda m: E.cat([m(E.ones(1, 3)), m(E.ones(1, 3))], out=_expanded(m)), INTERNAL),
    ("scatter_", lambda m: _expanded(m).scatter_(1, m(E.zeros(2, 1, dtype=E.int64)), 1.0), INTERNAL),
    ("index_add_", lambda m: _expanded(m).index_add_(1, _long(m, 0), m(E.ones(2, 1))), INTERNAL),
    ("masked_scatter_", lambda m: _expanded(m).masked_scatter_(m(E.ones(2, 3, dtype=E.bool)), m(E.ones(6))),
     INTERNAL),
    ("setitem of a slice", lambda m: _expanded(m).__setitem__((slice(None), 0), m(E.ones(2))), INTERNAL),
    # an input sharing part of the written tensor's memory
    ("add out= a shifted view of the input", lambda m: (lambda a: E.add(a[1:], a[:-1], out=a[:-1]))(_ar(m)), PARTIAL),
    ("add_ of a shifted view", lambda m: (lambda a: a[:-1].add_(a[1:]))(_ar(m)), PARTIAL),
    ("add_ of the transposed memory", lambda m: (lambda a: a.view(2, 3).add_(a.view(3, 2).t()))(_ar(m)), PARTIAL),
    ("add_ of a one-element view inside", lambda m: (lambda a: a[:2].add_(a[1:2]))(_ar(m)), PARTIAL),
    ("exp out= an overlapping block", lambda m: (lambda a: E.exp(a[2:].view(2, 2), out=a[:4].view(2, 2)))(_ar(m)),
     PARTIAL),
    ("copy_ of a shifted view", lambda m: (lambda a: a[1:].copy_(a[:-1]))(_ar(m)), PARTIAL),
    ("addcdiv_ of a shifted view", lambda m: (lambda a: a[:-1].addcdiv_(a[1:], a[1:] + 1))(_ar(m)), PARTIAL),
    ("where out= a shifted view", lambda m: (lambda a: E.where(a[1:] > 2, a[1:], a[:-1], out=a[:-1]))(_ar(m)),
     PARTIAL),
    ("cumsum out= a shifted view", lambda m: (lambda a: E.cumsum(a[1:], 0, out=a[:-1]))(_ar(m)), PARTIAL),
    # ops that refuse any shared memory, the same memory included
    ("index_select out= its input", lambda m: (lambda a: E.index_select(a, 0, _long(m, 5, 4, 3, 2, 1, 0), out=a))(
        _ar(m)), PARTIAL),
    ("gather out= its input", lambda m: (lambda a: E.gather(a, 0, _long(m, 5, 4, 3, 2, 1, 0), out=a))(_ar(m)),
     PARTIAL),
    ("cat out= its inputs' memory", lambda m: (lambda a: E.cat([a[:3], a[3:]], out=a))(_ar(m)), PARTIAL),
    ("scatter_ of itself", lambda m: (lambda a: a.scatter_(0, _long(m, 5, 4, 3, 2, 1, 0), a))(_ar(m)), PARTIAL),
    ("index_copy_ of itself", lambda m: (lambda a: a.index_copy_(0, _long(m, 5, 4, 3, 2, 1, 0), a))(_ar(m)),
     PARTIAL),
    ("index_put_ of itself", lambda m: (lambda a: a.index_put_((_long(m, 5, 4, 3, 2, 1, 0),), a))(_ar(m)), PARTIAL),
]

# (label, fn(m) -> (the result, numpy's values)): calls PyTorch allows, with the values it computes
ALLOWED = [
    ("fill_ of an expanded tensor", lambda m: (_expanded(m).fill_(2.0), np.full((2, 3), 2.0))),
    ("zero_ of an expanded tensor", lambda m: (_expanded(m).zero_(), np.zeros((2, 3)))),
    ("masked_fill_ of an expanded tensor",
     lambda m: (_expanded(m).masked_fill_(m(E.tensor([True, False, True])), 1.0), np.array([[1, 0, 1]] * 2))),
    ("add_ on a stride-0 dim of size 1",
     lambda m: (m(E.zeros(3)).as_strided((1, 3), (0, 1)).add_(1), np.ones((1, 3)))),
    ("add_ on an empty expanded tensor", lambda m: (m(E.zeros(0)).expand(2, 0).add_(1), np.zeros((2, 0)))),
    ("copy_ of itself", lambda m: (lambda x: (x.copy_(x), np.zeros((2, 3))))(_expanded(m))),
    ("add_ of itself", lambda m: (lambda a: (a.add_(a), 2 * np.arange(6.0)))(_ar(m))),
    ("add out= the input's own memory", lambda m: (lambda a: (E.add(a[:3], 1, out=a[:3]), np.arange(3.0) + 1))(_ar(m))),
    ("add_ of the memory next to it", lambda m: (lambda a: (a[:3].add_(a[3:]), np.array([3.0, 5.0, 7.0])))(_ar(m))),
    # a non-dense input or output is too hard to tell: PyTorch runs it
    ("add_ of a strided view", lambda m: (lambda a: (a[:3].add_(a[::2]), np.array([0.0, 3.0, 6.0])))(_ar(m))),
    ("copy_ of an expanded source", lambda m: (lambda a: (a[:3].copy_(a[:1].expand(3)), np.zeros(3)))(_ar(m))),
    ("sort out= its input", lambda m: (lambda a: (E.sort(a, descending=True, out=(a, m(E.zeros(6, dtype=E.int64))))[0],
                                                  np.arange(6.0)[::-1]))(_ar(m))),
]


def _cpu(t):
    return t


def _cuda(t):
    return t.to("cuda")


def _refused(fn, msg, m):
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        fn(m)


def _allowed(fn, m):
    got, want = fn(m)
    np.testing.assert_array_equal(got.cpu().numpy(), want)


@pytest.mark.parametrize("fn,msg", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_writing_into_overlapping_memory_raises_pytorchs_error(fn, msg):
    _refused(fn, msg, _cpu)


@pytest.mark.parametrize("fn", [c[1] for c in ALLOWED], ids=[c[0] for c in ALLOWED])
def test_writes_pytorch_allows_compute_numpys_values(fn):
    _allowed(fn, _cpu)


def test_in_place_dropout_of_an_expanded_tensor_raises():
    """PyTorch's `F.dropout(x, inplace=True)` checks its target as the other in-place ops (its message,
    hard-coded: torch.dropout has no `inplace` argument to call through the table)."""
    with pytest.raises(RuntimeError, match=re.escape(INTERNAL)):
        E.dropout(_expanded(_cpu), 0.5, True, inplace=True)
    x = E.ones(4)
    r = E.dropout(x, 0.5, True, inplace=True)
    assert r is x and set(np.unique(x.numpy())) <= {0.0, 2.0}


def test_a_refused_write_leaves_the_tensor_unchanged():
    """The check runs before the kernel: nothing is written."""
    a = E.arange(6.0)
    with pytest.raises(RuntimeError, match=re.escape(PARTIAL)):
        a[:-1].add_(a[1:])
    np.testing.assert_array_equal(a.numpy(), np.arange(6.0))
    base = E.zeros(3)
    with pytest.raises(RuntimeError, match=re.escape(INTERNAL)):
        base.expand(2, 3).add_(1)
    np.testing.assert_array_equal(base.numpy(), np.zeros(3))


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("fn,msg", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_writing_into_overlapping_memory_raises_the_same_error_on_cuda(fn, msg):
    _refused(fn, msg, _cuda)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("fn", [c[1] for c in ALLOWED], ids=[c[0] for c in ALLOWED])
def test_writes_pytorch_allows_run_on_cuda(fn):
    _allowed(fn, _cuda)


@pytest.mark.torch
@pytest.mark.parametrize("case", REFUSED + ALLOWED, ids=[c[0] for c in REFUSED + ALLOWED])
def test_the_table_agrees_with_pytorch(case, monkeypatch):
    """The same calls in PyTorch raise the hard-coded message, or run: the table's `E.*` calls go to torch."""
    torch = pytest.importorskip("torch")
    import sys

    monkeypatch.setattr(sys.modules[__name__], "E", torch)
    label, fn, *msg = case
    if msg and isinstance(msg[0], str):
        with pytest.raises(RuntimeError, match=re.escape(msg[0])):
            fn(_cpu)
    else:
        got, want = fn(_cpu)
        np.testing.assert_array_equal(got.numpy(), want)
