"""Conjugate views against PyTorch: values, `is_conj()` of each op's result, and gradients through them."""

import numpy as np
import pytest

import ember.autograd as E

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 3)) + 1j * RNG.standard_normal((4, 3))


def both(fn):
    """fn(lib, x) on an ember and a torch tensor of the same complex128 values."""
    return fn(E, E.from_numpy(A.copy())), fn(torch, torch.from_numpy(A.copy()))


def values(t) -> np.ndarray:
    return np.asarray(t.tolist(), dtype=np.complex128)


# op -> f(lib, x): x is a complex (3, 4) tensor; most take its conjugate view
OPS = {
    "conj": lambda lib, x: x.conj(),
    "torch.conj": lambda lib, x: lib.conj(x),
    "conj of conj": lambda lib, x: x.conj().conj(),
    "resolve_conj": lambda lib, x: x.conj().resolve_conj(),
    "resolve_conj plain": lambda lib, x: x.resolve_conj(),
    "conj_physical": lambda lib, x: x.conj().conj_physical(),
    "clone": lambda lib, x: x.conj().clone(),
    "contiguous": lambda lib, x: x.conj().contiguous(),
    "t contiguous": lambda lib, x: x.conj().t().contiguous(),
    "to same": lambda lib, x: x.conj().to(lib.complex128),
    "to other": lambda lib, x: x.conj().to(lib.complex64),
    "t": lambda lib, x: x.conj().t(),
    "T": lambda lib, x: x.conj().T,
    "mT": lambda lib, x: x.conj().mT,
    "mH": lambda lib, x: x.mH,
    "mH of conj": lambda lib, x: x.conj().mH,
    "adjoint": lambda lib, x: x.adjoint(),
    "H": lambda lib, x: x.H,
    "slice": lambda lib, x: x.conj()[1:, ::2],
    "select": lambda lib, x: x.conj()[1],
    "index": lambda lib, x: x.conj()[[0, 2]],
    "view": lambda lib, x: x.conj().view(4, 3),
    "reshape view": lambda lib, x: x.conj().reshape(12),
    "reshape copy": lambda lib, x: x.conj().t().reshape(12),
    "flatten": lambda lib, x: x.conj().flatten(),
    "permute": lambda lib, x: x.conj().permute(1, 0),
    "transpose": lambda lib, x: x.conj().transpose(0, 1),
    "unsqueeze": lambda lib, x: x.conj().unsqueeze(0),
    "squeeze": lambda lib, x: x.conj()[None].squeeze(0),
    "expand": lambda lib, x: x.conj().expand(2, 3, 4),
    "narrow": lambda lib, x: x.conj().narrow(1, 1, 2),
    "diagonal": lambda lib, x: x.conj().diagonal(),
    "unfold": lambda lib, x: x.conj().unfold(1, 2, 1),
    "unbind": lambda lib, x: x.conj().unbind(0)[1],
    "split": lambda lib, x: x.conj().split(1)[2],
    "chunk": lambda lib, x: x.conj().chunk(2, 1)[1],
    "movedim": lambda lib, x: x.conj().movedim(0, 1),
    "as_strided": lambda lib, x: x.conj().as_strided((2,), (1,)),
    "detach": lambda lib, x: x.conj().detach(),
    "data": lambda lib, x: x.conj().data,
    "requires_grad_": lambda lib, x: x.conj().requires_grad_(),
    "flip": lambda lib, x: x.conj().flip(0),
    "neg": lambda lib, x: -x.conj(),
    "add": lambda lib, x: x.conj() + 1j,
    "mul": lambda lib, x: x.conj() * x,
    "exp": lambda lib, x: x.conj().exp(),
    "sum": lambda lib, x: x.conj().sum(0),
    "mean": lambda lib, x: x.conj().mean(),
    "matmul": lambda lib, x: x.conj() @ lib.from_numpy(B.copy()),
    "abs": lambda lib, x: x.conj().abs(),
    "angle": lambda lib, x: x.conj().angle(),
    "real": lambda lib, x: x.conj().real,
    "imag": lambda lib, x: x.conj().imag,
    "cat": lambda lib, x: lib.cat([x.conj(), x]),
    "stack": lambda lib, x: lib.stack([x.conj(), x.conj()]),
    "where": lambda lib, x: lib.where(x.real > 0, x.conj(), x),
    "zeros_like": lambda lib, x: lib.zeros_like(x.conj()),
    "tril": lambda lib, x: x.conj().tril(),
    "gather": lambda lib, x: x.conj().gather(0, lib.zeros(1, 4, dtype=lib.int64)),
    "svd V": lambda lib, x: lib.svd(x)[2],
    "ihfft": lambda lib, x: lib.fft.ihfft(x.real),
    "ihfft2": lambda lib, x: lib.fft.ihfft2(x.real),
}


@pytest.mark.parametrize("name", list(OPS))
def test_values_and_conj_bit_match_pytorch(name):
    got, want = both(OPS[name])
    assert got.is_conj() == want.is_conj(), f"{name}: ember is_conj {got.is_conj()}, PyTorch {want.is_conj()}"
    assert tuple(got.shape) == tuple(want.shape)
    if name == "svd V":  # singular vectors are defined up to a phase: compare V V^H
        got, want = got @ got.mH, want @ want.mH
    np.testing.assert_allclose(values(got), values(want), rtol=1e-10, atol=1e-10)


def test_conj_of_a_real_tensor_is_itself():
    x = E.ones(3)
    assert x.conj() is x and torch.ones(3).conj().is_conj() is False


