"""linalg.eig / eigvals: the decomposition's defining property in float64, unit eigenvectors,
complex result dtypes, and PyTorch's errors."""

import numpy as np
import pytest

import ember.core as E


@pytest.mark.parametrize("dtype, cdtype", [(E.float64, E.complex128), (E.float32, E.complex64)])
def test_eigenpairs_satisfy_a_v_equals_v_lambda(dtype, cdtype):
    a = np.random.default_rng(1).standard_normal((3, 4, 4))  # a batch with complex-conjugate pairs
    L, V = E.linalg.eig(E.tensor(a, dtype=dtype))
    assert L.dtype is cdtype and V.dtype is cdtype and tuple(L.shape) == (3, 4) and tuple(V.shape) == (3, 4, 4)
    l, v = L.numpy().astype(np.complex128), V.numpy().astype(np.complex128)
    tol = 1e-10 if dtype is E.float64 else 1e-4
    np.testing.assert_allclose(a @ v, v * l[:, None, :], atol=tol)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, atol=tol)
    np.testing.assert_allclose(np.sort_complex(E.linalg.eigvals(E.tensor(a)).numpy().ravel()),
                               np.sort_complex(np.linalg.eigvals(a).ravel()), atol=1e-10)


def test_complex_input_and_out():
    z = np.array([[1 + 1j, 2], [0, 3 - 2j]])
    L = E.linalg.eigvals(E.tensor(z))
    assert L.dtype is E.complex128
    np.testing.assert_allclose(np.sort_complex(L.numpy()), np.sort_complex(np.array([1 + 1j, 3 - 2j])), atol=1e-12)
    w, v = E.empty(0, dtype=E.complex128), E.empty(0, dtype=E.complex128)
    res = E.linalg.eig(E.tensor(z), out=(w, v))
    assert res.eigenvalues is w and res.eigenvectors is v and tuple(v.shape) == (2, 2)


def test_errors():
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        E.linalg.eig(E.ones(3))
    with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"):
        E.linalg.eig(E.ones(2, 3))
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Long"):  # PyTorch 2.13
        E.linalg.eig(E.ones(2, 2, dtype=E.int64))
    with pytest.raises(E.linalg.LinAlgError, match="must not contain infs or NaNs"):
        E.linalg.eig(E.tensor([[1.0, float("nan")], [0.0, 1.0]]))


@pytest.mark.cuda
def test_cuda_runs_on_the_host_and_returns_device_tensors():
    if not E.cuda.is_available():
        pytest.skip("no CUDA (nor the simulator)")
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    L, V = E.linalg.eig(E.tensor(a).to("cuda"))
    assert L.device.type == "cuda" and V.device.type == "cuda"
    np.testing.assert_allclose(np.sort_complex(L.cpu().numpy()), [2.0, 3.0], atol=1e-12)
