"""`.imag` of a conjugate view as PyTorch's lazily negated view (NOTE [ Complex storage and conj ]): it shares
the complex storage, reads negated, writes go back negated, views keep the negative bit."""

import numpy as np
import pytest

import ember.core as E

RNG = np.random.default_rng(11)


def crand(*shape) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def values(t: E.Tensor) -> np.ndarray:
    return np.asarray(t.tolist(), dtype=np.float64)


def test_imag_of_a_conj_view_is_a_negative_view_of_the_same_storage():
    a = crand(2, 3)
    x = E.from_numpy(a.copy())
    y = x.conj().imag
    assert y.is_neg() and E.is_neg(y) and not y.is_conj() and y.dtype is E.float64
    assert y.untyped_storage() is x.untyped_storage() and y.data_ptr() == x.imag.data_ptr()
    np.testing.assert_array_equal(values(y), -a.imag)
    assert not x.imag.is_neg() and not x.conj().real.is_neg() and not E.ones(2).is_neg()
    assert not x.conj().resolve_conj().imag.is_neg()
    x.imag.fill_(7.0)  # later writes to the storage show through
    np.testing.assert_array_equal(values(y), np.full((2, 3), -7.0))


def test_ops_read_the_negated_values_and_give_plain_results():
    a, b = crand(3, 4), RNG.standard_normal((4, 2))
    y = E.from_numpy(a.copy()).conj().imag
    w = E.from_numpy(b)
    for got, want in [(y * 2, -a.imag * 2), (y.exp(), np.exp(-a.imag)), (y @ w, -a.imag @ b),
                      (y.sum(1), -a.imag.sum(1)), (y.clone(), -a.imag), (-y, a.imag), (y.contiguous(), -a.imag),
                      (y.max(), (-a.imag).max()), (y[E.tensor([2, 0])], -a.imag[[2, 0]])]:
        assert not got.is_neg()
        np.testing.assert_allclose(values(got), want, rtol=1e-12)


def test_resolve_neg_materializes_and_leaves_other_tensors_alone():
    a = crand(3)
    x = E.from_numpy(a.copy())
    y = x.conj().imag
    for r in (y.resolve_neg(), E.resolve_neg(y)):
        assert not r.is_neg() and r.data_ptr() != x.data_ptr()
        np.testing.assert_array_equal(r.numpy(), -a.imag)
    p = E.ones(2)
    assert p.resolve_neg() is p


def test_in_place_and_out_writes_go_to_the_storage_negated():
    a = np.array([1 + 2j, 3 - 4j])
    x = E.from_numpy(a.copy())
    y = x.conj().imag
    y.add_(1)
    np.testing.assert_array_equal(x.numpy(), [1 + 1j, 3 - 5j])
    np.testing.assert_array_equal(values(y), [-1.0, 5.0])
    y.fill_(5)
    np.testing.assert_array_equal(x.numpy(), [1 - 5j, 3 - 5j])
    E.add(E.ones(2, dtype=E.float64), 1, out=y)
    np.testing.assert_array_equal(x.numpy(), [1 - 2j, 3 - 2j])
    y[1] = 9.0
    np.testing.assert_array_equal(x.numpy(), [1 - 2j, 3 - 9j])
    x.conj().imag = E.tensor([4.0, 6.0], dtype=E.float64)  # the setter writes through the negative view once
    np.testing.assert_array_equal(x.numpy(), [1 - 4j, 3 - 6j])
    assert y.is_neg()


def test_views_of_a_negative_view_keep_the_bit_and_write_through():
    a = crand(2, 3)
    x = E.from_numpy(a.copy())
    y = x.conj().imag
    views = {"t": (y.t(), -a.imag.T), "slice": (y[:, 1:], -a.imag[:, 1:]), "select": (y[1], -a.imag[1]),
             "reshape": (y.reshape(6), -a.imag.reshape(6)), "unsqueeze": (y.unsqueeze(0), -a.imag[None]),
             "expand": (y[:1].expand(4, 3), np.broadcast_to(-a.imag[:1], (4, 3))),
             "diagonal": (y.diagonal(), -np.diagonal(a.imag)), "unbind": (y.unbind(1)[2], -a.imag[:, 2]),
             "as_strided": (y.as_strided((2,), (6,)), -a.imag[:, 0]), "conj": (y.conj(), -a.imag)}
    for name, (v, want) in views.items():
        assert v.is_neg(), name
        np.testing.assert_array_equal(values(v), want, err_msg=name)
    y.t()[2].mul_(0.0)  # a view of the negative view: the column's imaginary parts become -0.0
    np.testing.assert_array_equal(x.numpy()[:, 2].imag, [0.0, 0.0])
    np.testing.assert_array_equal(x.numpy()[:, :2], a[:, :2])


def test_neg_view_of_a_real_tensor_flips_the_bit():
    x = E.tensor([1.0, -2.0])
    n = E._neg_view(x)
    assert n.is_neg() and n.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(values(n), [-1.0, 2.0])
    nn = E._neg_view(n)
    assert not nn.is_neg()
    np.testing.assert_array_equal(values(nn), [1.0, -2.0])
    n.sub_(1)
    np.testing.assert_array_equal(x.numpy(), [2.0, -1.0])


def test_numpy_and_dtype_views_of_a_negative_view_raise_pytorchs_errors():
    y = E.tensor([1 + 2j]).conj().imag
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that has negative bit set\. "
                                           r"Use tensor\.resolve_neg\(\)\.numpy\(\) instead\.$"):
        y.numpy()
    with pytest.raises(RuntimeError, match=r"^torch\.Tensor\.view is not supported for tensors with negative bit set "
                                           r"when converting to a different dtype\.$"):
        y.view(E.int32)
    with pytest.raises(RuntimeError, match="^view_as_real doesn't work on unresolved conjugated tensors"):
        E.view_as_real(E.tensor([1 + 2j]).conj())


def test_printing_and_python_values_are_negated():
    y = E.tensor([1 + 2j, 3 - 4j]).conj().imag
    assert repr(y) == "tensor([-2.,  4.])"
    assert y.tolist() == [-2.0, 4.0] and y[0].item() == -2.0
