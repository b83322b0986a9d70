"""The mistakes audio front-end code makes and PyTorch's exact answers: window reprs in float64 (Blackman's exact
zero ends), integer and 16-bit signals into stft, 0-d and too-short signals, empty FFTs and shifts over no dims,
CTC in half precision, zero dilations in 1-d convolutions, strided same padding, and the dtype/shape rules that do
work (promoted mixed-precision frames, complex windows, int lengths)."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def show(label, fn):
    try:
        out = fn()
        print(label, "->", out)
    except Exception as e:  # noqa: BLE001 - the point is to print PyTorch's exception
        print(label, "!!", type(e).__name__ + ":", str(e).split("\n")[0])


for name in ["hann_window", "hamming_window", "blackman_window", "bartlett_window"]:
    w64 = getattr(torch, name)(6, dtype=torch.float64)
    w32 = getattr(torch, name)(5, periodic=False)
    print(name, w64)
    print("  symmetric", w32, "ends", w32[0].item() == w32[-1].item(), "sum", round(w32.sum().item(), 4))
print(torch.blackman_window(3, periodic=False, dtype=torch.float64))
print(torch.kaiser_window(6, True, 6.0, dtype=torch.float64))
show("hann int64", lambda: torch.hann_window(4, dtype=torch.int64).dtype)
show("hann negative", lambda: torch.hann_window(-2))
show("hann length 1", lambda: torch.hann_window(1))
show("window requires_grad", lambda: torch.hamming_window(3, requires_grad=True).requires_grad)

x = torch.randn(400)
win = torch.hann_window(64)
show("int signal", lambda: torch.stft(torch.arange(400), 64, window=win, return_complex=True))
show("half signal", lambda: torch.stft(x.half(), 64, window=win.half(), return_complex=True))
show("half signal, float window", lambda: torch.stft(x.half(), 64, window=win, return_complex=True).dtype)
show("0-d signal", lambda: torch.stft(torch.tensor(0.5), 64, window=win, return_complex=True))
show("0-d signal, no center", lambda: torch.stft(torch.tensor(0.5), 64, window=win, center=False, return_complex=True))
show("3-d signal", lambda: torch.stft(x.view(2, 2, 100), 64, window=win, return_complex=True))
show("short signal, reflect", lambda: torch.stft(x[:20], 64, window=win, return_complex=True))
show("short signal, constant", lambda: torch.stft(x[:20], 64, window=win, pad_mode="constant",
                                                  return_complex=True).shape)
show("window too long", lambda: torch.stft(x, 64, window=torch.hann_window(80), return_complex=True))
show("complex window", lambda: torch.stft(x, 64, window=win.to(torch.complex64), return_complex=True).shape)
show("onesided with complex", lambda: torch.stft(x.to(torch.complex64), 64, window=win, onesided=True,
                                                 return_complex=True))
S = torch.stft(x, 64, 16, window=win, return_complex=True)
show("istft n_fft mismatch", lambda: torch.istft(S, 128, 16, window=torch.hann_window(128)))
show("istft hop > win", lambda: torch.istft(S, 64, 80, window=win))
show("istft complex out onesided", lambda: torch.istft(S, 64, 16, window=win, return_complex=True))
show("istft round trip", lambda: round((torch.istft(S, 64, 16, window=win, length=400) - x).abs().max().item(), 4))

show("fft of empty", lambda: torch.fft.fft(torch.empty(0)))
show("rfft of empty rows", lambda: torch.fft.rfft(torch.empty(3, 0)))
show("fft2 of empty", lambda: torch.fft.fft2(torch.empty(2, 0)))
show("fft padded empty", lambda: torch.fft.fft(torch.empty(0), n=4))
show("irfft of empty", lambda: torch.fft.irfft(torch.empty(0, dtype=torch.complex64)))
show("fftshift 0-d", lambda: torch.fft.fftshift(torch.tensor(3.0)))
show("fftshift dim=()", lambda: torch.fft.ifftshift(torch.arange(4.0), dim=()))
show("fftshift dim=0", lambda: torch.fft.fftshift(torch.arange(5.0), dim=0))
show("rfft half", lambda: torch.fft.rfft(torch.ones(8, dtype=torch.float16)))
show("rfft int", lambda: torch.fft.rfft(torch.arange(4)))

lp = torch.randn(8, 2, 5).log_softmax(-1)
tg = torch.tensor([[1, 2, 3], [4, 4, 0]])
show("ctc float32", lambda: round(F.ctc_loss(lp, tg, [8, 6], [3, 2]).item(), 4))
show("ctc half", lambda: F.ctc_loss(lp.half(), tg, [8, 6], [3, 2]))
show("ctc bfloat16", lambda: F.ctc_loss(lp.bfloat16(), tg, [8, 6], [3, 2]))
show("ctc int logits", lambda: F.ctc_loss(lp.long(), tg, [8, 6], [3, 2]))
show("ctc float64", lambda: F.ctc_loss(lp.double(), tg, [8, 6], [3, 2]).dtype)
show("ctc int32 everything", lambda: round(F.ctc_loss(lp, tg.int(), torch.tensor([8, 6], dtype=torch.int32),
                                                      torch.tensor([3, 2], dtype=torch.int32)).item(), 4))

sig = torch.randn(1, 2, 16)
show("conv1d dilation 0", lambda: F.conv1d(sig, torch.ones(3, 2, 3), dilation=0))
show("conv1d dilation -1", lambda: F.conv1d(sig, torch.ones(3, 2, 3), dilation=-1))
show("conv_transpose1d dilation 0", lambda: F.conv_transpose1d(sig, torch.ones(2, 3, 3), dilation=0))
show("conv1d stride 0", lambda: F.conv1d(sig, torch.ones(3, 2, 3), stride=0))
show("conv1d padding -1", lambda: F.conv1d(sig, torch.ones(3, 2, 3), padding=-1))
show("conv1d kernel too big", lambda: F.conv1d(sig, torch.ones(3, 2, 20)))
show("Conv1d same strided", lambda: nn.Conv1d(2, 3, 3, padding="same", stride=2))
show("Conv1d groups", lambda: nn.Conv1d(2, 3, 3, groups=2))
