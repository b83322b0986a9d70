"""torch.signal.windows against scipy.signal.windows; torch.accelerator, torch.version, torch.types and
torch.torch_version as programs read them."""

import numpy as np
import pytest

import ember.torch as torch

sw = pytest.importorskip("scipy.signal.windows")


@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("M", [1, 2, 7, 10])
def test_windows_match_scipy(M, sym):
    W = torch.signal.windows
    cases = [(W.hann(M, sym=sym), sw.hann(M, sym)), (W.hamming(M, sym=sym), sw.hamming(M, sym)),
             (W.blackman(M, sym=sym), sw.blackman(M, sym)), (W.bartlett(M, sym=sym), sw.bartlett(M, sym)),
             (W.nuttall(M, sym=sym), sw.nuttall(M, sym)), (W.cosine(M, sym=sym), sw.cosine(M, sym)),
             (W.kaiser(M, beta=5.0, sym=sym), sw.kaiser(M, 5.0, sym)),
             (W.gaussian(M, std=2.0, sym=sym), sw.gaussian(M, 2.0, sym)),
             (W.exponential(M, tau=3.0, sym=sym), sw.exponential(M, None, 3.0, sym)),
             (W.general_hamming(M, alpha=0.6, sym=sym), sw.general_hamming(M, 0.6, sym)),
             (W.general_cosine(M, a=[0.5, 0.3, 0.2], sym=sym), sw.general_cosine(M, [0.5, 0.3, 0.2], sym))]
    for got, want in cases:
        assert got.dtype is torch.float32
        assert np.allclose(got.tolist(), want, atol=1e-6)


def test_window_errors():
    W = torch.signal.windows
    with pytest.raises(ValueError, match="non-negative window length"):
        W.hann(-1)
    with pytest.raises(ValueError, match="Center must be None for symmetric windows"):
        W.exponential(5, center=1.0)
    with pytest.raises(ValueError, match="Standard deviation must be positive"):
        W.gaussian(5, std=0.0)
    assert W.hann(4, dtype=torch.float64).dtype is torch.float64
    with pytest.raises(TypeError, match=r"^linspace\(\) received an invalid combination of arguments - got "
                                        r"\(requires_grad=bool, device=NoneType, layout=torch.layout, "
                                        r"dtype=torch.dtype, steps=float, end=Tensor, start=Tensor, \), but expected "
                                        r"one of:\n \* \(Tensor start, Tensor end, int steps, \*, "):
        W.kaiser(2.5)  # PyTorch's kaiser calls linspace with M as its steps


def test_kaiser_is_pytorchs_composition():
    # PyTorch's float32 values (stored from 2.13): I0(sqrt(beta^2 - k^2)) / I0(beta) over a float32 linspace
    assert torch.signal.windows.kaiser(33, beta=3.0)[:3].tolist() == [0.20488473773002625, 0.2646273374557495,
                                                                       0.3280363380908966]
    w = torch.signal.windows.kaiser(5, requires_grad=True)
    assert w.requires_grad and w.grad_fn is not None and not w.is_leaf


def test_accelerator_version_types():
    acc = torch.accelerator
    if not acc.is_available():
        assert acc.current_accelerator() is None and acc.device_count() == 0 and acc.memory_allocated() == 0
        acc.synchronize()
        with acc.device_index(0):
            pass
    assert torch.version.__version__ == torch.__version__ and torch.version.cuda is None
    assert torch.torch_version.TorchVersion("2.1") < (2, 3)
    assert isinstance(torch.__version__, torch.torch_version.TorchVersion)
    assert torch.types.Number == int | float | bool and torch.GradScaler is torch.amp.GradScaler


def test_torch_random_is_pytorchs_module():
    import ember.torch.random as tr

    assert torch.random is tr
    assert sorted(tr.__all__) == sorted(["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
                                         "fork_rng", "default_generator"])
    torch.random.manual_seed(3)
    a = torch.rand(3).tolist()
    torch.manual_seed(3)
    with torch.random.fork_rng():
        assert torch.rand(3).tolist() == a
    assert torch.rand(3).tolist() == a
