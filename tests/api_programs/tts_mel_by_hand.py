"""Mel spectrograms computed by hand as TTS repositories do without torchaudio: librosa-style Slaney mel filterbank
built from tensors, reflect padding then stft(center=False), magnitude with an epsilon, dynamic range compression
(clamp + log) and its inverse, per-channel normalisation, and the stft options' errors and dtypes."""

import math
import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(7)
torch.set_printoptions(precision=4, sci_mode=False)
SR, N_FFT, HOP, WIN, N_MELS = 8000, 32, 8, 24, 6


def hz_to_mel(f):
    f_sp = 200.0 / 3
    mels = f / f_sp
    min_log_hz = 1000.0
    logstep = math.log(6.4) / 27.0
    return torch.where(f >= min_log_hz, min_log_hz / f_sp + torch.log(f / min_log_hz) / logstep, mels)


def mel_to_hz(m):
    f_sp = 200.0 / 3
    min_log_mel = 1000.0 / f_sp
    logstep = math.log(6.4) / 27.0
    return torch.where(m >= min_log_mel, 1000.0 * torch.exp(logstep * (m - min_log_mel)), f_sp * m)


def mel_filterbank(sr, n_fft, n_mels, fmin=0.0, fmax=None, dtype=torch.float32):
    fmax = fmax or sr / 2
    fftfreqs = torch.linspace(0, sr / 2, n_fft // 2 + 1, dtype=torch.float64)
    m = torch.linspace(
        hz_to_mel(torch.tensor(fmin, dtype=torch.float64)).item(),
        hz_to_mel(torch.tensor(fmax, dtype=torch.float64)).item(),
        n_mels + 2,
        dtype=torch.float64,
    )
    mel_f = mel_to_hz(m)
    fdiff = torch.diff(mel_f)
    ramps = mel_f.unsqueeze(1) - fftfreqs.unsqueeze(0)
    lower = -ramps[:-2] / fdiff[:-1].unsqueeze(1)
    upper = ramps[2:] / fdiff[1:].unsqueeze(1)
    weights = torch.maximum(torch.zeros(1, dtype=torch.float64), torch.minimum(lower, upper))
    enorm = 2.0 / (mel_f[2 : n_mels + 2] - mel_f[:n_mels])
    return (weights * enorm[:, None]).to(dtype)


mel_basis = mel_filterbank(SR, N_FFT, N_MELS)
print(mel_basis.shape, mel_basis.dtype, mel_basis.sum(1).round(decimals=5))
print((mel_basis > 0).sum(1), mel_basis.argmax(1))
window = torch.hann_window(WIN)
print(window.dtype, window[:4], torch.hann_window(WIN, periodic=False)[-1].item())


def mel_spectrogram(y, center=False):
    y = F.pad(y.unsqueeze(1), ((N_FFT - HOP) // 2, (N_FFT - HOP) // 2), mode="reflect").squeeze(1)
    spec = torch.stft(
        y,
        N_FFT,
        hop_length=HOP,
        win_length=WIN,
        window=window,
        center=center,
        pad_mode="reflect",
        normalized=False,
        onesided=True,
        return_complex=True,
    )
    spec = torch.sqrt(spec.real.pow(2) + spec.imag.pow(2) + 1e-9)
    spec = torch.matmul(mel_basis, spec)
    return torch.log(torch.clamp(spec, min=1e-5) * 1.0)


t = torch.arange(400) / SR
y = torch.stack([0.5 * torch.sin(2 * math.pi * 440 * t), 0.3 * torch.sin(2 * math.pi * 1500 * t)])
y[1, 200:] = 0.0
y.requires_grad_(True)
mel = mel_spectrogram(y)
print(mel.shape, mel.dtype, mel[0, :, 3].detach(), mel[1, :, -1].detach())
print("floor hits", (mel <= math.log(1e-5) + 1e-4).sum().item())
mel.mean().backward()
print(y.grad.shape, round(y.grad[0].abs().sum().item(), 4), y.grad[1, 250:].abs().max().item() == 0)
norm = (mel - mel.mean(-1, keepdim=True)) / mel.std(-1, keepdim=True)
print(norm.std(-1).round(decimals=4).detach(), norm.mean().abs().item() < 1e-5)
print(torch.exp(mel).min().item() >= 1e-5 * 0.999, torch.log10(torch.clamp(torch.tensor([0.0, 1e-3]), min=1e-5)))
print(20 * torch.log10(torch.tensor(1e-5)), torch.log1p(torch.tensor([-1.0, 0.0])))

spec = torch.stft(y.detach()[0], N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True)
print(spec.shape, spec.dtype, spec.stride(), spec.abs().max().round(decimals=3))
print(torch.stft(y.detach(), N_FFT, HOP, window=torch.hann_window(N_FFT), onesided=False, return_complex=True).shape)
s64 = torch.stft(
    y.detach().double(),
    N_FFT,
    HOP,
    window=torch.hann_window(N_FFT, dtype=torch.float64),
    normalized=True,
    return_complex=True,
)
print(s64.dtype, s64.abs()[0, :3, 2])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    try:
        torch.stft(y.detach(), N_FFT, HOP)
    except RuntimeError as e:
        print(type(e).__name__, str(e)[:120])
    print([str(x.message)[:60] for x in w])
try:
    torch.stft(y.detach(), N_FFT, HOP, window=torch.hann_window(20), return_complex=True)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.stft(y.detach(), N_FFT, 0, return_complex=True)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.stft(y.detach()[:, :20], N_FFT, HOP, center=False, return_complex=True)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.pad(torch.randn(1, 1, 5), (6, 6), mode="reflect")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.pad(torch.randn(5), (2, 2), mode="reflect")
except (RuntimeError, NotImplementedError) as e:
    print(type(e).__name__, str(e)[:100])
try:
    torch.linspace(hz_to_mel(torch.tensor([0.0])), hz_to_mel(torch.tensor([4000.0])), N_MELS + 2)
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.linspace(hz_to_mel(torch.tensor(0.0)), hz_to_mel(torch.tensor(4000.0)), 4))
