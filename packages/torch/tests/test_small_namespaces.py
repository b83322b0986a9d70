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


@pytest.mark.parametrize("name, says", [("hann", "general_cosine"), ("nuttall", "general_cosine"),
                                        ("blackman", "blackman"), ("kaiser", "kaiser"), ("bartlett", "bartlett")])
def test_window_dtype_and_layout_errors_are_pytorchs(name, says):
    """Only float32 and float64 windows, named as PyTorch names them (the cosine sums but blackman say
    general_cosine); a sparse layout is refused; general_cosine checks its coefficients past length 1."""
    W = getattr(torch.signal.windows, name)
    for dt in ["int64", "float16", "complex64"]:
        with pytest.raises(ValueError, match=f"^{says} expects float32 or float64 dtypes, got: torch.{dt}$"):
            W(4, dtype=getattr(torch, dt))
    with pytest.raises(ValueError, match=f"^{says} is implemented for strided tensors only, got: torch.sparse_coo$"):
        W(4, layout=torch.sparse_coo)
    with pytest.raises(ValueError, match=f"^{says} requires non-negative window length, got M=-3$"):
        W(-3)
    with pytest.raises(TypeError, match="^linspace\\(\\) received an invalid combination of arguments - got "
                                        "\\(requires_grad=bool, device=NoneType, layout=torch.layout, "
                                        "dtype=torch.dtype, steps=float, "):
        W(2.5)  # PyTorch's: its windows call linspace by keyword, whose parser lists them, the last first
    assert W(3, layout=torch.strided).layout is torch.strided
    gc = torch.signal.windows.general_cosine
    with pytest.raises(TypeError, match="^Coefficients must be a list/tuple$"):
        gc(3, a=0.5)
    with pytest.raises(ValueError, match="^Coefficients cannot be empty$"):
        gc(3, a=[])
    assert gc(1, a=0.5).tolist() == [1.0] and gc(0, a=[]).shape == (0,)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_hamming",
                                  "hamming", "hann", "kaiser", "nuttall"])
def test_window_length_is_taken_as_pytorchs_windows_take_it(name):
    """PyTorch's windows check no type: a 0-d integer tensor is a length, True is 1 where the window returns its
    leaf for 1 (else linspace refuses steps=bool), a str or None fails at `M < 0` (Python's TypeError)."""
    W = getattr(torch.signal.windows, name)
    np.testing.assert_allclose(W(torch.tensor(4)).numpy(), W(4).numpy(), rtol=1e-6)  # cosine's pi / M: a tensor's
    if name in ("cosine", "exponential", "gaussian"):
        with pytest.raises(TypeError, match=r"steps=bool, end=float, start=float, \), but expected one of:"):
            W(True)
    else:
        assert W(True).tolist() == [1.0]
    for bad, kind in (("a", "str"), (None, "NoneType")):
        with pytest.raises(TypeError, match=f"^'<' not supported between instances of '{kind}' and 'int'$"):
            W(bad)


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


def test_windows_compose_tensor_ops_in_their_dtype():
    """As PyTorch's: float32 windows are computed in float32 (blackman's first point is -1.49e-08, hamming's
    0.08000001), and requires_grad=True gives a non-leaf window whose grad_fn names the last op; lengths 0 and 1
    of the cosine sums, kaiser and bartlett are leaves."""
    W = torch.signal.windows
    assert W.blackman(5, sym=False)[0].item() == np.float32(-1.4901161193847656e-08)
    assert W.hamming(4, sym=False)[0].item() == np.float32(0.08000001311302185)
    for name, node in [("hann", "SumBackward1"), ("nuttall", "SumBackward1"), ("bartlett", "RsubBackward1"),
                       ("cosine", "SinBackward0"), ("gaussian", "ExpBackward0"), ("exponential", "ExpBackward0"),
                       ("kaiser", "DivBackward0")]:
        w = getattr(W, name)(4, requires_grad=True)
        assert w.grad_fn.name() == node and not w.is_leaf
        w.sum().backward()
    for name in ["hann", "kaiser", "bartlett"]:
        assert getattr(W, name)(1, requires_grad=True).is_leaf
    assert W.cosine(1, requires_grad=True).grad_fn.name() == "SinBackward0"
    assert np.allclose(W.hann(6, dtype=torch.float64).tolist(), sw.hann(6), rtol=0, atol=1e-15)


def test_model_zoo_load_url_is_hubs_loader():
    from ember.torch.utils import model_zoo

    assert model_zoo.load_url is torch.hub.load_state_dict_from_url


def test_weak_tensor_key_dictionary_drops_collected_keys():
    import gc

    from ember.torch.utils.weak import TensorWeakRef, WeakTensorKeyDictionary

    d = WeakTensorKeyDictionary()
    a, b = torch.ones(2), torch.ones(2)
    d[a], d[b] = "a", "b"
    assert len(d) == 2 and d[a] == "a" and b in d and torch.ones(2) not in d and 3 not in d
    ref = TensorWeakRef(a)
    del a
    gc.collect()
    assert list(d.values()) == ["b"] and ref() is None
    with pytest.raises(AssertionError, match="^expected torch.Tensor, got <class 'int'>.$"):
        TensorWeakRef(3)


def test_deterministic_fill_uninitialized_memory_is_a_module_property():
    from ember.torch.utils import deterministic

    assert deterministic.fill_uninitialized_memory is True
    with pytest.raises(RuntimeError, match="^expected a bool, but got int$"):
        deterministic.fill_uninitialized_memory = 1
    torch.use_deterministic_algorithms(True)
    try:
        deterministic.fill_uninitialized_memory = False
        assert torch.empty(1, dtype=torch.uint4).dtype is torch.uint4  # no fill, so no refusal
        deterministic.fill_uninitialized_memory = True
        assert torch.empty(2, dtype=torch.int8).tolist() == [127, 127]
    finally:
        deterministic.fill_uninitialized_memory = True
        torch.use_deterministic_algorithms(False)
