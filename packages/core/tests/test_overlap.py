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
    # the matrix products: addmm_, addr_, addbmm_ check; baddbmm_ only where it runs addmm_ per batch
    ("addmm_ into an expanded tensor", lambda m: _expanded(m).addmm_(m(E.ones(2, 4)), m(E.ones(4, 3))), INTERNAL),
    ("addr_ into an expanded tensor", lambda m: _expanded(m).addr_(m(E.ones(2)), m(E.ones(3))), INTERNAL),
    ("addbmm_ into an expanded tensor", lambda m: _expanded(m).addbmm_(m(E.ones(2, 2, 4)), m(E.ones(2, 4, 3))),
     INTERNAL),
    ("baddbmm_ of a large product into expanded rows",
     lambda m: m(E.zeros(2, 1, 8)).expand(2, 8, 8).baddbmm_(m(E.ones(2, 8, 8)), m(E.ones(2, 8, 8))), INTERNAL),
    ("baddbmm_ of an empty contraction, beta != 0",
     lambda m: m(E.zeros(1, 1, 1)).expand(2, 2, 2).baddbmm_(m(E.ones(2, 2, 0)), m(E.ones(2, 0, 2))), INTERNAL),
    ("baddbmm out= an expanded tensor",
     lambda m: E.baddbmm(m(E.ones(2, 2, 2)), m(E.ones(2, 2, 3)), m(E.ones(2, 3, 2)), out=m(E.zeros(1, 2, 2)).expand(
         2, 2, 2)), INTERNAL),
    ("addmv_ of an empty matrix, beta != 0", lambda m: m(E.ones(1)).expand(3).addmv_(m(E.ones(3, 0)), m(E.ones(0))),
     INTERNAL),
    ("addmv out= an expanded tensor",
     lambda m: E.addmv(m(E.ones(3)), m(E.ones(3, 2)), m(E.ones(2)), out=m(E.zeros(1)).expand(3)), INTERNAL),
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


def _arange(*shape, dtype="float64"):
    return E.arange(int(np.prod(shape)), dtype=getattr(E, dtype)).reshape(*shape)


# NOTE [ In-place products into an expanded self ] (ember.core.ops.aliased_products): each output element
# updates its address in turn. Values are PyTorch 2.13's.
def test_baddbmm_into_expanded_rows_accumulates_every_row():
    b1, b2 = _arange(1, 2, 3), _arange(1, 3, 2)  # product [[10, 13], [28, 40]]
    x = E.zeros(1, 1, 2, dtype=E.float64).expand(1, 2, 2)
    assert x.baddbmm_(b1, b2) is x
    assert x.tolist() == [[[38.0, 53.0], [38.0, 53.0]]]


def test_baddbmm_into_an_expanded_batch_adds_every_batch():
    b1, b2 = _arange(2, 2, 3), _arange(2, 3, 2)
    x = E.ones(1, 2, 2, dtype=E.float64).expand(2, 2, 2)
    x.baddbmm_(b1, b2)
    assert x[0].tolist() == [[183.0, 207.0], [273.0, 315.0]] == x[1].tolist()
    y = E.ones(2, 1, 1, dtype=E.float64).expand(2, 2, 2)  # each batch one address: 1 + the sum of its product
    y.baddbmm_(b1, b2)
    assert y[:, 0, 0].tolist() == [92.0, 884.0]


def test_baddbmm_into_expanded_memory_with_beta_and_alpha():
    b1, b2 = _arange(2, 2, 3), _arange(2, 3, 2)
    x = E.full((1, 2, 1), 2.0, dtype=E.float64).expand(2, 2, 2)  # row i of batch b: r = 3 r + 2 p, over b then j
    x.baddbmm_(b1, b2, beta=3, alpha=2)
    r = np.full(2, 2.0)
    p = np.matmul(np.arange(12.0).reshape(2, 2, 3), np.arange(12.0).reshape(2, 3, 2))
    for b in range(2):
        for j in range(2):
            r = 3 * r + 2 * p[b, :, j]
    np.testing.assert_array_equal(x[0, :, 0].numpy(), r)
    z = E.full((1, 1, 1), np.nan, dtype=E.float64).expand(2, 2, 2)  # beta == 0: NaN ignored, the last write wins
    z.baddbmm_(b1, b2, beta=0, alpha=2)
    assert z.unique().tolist() == [2 * p[1, 1, 1]]
    e = E.full((1, 1, 1), 5.0).expand(2, 2, 2)
    e.baddbmm_(E.ones(2, 2, 0), E.ones(2, 0, 2), beta=0)
    assert e.unique().tolist() == [0.0]


def test_baddbmm_into_expanded_int8_wraps():
    x = E.zeros(1, 1, 1, dtype=E.int8).expand(2, 2, 2)
    x.baddbmm_(E.full((2, 2, 1), 10, dtype=E.int8), E.full((2, 1, 2), 10, dtype=E.int8))
    assert x.unique().tolist() == [32]  # 8 * 100 = 800, modulo 256