IN_PLACE = {
    "add_": lambda y, lib: y.add_(1j),
    "mul_": lambda y, lib: y.mul_(2j),
    "iadd": lambda y, lib: y.__iadd__(1),
    "setitem": lambda y, lib: y.__setitem__(0, 10 + 10j),
    "copy_": lambda y, lib: y.copy_(lib.ones(3, 4, dtype=lib.complex128) * 1j),
    "fill_": lambda y, lib: y.fill_(1 + 2j),
    "zero_": lambda y, lib: y.zero_(),
    "conj_physical_": lambda y, lib: y.conj_physical_(),
    "add out=": lambda y, lib: lib.add(lib.ones(3, 4, dtype=lib.complex128), 1j, out=y),
    "imag setter": lambda y, lib: setattr(y, "imag", lib.ones(3, 4, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_writes_through_a_conj_view_match_pytorch(name):
    results = []
    for lib in (E, torch):
        x = lib.from_numpy(A.copy())
        y = x.conj()
        IN_PLACE[name](y, lib)
        results.append((values(x), values(y), y.is_conj()))
    (gx, gy, gc), (tx, ty, tc) = results
    np.testing.assert_allclose(gx, tx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gy, ty, rtol=1e-12, atol=1e-12)
    assert gc == tc


def test_errors_match_pytorch():
    for fn in (lambda lib, x: x.conj().numpy(), lambda lib, x: lib.view_as_real(x.conj()),
               lambda lib, x: x.conj().view(lib.float64)):
        with pytest.raises(RuntimeError) as got:
            fn(E, E.from_numpy(A.copy()))
        with pytest.raises(RuntimeError) as want:
            fn(torch, torch.from_numpy(A.copy()))
        assert str(got.value) == str(want.value)


GRADS = {
    "abs": lambda lib, x, w: (x.conj() * w).abs().sum(),
    "real": lambda lib, x, w: ((x * 2).conj().real * w.real).sum(),
    "imag": lambda lib, x, w: (x.conj().imag * w.imag).sum(),
    "sum abs": lambda lib, x, w: x.conj().sum().abs(),
    "mH matmul": lambda lib, x, w: (x.mH @ x).abs().sum(),
    "view then conj": lambda lib, x, w: (x.t().conj()[1] * w.t()[1]).real.sum(),
    "resolve_conj angle": lambda lib, x, w: x.conj().resolve_conj().angle().sum(),
    "conj_physical": lambda lib, x, w: (x.conj().conj_physical() * w).imag.sum(),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients_through_conj_views_match_pytorch(name):
    grads = []
    for lib in (E, torch):
        x = lib.tensor(A.copy(), requires_grad=True)
        w = lib.from_numpy(A[::-1].copy() * 0.5)
        GRADS[name](lib, x, w).backward()
        grads.append((values(x.grad), x.grad.is_conj()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-10, atol=1e-10)
    assert grads[0][1] == grads[1][1]


def test_conj_views_grad_fn_names_match_pytorch():
    for lib in (E, torch):
        x = lib.tensor(A.copy(), requires_grad=True)
        names = [type(x.conj().grad_fn).__name__, type(x.conj().resolve_conj().grad_fn).__name__,
                 type(x.conj_physical().grad_fn).__name__]
        assert names == ["ConjBackward0", "CloneBackward0", "ConjPhysicalBackward0"], lib.__name__


IN_PLACE_GRADS = {
    "mul_": lambda lib, y: y.mul_(lib.tensor(2 + 1j, dtype=lib.complex128)),
    "setitem": lambda lib, y: y.__setitem__(0, y[1] * 2j),
    "add_ of a slice": lambda lib, y: y[:, 1:].add_(y[:, :3] * 1j),
}


@pytest.mark.parametrize("name", list(IN_PLACE_GRADS))
def test_gradients_of_in_place_ops_on_conj_views_match_pytorch(name):
    grads = []
    for lib in (E, torch):
        leaf = lib.tensor(A.copy(), requires_grad=True)
        x = leaf * 1
        IN_PLACE_GRADS[name](lib, x.conj())
        (x * lib.from_numpy(A[::-1].copy())).abs().sum().backward()
        grads.append(values(leaf.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-10)


def test_save_keeps_the_conjugate_bit_as_pytorchs_checkpoints():
    import io

    y = E.from_numpy(A.copy()).conj()
    buf = io.BytesIO()
    E.save({"y": y, "x": y.conj()}, buf)
    buf.seek(0)
    got = E.load(buf)
    assert got["y"].is_conj() and not got["x"].is_conj()
    np.testing.assert_array_equal(values(got["y"]), A.conj())
    np.testing.assert_array_equal(values(got["x"]), A)
    buf.seek(0)
    want = torch.load(buf)  # PyTorch reads ember's checkpoint, and ember PyTorch's
    assert want["y"].is_conj()
    np.testing.assert_array_equal(values(want["y"]), A.conj())
    buf = io.BytesIO()
    torch.save(torch.from_numpy(A.copy()).conj(), buf)
    buf.seek(0)
    t = E.load(buf, weights_only=True)
    assert t.is_conj()
    np.testing.assert_array_equal(values(t), A.conj())


def test_gradients_accumulate_into_a_conjugate_grad_as_pytorchs():
    """`.grad` of a tensor used through `conj()` is a conjugate view, in PyTorch too; later backwards add into it."""
    results = []
    for lib in (E, torch):
        p = lib.tensor(A.copy(), requires_grad=True)
        w = lib.from_numpy(A[::-1].copy())
        seen = []
        for through_conj in (True, True, False):
            (((p.conj() if through_conj else p) * w).abs().sum()).backward()
            seen.append((values(p.grad), p.grad.is_conj()))
        results.append(seen)
    for (g, gc), (t, tc) in zip(*results):
        np.testing.assert_allclose(g, t, rtol=1e-12, atol=1e-12)
        assert gc == tc
