"""`conj()` as a lazy conjugate view (NOTE [ Complex storage and conj ]): values read through it are
conjugated for every op, views keep the bit, writes reach the shared storage conjugated."""

import copy
import pickle

import numpy as np
import pytest

import ember.core as E

RNG = np.random.default_rng(7)


def crand(*shape) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def values(t: E.Tensor) -> np.ndarray:
    return np.asarray(t.tolist(), dtype=np.complex128)


def test_conj_is_a_view_with_the_bit_and_conj_of_it_is_a_plain_view():
    a = crand(3)
    x = E.from_numpy(a.copy())
    y = x.conj()
    assert y.is_conj() and E.is_conj(y) and not x.is_conj()
    assert y.data_ptr() == x.data_ptr() and y.untyped_storage() is x.untyped_storage()
    np.testing.assert_array_equal(values(y), a.conj())
    yy = y.conj()
    assert not yy.is_conj() and yy is not x and yy.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(values(yy), a)
    r = E.ones(2)
    assert r.conj() is r and E.conj(r) is r and not r.is_conj()


def test_resolve_conj_materializes_and_conj_physical_computes():
    a = crand(4)
    x = E.from_numpy(a.copy())
    y = x.conj()
    r = y.resolve_conj()
    assert not r.is_conj() and r.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(r.numpy(), a.conj())
    assert x.resolve_conj() is x and E.resolve_conj(x) is x
    p = y.conj_physical()
    assert not p.is_conj()
    np.testing.assert_array_equal(p.numpy(), a)
    c = y.clone()
    assert not c.is_conj()
    np.testing.assert_array_equal(c.numpy(), a.conj())


def test_values_read_through_a_conj_view_are_conjugated_for_every_op():
    a, b = crand(3, 3), crand(3, 3)
    x, w = E.from_numpy(a.copy()), E.from_numpy(b.copy())
    y = x.conj()
    ac = a.conj()
    for got, want in [(y + w, ac + b), (y * w, ac * b), (y.exp(), np.exp(ac)), (y.sum(), ac.sum()),
                      (y.sum(0), ac.sum(0)), (y.mean(1), ac.mean(1)), (y @ w, ac @ b), (w @ y, b @ ac),
                      (y[[0, 2]], ac[[0, 2]]), (y.flip(0), ac[::-1]), (y.abs(), np.abs(ac)),
                      (y.angle(), np.angle(ac)), (y.to(E.complex64), ac.astype(np.complex64)),
                      (E.cat([y, x]), np.concatenate([ac, a])), (y.t().contiguous(), ac.T)]:
        assert not got.is_conj()
        np.testing.assert_allclose(values(got), want, rtol=1e-6, atol=1e-6)
    assert y[0, 1].item() == ac[0, 1]
    np.testing.assert_array_equal(values(y.real), a.real)
    np.testing.assert_array_equal(values(y.imag), -a.imag)
    assert "-" in repr(E.tensor([1 + 1j]).conj())  # printing shows the conjugate
    assert repr(E.tensor([1 + 1j]).conj()) == repr(E.tensor([1 - 1j]))


def test_view_ops_keep_the_bit_and_copying_ops_resolve_it():
    a = crand(3, 4)
    y = E.from_numpy(a.copy()).conj()
    ac = a.conj()
    views = {"t": (y.t(), ac.T), "mT": (y.mT, ac.T), "T": (y.T, ac.T), "slice": (y[1:, ::2], ac[1:, ::2]),
             "select": (y[1], ac[1]), "view": (y.view(4, 3), ac.reshape(4, 3)),
             "reshape": (y.reshape(12), ac.reshape(12)), "permute": (y.permute(1, 0), ac.T),
             "unsqueeze": (y.unsqueeze(0), ac[None]),
             "expand": (y[None].expand(2, 3, 4), np.broadcast_to(ac, (2, 3, 4))),
             "narrow": (y.narrow(1, 1, 2), ac[:, 1:3]), "diagonal": (y.diagonal(), np.diagonal(ac)),
             "unbind": (y.unbind(0)[2], ac[2]), "split": (y.split(2, 1)[1], ac[:, 2:]),
             "as_strided": (y.as_strided((2,), (1,)), ac.reshape(-1)[:2]),
             "squeeze": (y[None].squeeze(0), ac), "contiguous": (y.contiguous(), ac)}
    for name, (v, want) in views.items():
        assert v.is_conj(), name
        assert v.untyped_storage() is y.untyped_storage(), name
        np.testing.assert_array_equal(values(v), want, err_msg=name)
    assert y.contiguous() is y
    for name, c in {"t().reshape": y.t().reshape(12), "flatten of t": y.t().flatten(), "index": y[[0, 1]],
                    "flip": y.flip(0), "neg": -y, "mH": y.mH, "adjoint": y.adjoint()}.items():
        assert not c.is_conj(), name
    m = E.from_numpy(a.copy())
    assert m.mH.is_conj() and m.adjoint().is_conj() and m.H.is_conj() and not m.mT.is_conj()
    np.testing.assert_array_equal(values(m.mH), a.conj().T)
    assert not E.ones(2, 2).mH.is_conj()


