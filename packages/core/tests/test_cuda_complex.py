"""Complex tensors on CUDA (NOTE [ Complex on CUDA ]): the ops with float-view composites match
numpy, the FFT goes through the host, the others raise naming the op.

Run in Numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) with tiny shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.core as E

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

A = np.array([[1 + 2j, 3 - 4j, -0.5 + 0.25j], [2j, -1.5 + 0j, 0.75 - 2j]])
B = np.array([[0.5 - 1j, 2 + 2j, 1 + 0j], [-1 + 1j, 0.5 + 0.5j, -2 - 1j]])


def dev(a) -> E.Tensor:
    return E.from_numpy(np.asarray(a)).to("cuda")


@pytest.mark.parametrize(("fn", "ref"), [
    (lambda x, y: x + y, lambda a, b: a + b), (lambda x, y: x - 2.5, lambda a, b: a - 2.5),
    (lambda x, y: x * y, lambda a, b: a * b), (lambda x, y: x / y, lambda a, b: a / b),
    (lambda x, y: x * 1j + y.real, lambda a, b: a * 1j + b.real), (lambda x, y: -x, lambda a, b: -a),
    (lambda x, y: x.square(), lambda a, b: a * a), (lambda x, y: x.abs(), lambda a, b: np.abs(a)),
    (lambda x, y: x.exp(), lambda a, b: np.exp(a)), (lambda x, y: x.log(), lambda a, b: np.log(a)),
    (lambda x, y: x.sqrt(), lambda a, b: np.sqrt(a)), (lambda x, y: x.sum(1), lambda a, b: a.sum(1)),
    (lambda x, y: x.mean(), lambda a, b: a.mean()), (lambda x, y: x @ y.t(), lambda a, b: a @ b.T),
    (lambda x, y: x == y, lambda a, b: a == b), (lambda x, y: x.conj(), lambda a, b: a.conj()),
    (lambda x, y: x.angle(), lambda a, b: np.angle(a)), (lambda x, y: x.real * y.imag, lambda a, b: a.real * b.imag),
    (lambda x, y: E.complex(x.real, y.imag), lambda a, b: a.real + 1j * b.imag),
    (lambda x, y: E.where(x.real > 0, x, y), lambda a, b: np.where(a.real > 0, a, b)),
])
def test_complex_ops_on_cuda_match_numpy(fn, ref):
    got = fn(dev(A), dev(B))
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.cpu().resolve_conj().numpy(), ref(A, B), rtol=1e-12, atol=1e-12)


def test_fft_on_cuda_goes_through_the_host():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = E.fft.rfft2(dev(A.real))
    assert r.device.type == "cuda"
    np.testing.assert_allclose(r.cpu().numpy(), np.fft.rfft2(A.real), atol=1e-12)


def test_ops_without_a_complex_path_raise_naming_the_op():
    with pytest.raises(NotImplementedError, match="sin: ember's CUDA kernels do not compute on complex tensors"):
        dev(A).sin()


@pytest.mark.parametrize("name", ["sgd_step", "adam_step"])
def test_optimizer_steps_update_complex_parameters_as_pairs(name):
    from ember.core.dispatch import get_op

    rng = np.random.default_rng(0)
    p, g = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)) for _ in range(2))
    results = []
    for device in ("cpu", "cuda"):
        param, grad = E.from_numpy(p.copy()).to(device), E.from_numpy(g).to(device)
        states = [E.zeros(2, 3, dtype=E.complex128, device=device) for _ in range(2)]
        if name == "sgd_step":
            get_op(name)(param, grad, states[0], 0.1, 0.9, 0.0, 0.01, False, False, True)
        else:
            get_op(name)(param, grad, states[0], states[1], None, 1.0, 0.01, 0.9, 0.999, 1e-8, 0.0, False, False,
                         False)
        results.append(param.cpu().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)
    assert not np.allclose(results[0], p)


def test_einsum_of_complex_operands_on_cuda():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 2)) + 1j * rng.standard_normal((2, 3, 2))
    b = rng.standard_normal((3, 4, 2)) + 1j * rng.standard_normal((3, 4, 2))
    got = E.einsum("bix,iox->box", dev(a), dev(b))
    np.testing.assert_allclose(got.cpu().numpy(), np.einsum("bix,iox->box", a, b), atol=1e-12)
    # a contracted pair wants one dtype (PyTorch's bmm check), a product promotes: as on the CPU and in PyTorch
    with pytest.raises(RuntimeError, match="expected scalar type ComplexDouble but found Double"):
        E.einsum("bix,iox->box", dev(a), dev(b.real))
    got = E.einsum("bix,box->bix", dev(a), dev(b.real[:2, :1]))
    np.testing.assert_allclose(got.cpu().numpy(), a * b.real[:2, :1], atol=1e-12)


def test_conj_views_read_and_write_conjugated_on_cuda():
    """The kernels read storage directly: the complex gate resolves conjugate views, the dispatcher's
    fallback writes into them, and transfers keep the bit (NOTE [ Complex storage and conj ])."""
    a = np.array([1 + 2j, 3 - 4j], np.complex64)
    x = dev(a)
    y = x.conj()
    assert y.is_conj() and y.tolist() == a.conj().tolist()
    np.testing.assert_array_equal((y + 1).cpu().numpy(), a.conj() + 1)
    np.testing.assert_array_equal(y.clone().cpu().numpy(), a.conj())
    c = y.cpu()
    assert c.is_conj() and c.tolist() == a.conj().tolist()
    y.add_(1j)
    np.testing.assert_array_equal(x.cpu().numpy(), a - 1j)
    assert E.from_numpy(a).conj().to(x.device).tolist() == a.conj().tolist()


def test_imag_of_a_conj_view_on_cuda_is_computed_and_a_negative_view_transfers_resolved():
    """CUDA kernels read storage as it is: there `.imag` of a conjugate view is a computed copy, and a CPU
    negative view arrives with its values (NOTE [ Complex storage and conj ])."""
    a = np.array([1 + 2j, 3 - 4j], np.complex64)
    y = dev(a).conj().imag
    assert not y.is_neg() and y.tolist() == (-a.imag).tolist()
    n = E.from_numpy(a.copy()).conj().imag
    assert n.is_neg()
    on = n.to(y.device)
    assert not on.is_neg() and on.tolist() == (-a.imag).tolist()
    np.testing.assert_array_equal((on * 2).cpu().numpy(), -2 * a.imag)
    with pytest.raises(NotImplementedError, match=r"^_neg_view: negative views are CPU tensors in ember; got "
                                                  r"Tensor\(shape=\(2,\), dtype=float32, device=cuda:0\)$"):
        E._neg_view(y)
