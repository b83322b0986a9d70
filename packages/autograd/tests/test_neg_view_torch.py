"""Negative views (`.imag` of a conjugate view) against PyTorch: values, `is_neg()`, writes through them,
errors and gradients."""

import numpy as np
import pytest

import ember.autograd as E

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
A = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
W = RNG.standard_normal((3, 4))


def values(t) -> np.ndarray:
    return np.asarray(t.tolist(), dtype=np.complex128)


# f(lib, x): x is a complex (3, 4) tensor
OPS = {
    "imag of conj": lambda lib, x: x.conj().imag,
    "imag": lambda lib, x: x.imag,
    "real of conj": lambda lib, x: x.conj().real,
    "imag of resolved": lambda lib, x: x.conj().resolve_conj().imag,
    "resolve_neg": lambda lib, x: x.conj().imag.resolve_neg(),
    "torch.resolve_neg": lambda lib, x: lib.resolve_neg(x.conj().imag),
    "t": lambda lib, x: x.conj().imag.t(),
    "slice": lambda lib, x: x.conj().imag[1:, ::2],
    "select": lambda lib, x: x.conj().imag[2],
    "reshape": lambda lib, x: x.conj().imag.reshape(12),
    "expand": lambda lib, x: x.conj().imag[:1].expand(2, 4),
    "split": lambda lib, x: x.conj().imag.split(2, 1)[1],
    "conj of neg": lambda lib, x: x.conj().imag.conj(),
    "real of neg": lambda lib, x: x.conj().imag.real,
    "detach": lambda lib, x: x.conj().imag.detach(),
    "data": lambda lib, x: x.conj().imag.data,
    "mul": lambda lib, x: x.conj().imag * 2,
    "neg": lambda lib, x: -x.conj().imag,
    "clone": lambda lib, x: x.conj().imag.clone(),
    "contiguous t": lambda lib, x: x.conj().imag.t().contiguous(),
    "sum": lambda lib, x: x.conj().imag.sum(0),
    "matmul": lambda lib, x: x.conj().imag @ x.imag.t(),
    "_neg_view": lambda lib, x: lib._neg_view(x.real),
    "both bits": lambda lib, x: lib._neg_view(x.conj()),
    "imag of both bits": lambda lib, x: lib._neg_view(x.conj()).imag,
    "real of both bits": lambda lib, x: lib._neg_view(x.conj()).real,
    "view of both bits": lambda lib, x: lib._neg_view(x.conj()).t()[1:],
    "conj of both bits": lambda lib, x: lib._neg_view(x.conj()).conj(),
}


@pytest.mark.parametrize("name", list(OPS))
def test_values_and_neg_bit_match_pytorch(name):
    got = OPS[name](E, E.from_numpy(A.copy()))
    want = OPS[name](torch, torch.from_numpy(A.copy()))
    assert got.is_neg() == want.is_neg()
    assert got.is_conj() == want.is_conj()
    np.testing.assert_allclose(values(got), values(want), rtol=1e-12)


# f(y, lib): y is the negative view of a complex (3, 4) tensor's conjugate
WRITES = {
    "add_": lambda y, lib: y.add_(1.5),
    "fill_": lambda y, lib: y.fill_(5),
    "mul_ view": lambda y, lib: y.t()[1:].mul_(-2),
    "setitem": lambda y, lib: y.__setitem__((0, slice(None)), 3.0),
    "copy_": lambda y, lib: y.copy_(lib.arange(12, dtype=lib.float64).reshape(3, 4)),
    "out=": lambda y, lib: lib.mul(lib.ones(3, 4, dtype=lib.float64), 4, out=y),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_writes_through_a_negative_view_match_pytorch(name):
    results = []
    for lib in (E, torch):
        x = lib.from_numpy(A.copy())
        y = x.conj().imag
        WRITES[name](y, lib)
        results.append((values(x), values(y), y.is_neg()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


def test_writes_through_both_bits_match_pytorch():
    results = []
    for lib in (E, torch):
        x = lib.from_numpy(A.copy())
        n = lib._neg_view(x.conj())
        n.add_(1j)
        n[0] = 5 + 1j
        results.append((values(x), values(n)))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_imag_setter_of_a_conj_view_matches_pytorch():
    got, want = E.from_numpy(A.copy()), torch.from_numpy(A.copy())
    got.conj().imag = E.ones(3, 4, dtype=E.float64) * 2
    want.conj().imag = torch.ones(3, 4, dtype=torch.float64) * 2
    np.testing.assert_array_equal(values(got), values(want))


def test_errors_and_printing_match_pytorch():
    for fn in (lambda lib: lib.tensor([1 + 2j]).conj().imag.numpy(),
               lambda lib: lib.tensor([1 + 2j]).conj().imag.view(lib.int32),
               lambda lib: lib.view_as_real(lib.tensor([1 + 2j]).conj())):
        with pytest.raises(RuntimeError) as got:
            fn(E)
        with pytest.raises(RuntimeError) as want:
            fn(torch)
        assert str(got.value) == str(want.value)
    make = (lambda lib: lib.tensor([1 + 2j, -3.5 + 0.25j]).conj().imag)
    assert repr(make(E)) == repr(make(torch))


GRADS = {
    "scale": lambda lib, x: (x.conj().imag * 3).sum(),
    "square": lambda lib, x: (x.conj().imag ** 2).sum(),
    "exp weighted": lambda lib, x: (x.conj().imag.exp() * lib.from_numpy(W)).sum(),
    "view of neg": lambda lib, x: x.conj().imag.t()[1:].sigmoid().sum(),
    "mixed": lambda lib, x: (x.conj().imag * x.real + x.conj().real).sum(),
    "resolve_neg": lambda lib, x: x.conj().imag.resolve_neg().tanh().sum(),
    "_neg_view": lambda lib, x: (lib._neg_view(x.real) * x.imag).sum(),
    "both bits": lambda lib, x: (lib._neg_view(x.conj()) * lib.from_numpy(A[::-1].copy())).real.sum(),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients_through_negative_views_match_pytorch(name):
    grads = []
    for lib in (E, torch):
        x = lib.tensor(A.copy(), requires_grad=True)
        GRADS[name](lib, x).backward()
        grads.append((values(x.grad), x.grad.is_conj(), x.grad.is_neg()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-10, atol=1e-12)
    assert grads[0][1:] == grads[1][1:]


def test_first_example_gradient_matches_pytorch():
    got = E.tensor([1 + 2j], requires_grad=True)
    want = torch.tensor([1 + 2j], requires_grad=True)
    (got.conj().imag * 3).sum().backward()
    (want.conj().imag * 3).sum().backward()
    np.testing.assert_array_equal(values(got.grad), values(want.grad))
    assert values(got.grad)[0] == -3j


def test_checkpoints_keep_the_negative_bit_both_ways():
    import io

    buf = io.BytesIO()
    E.save({"y": E.from_numpy(A.copy()).conj().imag}, buf)
    buf.seek(0)
    got = torch.load(buf)["y"]
    buf.seek(0)
    back = E.load(buf)["y"]
    for t in (got, back):
        assert t.is_neg()
        np.testing.assert_array_equal(values(t), -A.imag)
    buf = io.BytesIO()
    torch.save(torch.from_numpy(A.copy()).conj().imag, buf)
    buf.seek(0)
    t = E.load(buf)
    assert t.is_neg()
    np.testing.assert_array_equal(values(t), -A.imag)