def test_addmv_into_an_expanded_vector_follows_the_matrixs_layout():
    mat = _arange(2, 3)  # row-major: y = beta y + alpha (row . vec), row by row
    vec = E.tensor([1.0, 2.0, 3.0], dtype=E.float64)
    x = E.ones(1, dtype=E.float64).expand(2)
    x.addmv_(mat, vec)
    assert x.tolist() == [35.0, 35.0]
    x = E.ones(1, dtype=E.float64).expand(2)
    x.addmv_(mat, vec, beta=2, alpha=3)  # 2 (2 * 1 + 3 * 8) + 3 * 26
    assert x.tolist() == [130.0, 130.0]
    col = _arange(3, 2).t()  # column-major: y scaled by beta twice, then every alpha * vec[j] * mat[i, j] added
    x = E.ones(1, dtype=E.float64).expand(2)
    x.addmv_(col, vec, beta=2, alpha=3)
    assert x.tolist() == [4.0 + 3 * float((np.arange(6.0).reshape(3, 2).T @ [1, 2, 3]).sum())] * 2
    x = E.full((1,), np.nan, dtype=E.float64).expand(2)
    x.addmv_(col, vec, beta=0)  # the first column's resets keep its last row only: 1 * 1 + (2 * 2 + 3 * 2 + ...)
    assert x.tolist() == [1.0 + 2 * 2 + 2 * 3 + 3 * 4 + 3 * 5] * 2


def test_products_into_expanded_memory_record_no_graph_and_bump_the_version():
    x = E.zeros(1, 1, 2, dtype=E.float64).expand(1, 2, 2)
    before = x._version
    x.baddbmm_(_arange(1, 2, 3), _arange(1, 3, 2))
    assert x._version > before


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "float16", "int64", "int32", "int8"])
def test_baddbmm_into_expanded_memory_against_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    floating = dtype.startswith(("float", "bfloat"))
    for (b, i, k, j) in [(2, 2, 3, 2), (3, 4, 5, 3), (2, 8, 8, 8), (3, 10, 10, 10), (2, 20, 3, 20), (4, 1, 1, 1)]:
        for mem in [(1, i, j), (b, 1, j), (b, i, 1), (1, 1, 1), (1, i, 1)]:
            for beta, alpha in ([(1, 1), (2, 3), (0, 1), (0.5, 1.5), (-1, 2)] if floating else
                                [(1, 1), (2, 3), (0, 1), (-1, 5)]):
                b1 = rng.integers(-3, 4, (b, i, k)).astype(np.float64)
                b2 = rng.integers(-3, 4, (b, k, j)).astype(np.float64)
                x0 = rng.integers(-3, 4, mem).astype(np.float64)
                tdt, edt = getattr(torch, dtype), getattr(E, dtype)
                want = torch.from_numpy(x0).to(tdt).expand(b, i, j)
                got = E.tensor(x0).to(edt).expand(b, i, j)
                try:
                    want.baddbmm_(torch.from_numpy(b1).to(tdt), torch.from_numpy(b2).to(tdt), beta=beta, alpha=alpha)
                except RuntimeError as e:
                    with pytest.raises(RuntimeError, match=re.escape(str(e))):
                        got.baddbmm_(E.tensor(b1).to(edt), E.tensor(b2).to(edt), beta=beta, alpha=alpha)
                    continue
                got.baddbmm_(E.tensor(b1).to(edt), E.tensor(b2).to(edt), beta=beta, alpha=alpha)
                np.testing.assert_array_equal(got.to(E.float64).numpy(), want.double().numpy(),
                                              err_msg=f"{(b, i, k, j)} {mem} {beta} {alpha}")


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "int8"])
def test_addmv_into_an_expanded_vector_against_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    floating = dtype.startswith("float")
    for m, n in [(2, 3), (3, 2), (5, 4), (1, 3), (3, 1), (4, 4)]:
        for layout in ["row", "col", "strided"]:
            for beta, alpha in ([(1, 1), (2, 3), (0, 1), (0.5, 2), (3, 1)] if floating else
                                [(1, 1), (2, 3), (0, 1), (3, 1)]):
                a = rng.integers(-3, 4, (m, 2 * n)).astype(np.float64)
                v = rng.integers(-3, 4, (n,)).astype(np.float64)

                def run(mod, t, dt):
                    mat = t(a).to(dt)
                    mat = {"row": mat[:, :n].contiguous(), "col": mat[:, :n].t().contiguous().t(),
                           "strided": mat[:, ::2]}[layout]
                    x = mod.full((1,), 2, dtype=dt).expand(m)
                    x.addmv_(mat, t(v).to(dt), beta=beta, alpha=alpha)
                    return x.double().numpy() if mod is torch else x.to(E.float64).numpy()

                np.testing.assert_array_equal(run(E, E.tensor, getattr(E, dtype)),
                                              run(torch, torch.from_numpy, getattr(torch, dtype)),
                                              err_msg=f"{(m, n)} {layout} {beta} {alpha}")
