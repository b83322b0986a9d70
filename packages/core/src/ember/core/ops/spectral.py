"""The short-time Fourier transform and its inverse (`torch.stft`, `torch.istft`).

Both are compositions: `stft` frames the (padded) signal with a strided view, multiplies by the
window and takes one batched FFT; `istft` inverts each frame, windows it again and overlap-adds
the frames with `fold`, dividing by the overlap-added squared window. So they differentiate and run
on every device the FFT and `fold` run on.
"""

from __future__ import annotations

import warnings

from ember.core import fft as _fft
from ember.core.creation import ones
from ember.core.dispatch import node_name
from ember.core.methods import method
from ember.core.ops import elementwise as ew
from ember.core.ops import reduce as R
from ember.core.ops._util import internally
from ember.core.ops.complex import view_as_real
from ember.core.ops.conv import fold
from ember.core.ops.padding import pad
from ember.core.tensor import Tensor, describe

__all__ = ["stft", "istft"]

_warned_window: set[str] = set()  # the once-per-process warnings already given
_NO_WINDOW = {  # PyTorch's words, warned once per process and op, and the line of SpectralOps.cpp that warns
    "stft": ("A window was not provided. A rectangular window will be applied,which is known to cause spectral "
             "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
             "spectral leakage.", 835),
    "istft": ("A window was not provided. A rectangular window will be applied.Please provide the same window used "
              "by stft to make the inversion lossless.", 1035),
}


def _warn_no_window(what: str, stacklevel: int) -> None:
    """PyTorch's once-per-process warning that `what` (stft, istft) got no window: a rectangular one is used."""
    if what not in _warned_window:
        _warned_window.add(what)
        words, line = _NO_WINDOW[what]
        message = internally(words + "To suppress this warning and use a rectangular window, explicitly set "
                             "`window=torch.ones(n_fft, device=<device>)`.",
                             f"aten/src/ATen/native/SpectralOps.cpp:{line}")
        warnings.warn(message, UserWarning, stacklevel=stacklevel)


