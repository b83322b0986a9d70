"""complex32 (chalf) through the autograd layer: `save`/`load` in PyTorch's format and gradients through a
cast to complex32 and back (the core behaviour is in packages/core/tests/test_complex_half.py)."""

import io

import numpy as np
import pytest

import ember.autograd as E
from ember.core.ops import complex_half

C32 = E.complex32
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")


@pytest.fixture(autouse=True)
def _no_hook_after():
    yield
    complex_half.uninstall()  # later tests of the session measure the plain op path


def test_save_load_round_trip():
    w = E.tensor([1 + 2j, 3 - 4j, 0.5j], dtype=C32)[1:]
    buf = io.BytesIO()
    E.save({"w": w}, buf)
    buf.seek(0)
    r = E.load(buf)["w"]
    assert r.dtype is C32 and r.tolist() == [3 - 4j, 0.5j]


def test_autograd_through_a_cast():
    x = E.tensor([1.0 + 1j, 2 - 1j], requires_grad=True)
    y = x.to(C32) * x.to(C32)
    assert y.dtype is C32
    E.view_as_real(y.to(E.complex64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (2 * np.conj([1 + 1j, 2 - 1j]) * (1 + 1j)).astype(np.complex64))
