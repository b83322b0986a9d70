"""torch.stft / torch.istft against a float64 numpy reference (framing, windowing, DFT), the round
trip, PyTorch's errors, and PyTorch's values where it is installed."""

import warnings

import numpy as np
import pytest

import ember.core as E


def ref_stft(x, n_fft, hop, win, window, center, normalized, onesided, pad_mode="reflect"):
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=pad_mode)
    w = np.ones(win) if window is None else window
    left = (n_fft - win) // 2
    w = np.pad(w, (left, n_fft - win - left))
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., t * hop:t * hop + n_fft] * w for t in range(n_frames)], axis=-2)
    k = np.arange(n_fft)
    dft = np.exp(-2j * np.pi * np.outer(k, k) / n_fft)  # a direct DFT, independent of the FFT library
    spec = frames @ dft.T
    if onesided:
        spec = spec[..., :n_fft // 2 + 1]
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.swapaxes(spec, -1, -2)


CASES = [dict(n_fft=16, hop=4, win=16, window=False, center=True, normalized=False, onesided=True),
         dict(n_fft=16, hop=5, win=10, window=True, center=True, normalized=False, onesided=True),
         dict(n_fft=15, hop=3, win=15, window=True, center=False, normalized=True, onesided=True),
         dict(n_fft=12, hop=4, win=12, window=True, center=True, normalized=False, onesided=False)]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("shape", [(64,), (3, 50)])
def test_stft_matches_a_direct_dft_of_windowed_frames_and_istft_inverts_it(case, shape):
    rng = np.random.default_rng(len(shape) + case["n_fft"])
    x = rng.standard_normal(shape)
    window = np.hanning(case["win"] + 1)[:-1] + 0.1 if case["window"] else None
    want = ref_stft(x, case["n_fft"], case["hop"], case["win"], window, case["center"], case["normalized"],
                    case["onesided"])
    kw = dict(n_fft=case["n_fft"], hop_length=case["hop"], win_length=case["win"], center=case["center"],
              normalized=case["normalized"], onesided=case["onesided"])
    ew = E.tensor(window) if window is not None else E.ones(case["win"], dtype=E.float64)
    got = E.stft(E.tensor(x), window=ew, return_complex=True, **kw)
    assert got.dtype is E.complex128 and tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)
    real = E.stft(E.tensor(x).float(), window=ew.float(), return_complex=True, **kw)
    assert real.dtype is E.complex64
    if case["center"]:
        back = E.istft(got, window=ew, length=shape[-1], **kw)
        np.testing.assert_allclose(back.numpy(), x, rtol=1e-10, atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's deprecation, once per process
        pairs = E.stft(E.tensor(x), window=ew, return_complex=False, **kw)
    np.testing.assert_allclose(pairs.numpy()[..., 0] + 1j * pairs.numpy()[..., 1], want, rtol=1e-10, atol=1e-10)
    assert x.shape == tuple(E.tensor(x).shape)


@pytest.mark.parametrize("n_fft,win,hop,length", [(16, 10, 4, 50), (16, 9, 5, 41), (12, 12, 3, 30)])
def test_align_to_window_starts_each_frame_at_its_window(n_fft, win, hop, length):
    """center=False with align_to_window=True: frame t is x[t*hop : t*hop+win] windowed, zero-padded to n_fft
    around the window's place, so 1 + (length - win) // hop frames (PyTorch 2.13's layout)."""
    rng = np.random.default_rng(n_fft + win)
    x, w = rng.standard_normal((2, length)), np.hanning(win + 2)[1:-1]
    left = (n_fft - win) // 2
    frames = np.zeros((2, 1 + (length - win) // hop, n_fft))
    for t in range(frames.shape[1]):
        frames[:, t, left:left + win] = x[:, t * hop:t * hop + win] * w
    k = np.arange(n_fft)
    want = np.swapaxes(frames @ np.exp(-2j * np.pi * np.outer(k, k) / n_fft).T, -1, -2)[:, :n_fft // 2 + 1]
    got = E.stft(E.tensor(x), n_fft, hop, win, E.tensor(w), center=False, align_to_window=True, return_complex=True)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)
    unaligned = E.stft(E.tensor(x), n_fft, hop, win, E.tensor(w), center=False, align_to_window=False,
                       return_complex=True)
    assert unaligned.shape[-1] == 1 + (length - n_fft) // hop
    with pytest.raises(RuntimeError, match=r"^stft align_to_window should only be set when center = false$"):
        E.stft(E.tensor(x), n_fft, hop, win, E.tensor(w), align_to_window=True, return_complex=True)


def test_short_signal_error_names_win_length_as_pytorch_does():
    with pytest.raises(RuntimeError, match=r"expected 0 < n_fft < 150, but got n_fft=200$"):
        E.stft(E.randn(150), 256, 64, 200, E.hann_window(200), center=False, return_complex=True)


def test_tensor_methods_and_default_window_warning():
    x = E.arange(40.0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        s = x.stft(8, return_complex=True)
    assert tuple(s.shape) == (5, 21)  # 40 samples padded by 4 on each side, hop 2
    assert tuple(s.istft(8, window=E.ones(8), length=40).shape) == (40,)
    np.testing.assert_allclose(s.istft(8, window=E.ones(8), length=40).numpy(), x.numpy(), atol=1e-4)


def test_missing_window_warnings_are_each_ops_own_words(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    x = E.arange(40.0)
    with pytest.warns(UserWarning, match="^A window was not provided. A rectangular window will be applied,which is "
                                         "known to cause spectral leakage.*SpectralOps.cpp:835.\\)$"):
        s = x.stft(8, return_complex=True)
    with pytest.warns(UserWarning, match="^A window was not provided. A rectangular window will be applied.Please "
                                         "provide the same window used by stft to make the inversion lossless.To "
                                         "suppress this warning.* \\(Triggered internally at /__w/pytorch/pytorch/"
                                         "aten/src/ATen/native/SpectralOps.cpp:1035.\\)$"):
        s.istft(8)


def test_istft_warns_of_the_missing_window_before_refusing_its_input(monkeypatch):
    """PyTorch's istft warns first (a frequency size that does not match n_fft is refused after the warning)."""
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with pytest.warns(UserWarning, match="^A window was not provided"):
        with pytest.raises(RuntimeError, match="expected the frequency dimension"):
            E.istft(E.ones(5, 4, dtype=E.complex64), 16)


def test_stft_warns_of_the_missing_window_before_refusing_its_arguments(monkeypatch):
    """PyTorch's stft pads the centred input first (its error comes alone), then warns, then checks the call."""
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="^Argument #4: Padding size should be less than"):
            E.stft(E.ones(5), 32, 8)  # no return_complex either: the padding is refused first
    assert got == []
    with pytest.warns(UserWarning, match="^A window was not provided"):
        with pytest.raises(RuntimeError, match="expected hop_length > 0, but got hop_length=0"):
            E.stft(E.ones(2, 100), 32, 0, return_complex=True)
    monkeypatch.setattr(_util, "_warned_once", set())
    with pytest.warns(UserWarning, match="^A window was not provided"):
        with pytest.raises(RuntimeError, match="^stft requires the return_complex parameter"):
            E.stft(E.ones(2, 2, 100), 32, 8)


def test_stft_warnings_end_as_pytorchs_cpp_ones_and_come_once(monkeypatch):
    """The deprecation of return_complex=False is a TORCH_WARN_ONCE too; each spectral warning ends with the line
    of SpectralOps.cpp that raised it (`set_warn_always(True)` repeats them)."""
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    x, w = E.arange(20.0), E.ones(8)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        E.stft(x, 8, 2, window=w, return_complex=False)
        E.stft(x, 8, 2, window=w, return_complex=False)
        E.stft(x, 8, 2, return_complex=True)
        E.istft(E.stft(x, 8, 2, window=w, return_complex=True), 8, 2, window=w, length=30)
    messages = [str(g.message) for g in got]
    assert len(messages) == 3 and messages[0].startswith("stft with return_complex=False is deprecated.")
    ends = [m[m.index(" (Triggered"):] for m in messages]
    assert ends == [f" (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:{n}.)"
                    for n in (874, 835, 1199)]
    assert got[0].filename == __file__


def test_istft_padding_past_the_signal_warns_once_as_pytorch(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    s = E.stft(E.arange(64.0), 16, 4, window=E.hann_window(16), return_complex=True)
    with pytest.warns(UserWarning, match="^The length of signal is shorter than the length parameter. Result is being "
                                         "padded with zeros in the tail. Please check your center and hop_length"):
        y = E.istft(s, 16, 4, window=E.hann_window(16), length=80)
    assert tuple(y.shape) == (80,) and y[72:].abs().sum().item() == 0  # 72 samples from 17 centred frames
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E.istft(s, 16, 4, window=E.hann_window(16), length=80)


def test_errors_match_pytorch():
    x = E.randn(100)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter be given for real inputs"):
        E.stft(x, 16)
    with pytest.raises(RuntimeError, match="expected a 1D or 2D tensor"):
        E.stft(E.randn(2, 3, 100), 16, window=E.ones(16), return_complex=True)
    with pytest.raises(RuntimeError, match="expected 0 < win_length <= n_fft, but got win_length=20"):
        E.stft(x, 16, win_length=20, return_complex=True)
    with pytest.raises(RuntimeError, match="expected a 1D window tensor of size equal to win_length=16"):
        E.stft(x, 16, window=E.ones(8), return_complex=True)
    with pytest.raises(RuntimeError, match="expected 0 < n_fft < 100, but got n_fft=200"):  # PyTorch's words
        E.stft(x, 200, window=E.ones(200), center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="istft requires a complex-valued input tensor"):
        E.istft(E.randn(9, 26), 16)
    with pytest.raises(RuntimeError, match="to match n_fft / 2 \\+ 1 when onesided=True, but got 7"):
        E.istft(E.stft(x, 12, window=E.ones(12), return_complex=True), 16, window=E.ones(16), onesided=True)
    zero_edges = E.tensor([0.0, 1.0, 1.0, 0.0])
    with pytest.raises(RuntimeError, match="window overlap add min"):
        E.istft(E.stft(x, 4, hop_length=4, window=zero_edges, return_complex=True), 4, hop_length=4,
                window=zero_edges)


def test_errors_start_with_pytorchs_description_of_the_call():
    x = E.ones(100)
    with pytest.raises(RuntimeError) as e:
        E.stft(x, 16, 4, window=E.ones(8), return_complex=True)
    assert str(e.value) == (
        "stft(torch.FloatTensor[116], n_fft=16, hop_length=4, win_length=16, window=torch.FloatTensor{[8]}, "
        "normalized=0, onesided=None, return_complex=1, align_to_window=None) : expected a 1D window tensor of size "
        "equal to win_length=16, but got window with size [8]")
    with pytest.raises(RuntimeError) as e:
        E.stft(E.ones(2, 100, dtype=E.float64), 16, 0, normalized=True, onesided=True, return_complex=False)
    assert str(e.value) == (
        "stft(torch.DoubleTensor[2, 116], n_fft=16, hop_length=0, win_length=16, window=None, normalized=1, "
        "onesided=1, return_complex=0, align_to_window=None) : expected hop_length > 0, but got hop_length=0")
    w = E.hann_window(64, dtype=E.float64)  # periodic: zero at sample 0, which center=False keeps
    spec = E.stft(E.ones(200, dtype=E.float64), 64, 16, window=w, center=False, return_complex=True)
    with pytest.raises(RuntimeError) as e:
        E.istft(spec, 64, 16, window=w, center=False)
    assert str(e.value) == (
        "istft(CPUComplexDoubleType[33, 9], n_fft=64, hop_length=16, win_length=64, window=torch.DoubleTensor{[64]}, "
        "center=0, normalized=0, onesided=None, length=None, return_complex=0) window overlap add min: 1\n"
        "[ CPUBoolType{} ]")



def test_stft_refuses_integer_scalar_and_16_bit_signals_in_pytorchs_words():
    """PyTorch 2.13's messages: the call description for an integer signal; a 0-d signal is padded as (1, 1, 1)
    first (center=True); 16-bit windowed frames reach the CPU FFT backend, which refuses them."""
    with pytest.raises(RuntimeError) as e:
        E.stft(E.arange(64), 16, return_complex=True, window=E.hann_window(16))
    assert str(e.value) == (
        "stft(torch.LongTensor[80], n_fft=16, hop_length=4, win_length=16, window=torch.FloatTensor{[16]}, "
        "normalized=0, onesided=None, return_complex=1, align_to_window=None) : expected a tensor of floating point "
        "or complex values")
    with pytest.raises(RuntimeError, match=r"^Argument #4: Padding size should be less than the corresponding "
                                           r"input dimension, but got: padding \(8, 8\) at dimension 2 of input "
                                           r"\[1, 1, 1\]$"):
        E.stft(E.tensor(1.0), 16, window=E.ones(16), return_complex=True)
    with pytest.raises(RuntimeError) as e:
        E.stft(E.tensor(1.0), 16, window=E.ones(16), center=False, return_complex=True)
    assert str(e.value).startswith("stft(torch.FloatTensor[], n_fft=16,")
    assert str(e.value).endswith(") : expected a 1D or 2D tensor")
    with pytest.raises(RuntimeError, match="^MKL FFT doesn't support tensors of type: BFloat16$"):
        E.stft(E.ones(64, dtype=E.bfloat16), 16, window=E.ones(16, dtype=E.bfloat16), return_complex=True)
    with pytest.raises(RuntimeError, match="^MKL FFT doesn't support tensors of type: Half$"):
        E.stft(E.ones(64, dtype=E.float16), 16, window=E.ones(16, dtype=E.float16), return_complex=True)
    mixed = E.stft(E.ones(64, dtype=E.float16), 16, window=E.ones(16), return_complex=True)  # promoted frames
    assert mixed.dtype is E.complex64 and mixed.shape == (9, 17)

def test_istft_checks_its_arguments_as_pytorch():
    spec = E.stft(E.ones(200, dtype=E.float64), 64, 16, window=E.hann_window(64, dtype=E.float64),
                  return_complex=True)
    call = ("istft(CPUComplexDoubleType[33, 13], n_fft=64, hop_length={hop}, win_length={win}, window={w}, center=1, "
            "normalized=0, onesided=None, length=None, return_complex=0) : ")
    for kwargs, w, message in [
        ({"hop_length": 16, "window": E.ones(10, dtype=E.float64)}, "torch.DoubleTensor{[10]}",
         "Invalid window shape. window has to be 1D and length of `win_length`"),
        ({"hop_length": 0}, "None", "expected 0 < hop_length <= win_length"),
        ({"hop_length": 40, "win_length": 32}, "None", "expected 0 < hop_length <= win_length"),
        ({"hop_length": 16, "win_length": 80}, "None", "expected 0 < win_length <= n_fft"),
    ]:
        with pytest.raises(RuntimeError) as e:
            E.istft(spec, 64, **kwargs)
        hop, win = kwargs["hop_length"], kwargs.get("win_length", 64)
        assert str(e.value) == call.format(hop=hop, win=win, w=w) + message
    with pytest.raises(RuntimeError, match=r"CPUComplexDoubleType\[1, 1, 33, 13\].* : expected a tensor with 3 or 4 "
                                           r"dimensions, but got 5$"):
        E.istft(spec.reshape(1, 1, 33, 13), 64)
    with pytest.raises(RuntimeError, match="^Cannot have onesided output if window or input is complex$"):
        E.istft(spec, 64, return_complex=True)
    with pytest.raises(RuntimeError, match="^Complex windows are incompatible with return_complex=False$"):
        E.istft(E.stft(E.ones(200), 64, window=E.ones(64), onesided=False, return_complex=True), 64,
                window=E.ones(64, dtype=E.complex64))


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).standard_normal((2, 77)).astype(np.float32)
    w = torch.hann_window(20)
    a = torch.stft(torch.tensor(x), 32, hop_length=7, win_length=20, window=w, return_complex=True)
    b = E.stft(E.tensor(x), 32, hop_length=7, win_length=20, window=E.tensor(w.numpy()), return_complex=True)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-5)
    ai = torch.istft(a, 32, hop_length=7, win_length=20, window=w, length=77)
    bi = E.istft(b, 32, hop_length=7, win_length=20, window=E.tensor(w.numpy()), length=77)
    np.testing.assert_allclose(bi.numpy(), ai.numpy(), rtol=1e-5, atol=1e-5)


def test_legacy_real_output_is_a_view_of_the_complex_result():
    """return_complex=False is view_as_real of the (frequency, frame)-transposed result: PyTorch 2.13's strides."""
    x, w = E.randn(2, 100), E.hann_window(16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert E.stft(x, 16, 4, window=w, return_complex=False).stride() == (468, 2, 18, 1)
        assert E.stft(x[0], 16, 4, window=w, return_complex=False).stride() == (2, 18, 1)
        legacy = E.stft(x[0], 16, 4, window=w, return_complex=False)
    spec = E.stft(x[0], 16, 4, window=w, return_complex=True)
    assert E.equal(legacy[..., 0], spec.real) and E.equal(legacy[..., 1], spec.imag)


@pytest.mark.parametrize("frames, kw", [(1, {}), (17, {"length": 0})])
def test_istft_with_nothing_to_return_is_pytorchs_empty_minimum_error(frames, kw):
    """One centred frame (or length=0) leaves an empty envelope, whose minimum PyTorch takes and refuses."""
    w = E.hann_window(16)
    spec = E.stft(E.randn(64), 16, 4, window=w, return_complex=True)[:, :frames]
    with pytest.raises(RuntimeError, match=r"^min\(\): Expected reduction dim to be specified for input.numel"):
        E.istft(spec, 16, 4, window=w, **kw)