def _window(window: Tensor | None, win_length: int, n_fft: int, like: Tensor, what: str, where: str = "") -> Tensor:
    """The window zero-padded to `n_fft`, centred (a rectangular one, with PyTorch's warning, when None); errors start
    with `where` (default `what`)."""
    if window is None:
        _warn_no_window(what, 4)
        dt = like.dtype.to_real() if like.dtype.is_complex else like.dtype
        window = ones(win_length, dtype=dt, device=like.device)
    elif not isinstance(window, Tensor) or window.dim() != 1 or window.shape[0] != win_length:
        got = tuple(window.shape) if isinstance(window, Tensor) else describe(window)
        raise RuntimeError(f"{where or what}: expected a 1D window tensor of size equal to win_length={win_length}, "
                           f"but got window with size {list(got) if isinstance(got, tuple) else got}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = pad(window, (left, n_fft - win_length - left))
    return window


def _stft_call(input: Tensor, n_fft: int, hop_length, win_length, window, center: bool, normalized: bool, onesided,
               return_complex, align_to_window) -> str:
    """PyTorch's stft errors start with the call (the input after centre padding, C++ booleans as 0/1)."""
    def opt(b):
        return "None" if b is None else int(bool(b))

    shape = list(input.shape)
    if center:  # PyTorch pads a view of at least 3 dims, then views back the last input.dim() of them
        shape = [1] * (3 - len(shape)) + shape if not shape else shape
        shape[-1] += 2 * (n_fft // 2)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    w = f"{window.type()}{{{list(window.shape)}}}" if isinstance(window, Tensor) else "None"
    return (f"stft({input.type()}{shape}, n_fft={n_fft}, hop_length={hop}, win_length={win}, window={w}, "
            f"normalized={int(bool(normalized))}, onesided={opt(onesided)}, return_complex={opt(return_complex)}, "
            f"align_to_window={opt(align_to_window)}) ")


def _istft_call(input: Tensor, n_fft: int, hop: int, win: int, window, center: bool, normalized: bool, onesided,
                length, return_complex: bool) -> str:
    """PyTorch's istft errors start with the call, the input named by its C++ type (`CPUComplexDoubleType[33, 9]`)."""
    from ember.core.dtypes import TORCH_NAMES

    dev = "CUDA" if input.device.type == "cuda" else "CPU"
    w = f"{window.type()}{{{list(window.shape)}}}" if isinstance(window, Tensor) else "None"
    side = "None" if onesided is None else int(bool(onesided))
    return (f"istft({dev}{TORCH_NAMES[input.dtype.name]}Type{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={w}, center={int(bool(center))}, normalized={int(bool(normalized))}, "
            f"onesided={side}, length={length}, return_complex={int(bool(return_complex))}) ")


def _lengths(n_fft: int, hop_length: int | None, win_length: int | None, what: str) -> tuple[int, int]:
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if hop <= 0:
        raise RuntimeError(f"{what}: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{what}: expected 0 < win_length <= n_fft, but got win_length={win}")
    return hop, win


@method
def stft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: Tensor | None = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: bool | None = None, return_complex: bool | None = None,
         align_to_window: bool | None = None) -> Tensor:
    """The short-time Fourier transform of a 1-D signal or a batch of them: (batch, frequencies,
    frames), complex (or real and imaginary in a last dim of 2 with `return_complex=False`).

    Raises:
        RuntimeError: a real input without `return_complex`, a rank other than 1 or 2, bad lengths
            or window, or a onesided output asked of complex data.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' must be Tensor, not {type(input).__name__}")
    complex_in = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn(internally("stft with return_complex=False is deprecated. In a future pytorch release, stft "
                                 "will return complex tensors for all inputs, and return_complex=False will raise an "
                                 "error.\nNote: you can still call torch.view_as_real on the complex output to "
                                 "recover the old return format.", "aten/src/ATen/native/SpectralOps.cpp:874"),
                      UserWarning, stacklevel=2)
    where = _stft_call(input, n_fft, hop_length, win_length, window, center, normalized, onesided, return_complex,
                       align_to_window)
    if input.dim() == 0 and center:  # PyTorch pads it as (1, 1, 1) first: the pad's own error, if any
        pad(input.view(1, 1, 1), (n_fft // 2, n_fft // 2), mode=pad_mode)
    if input.dim() not in (1, 2):
        raise RuntimeError(f"{where}: expected a 1D or 2D tensor")
    if align_to_window is not None and center:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    hop, win = _lengths(n_fft, hop_length, win_length, where)
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        raise RuntimeError(f"{where}: expected a tensor of floating point or complex values")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if center:
        x = pad(x.unsqueeze(1), (n_fft // 2, n_fft // 2), mode=pad_mode).squeeze(1)
    length = x.shape[-1]
    if not 0 < n_fft <= length:  # PyTorch 2.13 names win_length as the n_fft it got
        raise RuntimeError(f"{where}: expected 0 < n_fft < {length}, but got n_fft={win}")
    if align_to_window and win < n_fft:  # frames start where their window starts: 1 + (length - win) // hop of them
        left = (n_fft - win) // 2
        x = pad(x, (left, n_fft - win - left))
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = ew.mul(x.unfold(-1, n_fft, hop), _window(window, win, n_fft, input, "stft", where))
    if frames.dtype.itemsize == 2 and frames.device.type == "cpu":  # the windowed frames meet the CPU FFT backend
        from ember.core.dtypes import TORCH_NAMES

        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {TORCH_NAMES[frames.dtype.name]}")
    norm = "ortho" if normalized else "backward"
    spec = _fft.rfft(frames, dim=-1, norm=norm) if onesided else _fft.fft(frames, dim=-1, norm=norm)
    spec = node_name(spec.transpose(-1, -2), "TransposeBackward0", "TransposeBackward1")  # PyTorch's transpose_
    if input.dim() == 1:
        spec = node_name(spec.squeeze(0), "SqueezeBackward1", "SqueezeBackward4")  # and squeeze_(0)
    return spec if return_complex else view_as_real(spec)  # a view of the complex result, its strides doubled


@method
def istft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
          window: Tensor | None = None, center: bool = True, normalized: bool = False, onesided: bool | None = None,
          length: int | None = None, return_complex: bool = False) -> Tensor:
    """The inverse of `stft`: the least-squares signal whose STFT is `input` (frequencies, frames),
    by overlap-adding the windowed inverse FFT of each frame.

    Raises:
        RuntimeError: a real input, a frequency dimension that does not match `n_fft`, or a window
            whose overlap-added square vanishes somewhere in the output (no unique inverse).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' must be Tensor, not {type(input).__name__}")
    if window is None:  # PyTorch warns before any check of the input
        _warn_no_window("istft", 3)
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    call = _istft_call(input, n_fft, hop, win, window, center, normalized, onesided, length, return_complex)
    if input.dim() not in (2, 3):  # PyTorch counts the dims of view_as_real(input)
        raise RuntimeError(f"{call}: expected a tensor with 3 or 4 dimensions, but got {input.dim() + 1}")
    n_freq, n_frames = input.shape[-2], input.shape[-1]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided and n_freq != n_fft // 2 + 1:
        raise RuntimeError(f"{call}: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {n_freq}")
    if not onesided and n_freq != n_fft:
        raise RuntimeError(f"{call}: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {n_freq}")
    if not 0 < hop <= win:
        raise RuntimeError(f"{call}: expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{call}: expected 0 < win_length <= n_fft")
    if window is not None and (not isinstance(window, Tensor) or window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(f"{call}: Invalid window shape. window has to be 1D and length of `win_length`")
    if window is not None and window.dtype.is_complex and not return_complex:
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    if return_complex and onesided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    w = _window(window, win, n_fft, input, "istft")
    spec = (input.unsqueeze(0) if input.dim() == 2 else input).transpose(-1, -2)  # (batch, frames, freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        frames = _fft.ifft(spec, dim=-1, norm=norm)
    else:
        if not onesided:
            spec = spec.narrow(-1, 0, n_fft // 2 + 1)
        frames = _fft.irfft(spec, n=n_fft, dim=-1, norm=norm)
    frames = ew.mul(frames, w)
    total = n_fft + hop * (n_frames - 1)
    y = fold(frames.transpose(1, 2), (1, total), (1, n_fft), stride=(1, hop)).reshape(frames.shape[0], total)
    sq = ew.mul(w, w).reshape(1, n_fft, 1).expand(1, n_fft, n_frames)
    envelope = fold(sq.contiguous(), (1, total), (1, n_fft), stride=(1, hop)).reshape(total)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    else:
        end = total - n_fft // 2 if center else total
    stop = min(end, total)
    y = y.narrow(-1, start, max(stop - start, 0))
    envelope = envelope.narrow(-1, start, max(stop - start, 0))
    if envelope.numel():
        smallest = float(R.amin(ew.abs(envelope)).item())
        if smallest < 1e-11:
            # PyTorch's words: the call, then its failed check (a boolean tensor) printed where the minimum would be
            dev = "CUDA" if input.device.type == "cuda" else "CPU"
            raise RuntimeError(f"{call}window overlap add min: 1\n[ {dev}BoolType{{}} ]")
    else:  # PyTorch takes the minimum of the empty envelope (one frame, centred, or length=0)
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    y = ew.div(y, envelope)
    if end > total:
        if "istft length" not in _warned_window:  # PyTorch warns once per process
            _warned_window.add("istft length")
            warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with "
                          "zeros in the tail. Please check your center and hop_length settings.", UserWarning,
                          stacklevel=2)
        y = pad(y, (0, end - total))
    return y.squeeze(0) if input.dim() == 2 else y
