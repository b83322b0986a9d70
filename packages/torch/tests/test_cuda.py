"""The torch tree's CUDA paths (in Numba's simulator here): the default device, the legacy CUDA types,
`type()` to a CUDA type, GradScaler on CUDA gradients, and queues refusing CUDA tensors."""

from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

import ember.nn as enn
import ember.torch as et

pytestmark = pytest.mark.cuda


@pytest.fixture(autouse=True)
def _needs_cuda():
    if not et.cuda.is_available():
        pytest.skip("no CUDA device (run with NUMBA_ENABLE_CUDASIM=1)")


def test_default_device_cuda_moves_factories():
    et.set_default_device("cuda")
    try:
        assert et.zeros(2).is_cuda and et.tensor([1.0, 2.0]).is_cuda and et.randn(3).is_cuda
        assert et.get_default_device().type == "cuda"
    finally:
        et.set_default_device(None)
    assert et.zeros(2).is_cpu


def test_legacy_cuda_types_and_type_names():
    t = et.cuda.FloatTensor(2, 3)
    assert t.is_cuda and t.shape == (2, 3) and isinstance(t, et.cuda.FloatTensor)
    assert not isinstance(t, et.FloatTensor) and t.type() == "torch.cuda.FloatTensor"
    moved = et.ones(2).type("torch.cuda.DoubleTensor")
    assert moved.is_cuda and moved.dtype is et.float64


def test_grad_scaler_on_cuda_gradients():
    p = enn.Parameter(et.tensor([1.0, 2.0], device="cuda"))
    opt = et.optim.SGD([p], lr=0.1)
    scaler = et.amp.GradScaler("cuda", init_scale=4.0)
    scaler.scale((p * p).sum()).backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0.8, 1.6], rtol=1e-6)


def test_queues_refuse_cuda_tensors():
    import ember.torch.multiprocessing  # noqa: F401 - registers the reducer

    with pytest.raises(RuntimeError, match="move it to the CPU"):
        ForkingPickler.dumps(et.ones(2, device="cuda"))


def test_deprecated_amp_grad_scalers_are_named_gradscaler():
    import pickle
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for scaler in (et.cuda.amp.GradScaler(), et.cpu.amp.GradScaler()):
            assert type(scaler).__name__ == type(scaler).__qualname__ == "GradScaler"
            assert isinstance(scaler, et.amp.GradScaler)
            assert type(pickle.loads(pickle.dumps(scaler))) is type(scaler)
