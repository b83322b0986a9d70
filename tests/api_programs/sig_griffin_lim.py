"""Spectrogram inversion: Griffin-Lim with momentum, phase reconstruction metrics, and a phase-vocoder time stretch."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

sr, n_fft, hop = 4000, 256, 64
t = torch.arange(2 * sr, dtype=torch.float64) / sr
env = torch.exp(-((t - 1.0) ** 2) / 0.3)
x = env * (torch.sin(2 * math.pi * 220 * t) + 0.4 * torch.sin(2 * math.pi * 660 * t + 0.3))
print("signal", x.dtype, x.shape, round(x.abs().max().item(), 4), round(x.pow(2).mean().sqrt().item(), 4))

window = torch.hann_window(n_fft, dtype=torch.float64)
X = torch.stft(x, n_fft, hop, window=window, return_complex=True)
mag = X.abs()
print("magnitude", mag.shape, mag.dtype, round(mag.sum().item() / mag.numel(), 4))
print("phase sample", X.angle()[28:31, 40])


def griffin_lim(specgram, n_iter, momentum, length, rand_init=True):
    if rand_init:
        angles = torch.rand(specgram.size(), dtype=torch.complex128)
    else:
        angles = torch.full(specgram.size(), 1, dtype=torch.complex128)
    tprev = torch.tensor(0.0, dtype=specgram.dtype)
    errs = []
    for _ in range(n_iter):
        inverse = torch.istft(specgram * angles, n_fft=n_fft, hop_length=hop, window=window, length=length)
        rebuilt = torch.stft(inverse, n_fft, hop, window=window, return_complex=True)
        angles = rebuilt
        if momentum:
            angles = angles - tprev.mul_(momentum / (1 + momentum))
        angles = angles.div(angles.abs().add(1e-16))
        tprev = rebuilt
        errs.append(((rebuilt.abs() - specgram).norm() / specgram.norm()).item())
    waveform = torch.istft(specgram * angles, n_fft=n_fft, hop_length=hop, window=window, length=length)
    return waveform, errs


print("rand complex", torch.rand(2, dtype=torch.complex128))
for momentum, rand_init in [(0.0, True), (0.99, True), (0.5, True)]:
    torch.manual_seed(1)
    y, errs = griffin_lim(mag, 24, momentum, x.shape[-1], rand_init)
    sc = [round(e, 4) for e in errs[::6]]
    print(f"momentum={momentum} rand={rand_init}", y.shape, "spectral convergence", sc, round(errs[-1], 4))
    Y = torch.stft(y, n_fft, hop, window=window, return_complex=True)
    lsd = (20 * torch.log10((Y.abs() + 1e-8) / (mag + 1e-8))).pow(2).mean(0).sqrt().mean()
    ratio = (y.pow(2).sum() / x.pow(2).sum()).item()
    print("  log-spectral distance", round(lsd.item(), 2), "energy ratio", round(ratio, 2))

# consistency: a random-phase spectrogram is not a valid STFT
torch.manual_seed(2)
noise_phase = torch.polar(mag, 2 * math.pi * torch.rand_like(mag))
proj = torch.stft(torch.istft(noise_phase, n_fft, hop, window=window, length=x.shape[-1]), n_fft, hop,
                  window=window, return_complex=True)
print("inconsistency", round(((proj - noise_phase).abs().norm() / noise_phase.abs().norm()).item(), 4))

# phase vocoder time stretch (rate 1.5)
rate = 1.5
phase_advance = torch.linspace(0, math.pi * hop, X.shape[-2], dtype=torch.float64)[..., None]
time_steps = torch.arange(0, X.size(-1), rate, dtype=torch.float64)
alphas = time_steps % 1.0
phase_0 = X[..., :1].angle()
Xp = torch.nn.functional.pad(X, [0, 2])
s0 = Xp.index_select(-1, time_steps.long())
s1 = Xp.index_select(-1, (time_steps + 1).long())
angle_0, angle_1 = s0.angle(), s1.angle()
norm_0, norm_1 = s0.abs(), s1.abs()
phase = angle_1 - angle_0 - phase_advance
phase = phase - 2 * math.pi * torch.round(phase / (2 * math.pi))
phase = phase + phase_advance
phase = torch.cat([phase_0, phase[..., :-1]], dim=-1)
phase_acc = torch.cumsum(phase, -1)
mag_interp = alphas * norm_1 + (1 - alphas) * norm_0
stretched = torch.polar(mag_interp, phase_acc)
print("stretched", stretched.shape, stretched.dtype, X.shape[-1], "->", stretched.shape[-1])
ys = torch.istft(stretched, n_fft, hop, window=window)
print("stretched audio", ys.shape, round(ys.abs().max().item(), 2))
Ys = torch.stft(ys, n_fft, hop, window=window, return_complex=True).abs().mean(-1)
peaks_in = mag.mean(-1).topk(2).indices.sort().values.tolist()
print("pitch kept: peak bins", Ys.topk(2).indices.sort().values.tolist(), peaks_in)
