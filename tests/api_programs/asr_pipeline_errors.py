"""The mistakes an ASR pipeline makes from waveform to CTC loss, and PyTorch's exact answers: stft without
return_complex, a zero hop or unknown pad mode, 3-D signals, complex inputs asked for one-sided spectra, istft
without centre padding (the NOLA check), hop longer than the window, empty and 1-point windows, integer window
dtypes, CTC with negative lengths, float length tensors and a bad reduction, empty pad_sequence batches and padding
sides, 2-D length tensors, RNN size mismatches, grouped-conv channel errors, layer-norm shapes and 4-D batch norm."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
wave = torch.randn(400)
win = torch.hann_window(64)
spec = torch.stft(wave, 64, window=win, return_complex=True)
lp = torch.randn(10, 2, 5).log_softmax(-1)
tg = torch.tensor([[1, 2], [3, 4]])
print(
    "spec", tuple(spec.shape), spec.dtype, "istft length=10", tuple(torch.istft(spec, 64, window=win, length=10).shape)
)
print("float64 window promotes", torch.stft(wave, 64, window=win.double(), return_complex=True).dtype)
print(
    "windows of 0 and 1",
    torch.hann_window(0).tolist(),
    torch.hann_window(1).tolist(),
    torch.blackman_window(3, dtype=torch.float16).tolist(),
)
print("ctc float64", F.ctc_loss(lp.double(), tg, (10, 10), (2, 2)).dtype, nn.CTCLoss(reduction="sum"))

cases = {
    "stft no return_complex": lambda: torch.stft(wave, 64, window=win),
    "stft hop 0": lambda: torch.stft(wave, 64, hop_length=0, window=win, return_complex=True),
    "stft pad mode": lambda: torch.stft(wave, 64, window=win, pad_mode="bogus", return_complex=True),
    "stft 3-d": lambda: torch.stft(wave.view(1, 2, 200), 64, window=win, return_complex=True),
    "stft complex onesided": lambda: torch.stft(
        wave.to(torch.complex64), 64, window=win, onesided=True, return_complex=True
    ),
    "istft center=False": lambda: torch.istft(spec, 64, window=win, center=False),
    "istft hop > win": lambda: torch.istft(spec, 64, hop_length=80, window=win),
    "istft return_complex": lambda: torch.istft(spec, 64, window=win, return_complex=True),
    "negative window": lambda: torch.hann_window(-1),
    "kaiser beta only": lambda: torch.kaiser_window(5, beta=-1.0),
    "int window": lambda: torch.hamming_window(4, dtype=torch.int64),
    "ctc reduction": lambda: F.ctc_loss(lp, tg, (10, 10), (2, 2), reduction="avg"),
    "ctc target len -1": lambda: F.ctc_loss(lp, tg, (10, 10), (2, -1)),
    "ctc input len -1": lambda: F.ctc_loss(lp, tg, (10, -1), (2, 2)),
    "ctc blank -1": lambda: F.ctc_loss(lp, tg, (10, 10), (2, 2), blank=-1),
    "ctc float lengths": lambda: F.ctc_loss(lp, tg.int(), torch.tensor([10, 10]).float(), (2, 2)),
    "pad_sequence empty": lambda: pad_sequence([]),
    "padding_side": lambda: pad_sequence([torch.ones(2), torch.ones(3)], padding_side="middle"),
    "pad_packed on a tensor": lambda: pad_packed_sequence(torch.randn(3, 4)),
    "2-d lengths": lambda: pack_padded_sequence(torch.randn(3, 4, 2), torch.tensor([[3, 2]])),
    "lstm input size": lambda: nn.LSTM(4, 3)(torch.randn(5, 2, 6)),
    "gru hidden": lambda: nn.GRU(4, 3, batch_first=True)(torch.randn(2, 5, 4), torch.randn(2, 2, 3)),
    "proj_size": lambda: nn.LSTM(4, 3, proj_size=3),
    "rnn dropout": lambda: nn.LSTM(4, 3, dropout=1.5),
    "depthwise channels": lambda: nn.Conv1d(4, 8, 3, groups=4)(torch.randn(2, 3, 10)),
    "padding string": lambda: F.conv1d(torch.randn(2, 4, 10), torch.randn(8, 4, 3), padding="full"),
    "layer norm": lambda: nn.LayerNorm(8)(torch.randn(2, 5, 4)),
    "glu dim": lambda: F.glu(torch.randn(3, 4), dim=2),
    "batch norm 4-d": lambda: nn.BatchNorm1d(4)(torch.randn(2, 4, 5, 6)),
    "heads": lambda: nn.MultiheadAttention(10, 3),
    "bilinear on 3-d": lambda: F.interpolate(torch.randn(1, 2, 5), scale_factor=2, mode="bilinear"),
    "reflect pad too big": lambda: F.pad(torch.randn(1, 2, 3), (4, 4), mode="reflect"),
    "rfft of complex": lambda: torch.fft.rfft(torch.randn(4, dtype=torch.complex64)),
}
for name, fn in cases.items():
    try:
        out = fn()
        print(name, "-> ok", type(out).__name__)
    except Exception as e:
        print(name, "->", type(e).__name__, str(e).split("\n")[0])
