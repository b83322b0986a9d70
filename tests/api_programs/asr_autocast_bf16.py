"""Mixed-precision ASR training on the CPU as recipes enable it with torch.autocast('cpu', dtype=torch.bfloat16):
spectra of bfloat16 audio through torch.fft and stft (float32 by autocast's list), a conv front end and LSTM in
bfloat16, log_softmax and CTC promoted to float32, float32 master gradients, bfloat16 feature storage with its
rounding, and what the same calls do outside a region."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
t = torch.arange(2048) / 8000
wave = (torch.sin(2 * math.pi * 440 * t) + 0.3 * torch.randn(2048)).view(2, 1024)
wave_bf = wave.bfloat16()
print("bf16 audio", wave_bf.dtype, "rounding error", round((wave_bf.float() - wave).abs().max().item(), 4))

with torch.autocast("cpu", dtype=torch.bfloat16):
    spec = torch.fft.rfft(wave_bf.view(2, 16, 64) * torch.hann_window(64))
    print(
        "rfft",
        spec.dtype,
        tuple(spec.shape),
        "enabled",
        torch.is_autocast_enabled("cpu"),
        torch.get_autocast_dtype("cpu"),
    )
    power = spec.abs().pow(2)
    print("power", power.dtype)
    st = torch.stft(wave_bf, 128, 64, window=torch.hann_window(128), return_complex=True)
    print("stft", st.dtype, tuple(st.shape))
    irf = torch.fft.irfft(spec, n=64)
    print("irfft", irf.dtype, "ihfft", torch.fft.ihfft(wave_bf[0, :8]).dtype)
ref = torch.fft.rfft(wave_bf.float().view(2, 16, 64) * torch.hann_window(64))
print("same as float32 of the rounded audio", torch.allclose(spec, ref), round(power.sum().item() / 1e4, 4))
try:
    torch.fft.rfft(wave_bf)
except Exception as e:
    print("outside a region:", type(e).__name__, e)


class Acoustic(nn.Module):
    def __init__(self, n_freq=65, vocab=6):
        super().__init__()
        self.conv = nn.Conv1d(n_freq, 32, 3, padding=1)
        self.lstm = nn.LSTM(32, 24, batch_first=True)
        self.out = nn.Linear(24, vocab)

    def forward(self, feats):
        h = F.relu(self.conv(feats)).transpose(1, 2)
        h, _ = self.lstm(h)
        return self.out(h)


model = Acoustic()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
targets = torch.tensor([[1, 2, 3], [4, 4, 5]])
with torch.autocast("cpu", dtype=torch.bfloat16):
    feats = torch.log(torch.stft(wave, 128, 64, window=torch.hann_window(128), return_complex=True).abs() + 1e-6)
    logits = model(feats)
    lp = logits.log_softmax(-1)
    loss = F.ctc_loss(lp.transpose(0, 1), targets, (17, 17), (3, 3))
    print("feats", feats.dtype, "logits", logits.dtype, "log_probs", lp.dtype, "ctc", loss.dtype)
    print("conv out", model.conv(feats).dtype, "lstm out", model.lstm(model.conv(feats).transpose(1, 2))[0].dtype)
loss.backward()
print("grads", {n: p.grad.dtype for n, p in model.named_parameters() if n.endswith("weight")})
print("finite", all(torch.isfinite(p.grad).all() for p in model.parameters()), "params", next(model.parameters()).dtype)
opt.step()

lp_bf = torch.randn(6, 2, 5).log_softmax(-1).bfloat16()
with torch.autocast("cpu", dtype=torch.bfloat16):
    l_bf = F.ctc_loss(lp_bf, torch.tensor([1, 2, 3, 3]), (6, 5), (2, 2), reduction="none")
print(
    "ctc on bf16 log-probs",
    l_bf.dtype,
    l_bf.round(decimals=4).tolist(),
    torch.allclose(l_bf, F.ctc_loss(lp_bf.float(), torch.tensor([1, 2, 3, 3]), (6, 5), (2, 2), reduction="none")),
)
try:
    F.ctc_loss(lp_bf, torch.tensor([1, 2, 3, 3]), (6, 5), (2, 2))
except Exception as e:
    print("outside a region:", type(e).__name__, e)
with torch.autocast("cpu", dtype=torch.bfloat16):
    z = torch.view_as_complex(torch.randn(4, 2).bfloat16())
    h = torch.fft.hfft(torch.randn(5).bfloat16())
print("view_as_complex", z.dtype, "hfft", h.dtype)
stored = feats.detach().float().bfloat16()
print(
    "bf16 storage",
    stored.element_size(),
    "bytes",
    stored.nbytes,
    "eps",
    torch.finfo(torch.bfloat16).eps,
    "max",
    torch.finfo(torch.bfloat16).max,
)
print("bf16 round trip of 1/3", torch.tensor(1 / 3).bfloat16().item(), torch.tensor(257.0).bfloat16().item())
with torch.autocast("cpu", enabled=False):
    print("disabled region", torch.is_autocast_enabled("cpu"), model.out(torch.randn(1, 24)).dtype)