def test_H_and_T_of_a_0d_tensor_warn_pytorch_deprecations(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    z = E.tensor(1 + 2j)
    with pytest.warns(UserWarning, match=r"^Tensor.H is deprecated on 0-D tensors. Consider using x.conj\(\). "
                                         r"\(Triggered internally at .*TensorShape.cpp:4335.\)$"):
        h = z.H
    assert h.is_conj() and h.item() == 1 - 2j
    with pytest.warns(UserWarning, match=r"^Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                                         r"these cases. \(Triggered internally at .*TensorShape.cpp:4321.\)$"):
        assert z.T.item() == 1 + 2j


def test_in_place_ops_through_a_conj_view_write_conjugated_values_into_the_storage():
    a = crand(3)
    x = E.from_numpy(a.copy())
    y = x.conj()
    y.add_(1j)
    np.testing.assert_allclose(x.numpy(), a - 1j)
    assert y.is_conj()
    np.testing.assert_allclose(values(y), a.conj() + 1j)
    y.mul_(2j)
    np.testing.assert_allclose(x.numpy(), ((a - 1j).conj() * 2j).conj())
    x = E.from_numpy(a.copy())
    x.conj()[0] = 10 + 10j
    assert x[0].item() == 10 - 10j
    x.conj().copy_(E.tensor([1j, 2j, 3j], dtype=E.complex128))
    np.testing.assert_array_equal(x.numpy(), [-1j, -2j, -3j])
    x.conj().fill_(1 + 1j)
    np.testing.assert_array_equal(x.numpy(), [1 - 1j] * 3)
    x = E.from_numpy(a.copy())
    r = E.add(E.from_numpy(a.copy()), 1j, out=x.conj())
    assert r.is_conj() and r.data_ptr() == x.data_ptr()
    np.testing.assert_allclose(x.numpy(), (a + 1j).conj())
    x = E.from_numpy(a.copy())
    y = x.conj()
    y += y  # reads and writes the same conjugate view
    np.testing.assert_allclose(x.numpy(), 2 * a)
    z = E.zeros(3, dtype=E.complex128)
    z.copy_(E.from_numpy(a.copy()).conj())
    assert not z.is_conj()
    np.testing.assert_array_equal(z.numpy(), a.conj())
    v = E.from_numpy(a.copy())
    before = v._version
    v.conj().add_(1)
    assert v._version > before


def test_real_and_imag_of_a_conj_view():
    a = crand(3)
    x = E.from_numpy(a.copy())
    y = x.conj()
    assert not y.real.is_conj() and y.real.data_ptr() == x.real.data_ptr()
    y.real.fill_(5.0)
    np.testing.assert_array_equal(x.real.numpy(), [5.0] * 3)
    y.imag = E.tensor([1.0, 2.0, 3.0], dtype=E.float64)
    np.testing.assert_array_equal(x.imag.numpy(), [-1.0, -2.0, -3.0])
    np.testing.assert_array_equal(y.imag.resolve_neg().numpy(), [1.0, 2.0, 3.0])  # (a negative view)


def test_numpy_view_as_real_and_dtype_views_of_a_conj_view_raise_pytorchs_errors():
    y = E.tensor([1 + 2j]).conj()
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that has conjugate bit set\. "
                                           r"Use tensor\.resolve_conj\(\)\.numpy\(\) instead\.$"):
        y.numpy()
    with pytest.raises(RuntimeError) as e:
        E.view_as_real(y)
    assert str(e.value) == ("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                            "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                            "resulting tensor will NOT alias the original.")
    with pytest.raises(RuntimeError, match="not supported for conjugate view tensors when converting to a different"):
        y.view(E.float32)
    np.testing.assert_array_equal(E.view_as_real(y.resolve_conj()).numpy(), [[1.0, -2.0]])


def test_pickle_keeps_the_bit_and_the_values():
    a = crand(3)
    y = E.from_numpy(a.copy()).conj()
    z = pickle.loads(pickle.dumps(y))
    assert z.is_conj()
    np.testing.assert_array_equal(values(z), a.conj())
    np.testing.assert_array_equal(values(copy.deepcopy(y)), a.conj())


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_complex32_conj_view_reads_conjugated():
    from ember.core.ops import complex_half

    try:
        x = E.tensor([1 + 2j, -3 + 0.5j], dtype=E.complex32)
        y = x.conj()
        assert y.is_conj()
        assert y.tolist() == [1 - 2j, -3 - 0.5j]
        assert y.resolve_conj().tolist() == [1 - 2j, -3 - 0.5j] and not y.resolve_conj().is_conj()
    finally:
        complex_half.uninstall()  # later tests of the session measure the plain op path


def test_ihfft_is_a_conj_view_and_its_2d_form_is_not():
    a = RNG.standard_normal(8)
    r = E.fft.ihfft(E.from_numpy(a))
    assert r.is_conj()
    np.testing.assert_allclose(values(r), np.fft.ihfft(a), atol=1e-12)
    assert not E.fft.ihfft2(E.from_numpy(RNG.standard_normal((4, 4)))).is_conj()


def test_ordinary_tensors_carry_no_bit_in_their_dict():
    """The bit costs ordinary tensors nothing: a class default, not an instance attribute."""
    x = E.ones(3, dtype=E.complex64)
    assert not x.is_conj() and "_conj" not in getattr(x, "__dict__", {})
    assert "_conj" not in getattr(x + 1, "__dict__", {})


def test_conj_views_among_several_written_tensors_are_written_through():
    """The write-through covers every written tensor, as PyTorch's conjugate fallback: conjugate views in an
    `out=` tuple or at several `mutates` indices get the kernel's values (their storage the conjugates)."""
    from ember.core.dispatch import Op, get_op
    from ember.core.ops import optim_kernels  # noqa: F401 (declares sgd_step)
    from ember.core.ops._util import write_out

    pair = Op("pair_out")
    pair.register("cpu")(lambda x, *, out: tuple(write_out(o, x._np() * (k + 1j), "pair_out")
                                                  for k, o in enumerate(out)))
    x = E.tensor([1.0, 2.0], dtype=E.complex128)
    a, b = E.zeros(2, dtype=E.complex128), E.zeros(2, dtype=E.complex128)
    ca = a.conj()
    r = pair(x, out=(ca, b))
    assert r[0] is ca and r[1] is b and ca.is_conj()
    np.testing.assert_array_equal(a.numpy(), [-1j, -2j])
    np.testing.assert_array_equal(b.numpy(), [1 + 1j, 2 + 2j])
    p, buf = E.full((2,), 1 + 1j, dtype=E.complex64), E.zeros(2, dtype=E.complex64)
    g = E.full((2,), 2 - 1j, dtype=E.complex64)
    get_op("sgd_step")(p.conj(), g, buf.conj(), 0.1, 0.9, 0.0, 0.0, False, False, True)  # buf = g; p -= 0.1 * buf
    np.testing.assert_allclose(p.numpy(), np.conj((1 - 1j) - 0.1 * (2 - 1j)) * np.ones(2), rtol=1e-6)
    np.testing.assert_allclose(buf.numpy(), [2 + 1j, 2 + 1j])


def test_numpy_force_resolves_the_conj_and_neg_bits_into_a_copy():
    x = E.tensor([1 + 2j, 3 - 1j])
    c = x.conj()
    a = c.numpy(force=True)
    np.testing.assert_array_equal(a, [1 - 2j, 3 + 1j])
    a[0] = 0  # a copy: neither the view nor its base sees the write
    assert c.tolist() == [1 - 2j, 3 + 1j] and x.tolist() == [1 + 2j, 3 - 1j]
    np.testing.assert_array_equal(c.imag.numpy(force=True), [-2.0, 1.0])
