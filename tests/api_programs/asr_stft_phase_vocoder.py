"""STFT front-end options ASR feature code leaves at their defaults and the phase vocoder used for speed
perturbation: win_length shorter than n_fft (the window centred in the frame), the default hop, window=None,
normalized and two-sided spectra of real signals, batched 2-D input, power and magnitude with view_as_real,
angle/polar round trips and polar's gradient, torchaudio's phase_vocoder (phase advance, remainder wrap, cumsum),
and istft back."""

import math
import warnings

import torch

torch.manual_seed(0)
sr = 8000
t = torch.arange(4000) / sr
wave = torch.sin(2 * math.pi * 300 * t) + 0.5 * torch.sin(2 * math.pi * 1250 * t)
batch = torch.stack([wave, 0.5 * wave.roll(37), torch.randn(4000) * 0.1])

win = torch.hann_window(200)
S = torch.stft(batch, n_fft=256, hop_length=80, win_length=200, window=win, return_complex=True)
print("win<n_fft", tuple(S.shape), S.dtype, "peak bins", S[0].abs().mean(-1).topk(2).indices.sort().values.tolist())
S_def = torch.stft(wave, 256, window=torch.hann_window(256), return_complex=True)
print("default hop", tuple(S_def.shape))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    S_rect = torch.stft(wave, 128, hop_length=64, return_complex=True)
print("window=None", tuple(S_rect.shape), "warnings", len(w), round(S_rect.abs().max().item(), 4))
S_norm = torch.stft(wave, 256, 64, window=torch.hann_window(256), normalized=True, return_complex=True)
S_plain = torch.stft(wave, 256, 64, window=torch.hann_window(256), return_complex=True)
print(
    "normalized ratio",
    round((S_plain.abs().max() / S_norm.abs().max()).item(), 4),
    "sqrt(n_fft)",
    round(math.sqrt(256), 4),
)
two = torch.stft(wave, 64, 16, window=torch.hamming_window(64), onesided=False, return_complex=True)
print("two-sided", tuple(two.shape), "hermitian", torch.allclose(two[1:32], two[33:].flip(0).conj(), atol=1e-4))
const = torch.stft(wave[:300], 64, 16, window=torch.hann_window(64), pad_mode="constant", return_complex=True)
refl = torch.stft(wave[:300], 64, 16, window=torch.hann_window(64), pad_mode="reflect", return_complex=True)
print(
    "pad modes differ at the edges only",
    bool((const[:, 0] - refl[:, 0]).abs().max() > 1e-3),
    bool((const[:, 5] - refl[:, 5]).abs().max() < 1e-5),
)

power = torch.view_as_real(S).pow(2).sum(-1)
print("power == abs^2", torch.allclose(power, S.abs().pow(2), rtol=1e-4, atol=1e-4), power.dtype)
mag, phase = S.abs(), S.angle()
print(
    "polar round trip",
    torch.allclose(torch.polar(mag, phase), S, atol=1e-4),
    phase.dtype,
    bool(((phase >= -math.pi) & (phase <= math.pi)).all()),
)


def phase_vocoder(spec, rate, hop):
    freq = spec.size(-2)
    time_steps = torch.arange(0, spec.size(-1), rate, dtype=torch.float32)
    alphas = time_steps % 1.0
    phase_0 = spec[..., :1].angle()
    spec = torch.nn.functional.pad(spec, [0, 2])
    s0 = spec.index_select(-1, time_steps.long())
    s1 = spec.index_select(-1, (time_steps + 1).long())
    ang0, ang1 = s0.angle(), s1.angle()
    norm0, norm1 = s0.abs(), s1.abs()
    advance = torch.linspace(0, math.pi * hop, freq)[..., None]
    dphase = ang1 - ang0 - advance
    dphase = dphase - 2 * math.pi * torch.round(dphase / (2 * math.pi))
    acc = torch.cumsum(dphase + advance, -1)
    acc = torch.cat([phase_0, acc[..., :-1]], -1)
    mag = alphas * norm1 + (1 - alphas) * norm0
    return torch.polar(mag, acc)


for rate in (0.9, 1.1):
    st = phase_vocoder(S, rate, 80)
    y = torch.istft(st, n_fft=256, hop_length=80, win_length=200, window=win)
    print(
        "rate",
        rate,
        "frames",
        S.size(-1),
        "->",
        st.size(-1),
        "samples",
        y.shape[-1],
        "rms",
        y.pow(2).mean(-1).sqrt().round(decimals=4).tolist(),
    )
mag_leaf = torch.tensor([0.0, 1.0, 2.0, -0.5], requires_grad=True)
phase_leaf = torch.tensor([0.0, 1.0, -1.0, 0.5], requires_grad=True)
z = torch.polar(mag_leaf, phase_leaf)
(z.real + 2 * z.imag).sum().backward()
print(
    "polar grads",
    z.grad_fn.name(),
    mag_leaf.grad.round(decimals=4).tolist(),
    phase_leaf.grad.round(decimals=4).tolist(),
)
back = torch.istft(S, 256, 80, 200, win, length=4000)
print("istft round trip", tuple(back.shape), round((back - batch).abs().max().item(), 4))
print(
    "remainder wrap",
    torch.remainder(torch.tensor([-4.0, 7.0]), 2 * math.pi).round(decimals=4).tolist(),
    "fmod",
    torch.fmod(torch.tensor([-4.0, 7.0]), 2 * math.pi).round(decimals=4).tolist(),
)
for bad in (
    lambda: torch.stft(wave, 256, win_length=300, window=torch.hann_window(300), return_complex=True),
    lambda: torch.stft(wave, 256, window=torch.hann_window(200), return_complex=True),
    lambda: torch.istft(S.abs(), 256, 80, 200, win),
):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
