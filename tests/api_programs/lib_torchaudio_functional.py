"""torchaudio.functional pieces re-implemented: windows (hann/hamming/kaiser/torch.signal.windows), spectrogram via
torch.stft (center, pad modes, normalized, power, onesided), melscale_fbanks (htk and slaney scales and norms),
amplitude_to_DB with top_db, MFCC through create_dct, mu-law encoding/decoding, resample by windowed-sinc conv1d,
compute_deltas, fade in/out, preemphasis by lfilter-style conv, inverse STFT round trips, and the errors of misuse."""

import math

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(17)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def spectrogram(wave, n_fft, hop, win_length, window, power=2.0, normalized=False, center=True, pad_mode="reflect",
                onesided=True):
    shape = wave.shape
    wave = wave.reshape(-1, shape[-1])
    spec = torch.stft(wave, n_fft=n_fft, hop_length=hop, win_length=win_length, window=window, center=center,
                      pad_mode=pad_mode, normalized=False, onesided=onesided, return_complex=True)
    spec = spec.reshape(shape[:-1] + spec.shape[-2:])
    if normalized:
        spec = spec / window.pow(2.0).sum().sqrt()
    return spec.abs().pow(power) if power is not None else spec


def hz_to_mel(freq, mel_scale="htk"):
    if mel_scale == "htk":
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    mels = freq / f_sp
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0
    return min_log_mel + math.log(freq / min_log_hz) / logstep if freq >= min_log_hz else mels


def mel_to_hz(mels, mel_scale="htk"):
    if mel_scale == "htk":
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    freqs = f_sp * mels
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0
    log_t = mels >= min_log_mel
    freqs[log_t] = min_log_hz * torch.exp(logstep * (mels[log_t] - min_log_mel))
    return freqs


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=None, mel_scale="htk"):
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_pts = torch.linspace(hz_to_mel(f_min, mel_scale), hz_to_mel(f_max, mel_scale), n_mels + 2)
    f_pts = mel_to_hz(m_pts, mel_scale)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    fb = torch.max(torch.zeros(1), torch.min(down, up))
    if norm == "slaney":
        fb *= (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])).unsqueeze(0)
    return fb


def amplitude_to_DB(x, multiplier, amin, db_multiplier, top_db=None):
    x_db = multiplier * torch.log10(torch.clamp(x, min=amin))
    x_db -= multiplier * db_multiplier
    if top_db is not None:
        shape = x_db.size()
        packed = x_db.reshape(-1, shape[-3], shape[-2], shape[-1]) if x_db.dim() > 2 else x_db
        x_db = torch.max(packed, (packed.amax(dim=(-3, -2, -1)) - top_db).view(-1, 1, 1, 1)).reshape(shape)
    return x_db


def create_dct(n_mfcc, n_mels, norm):
    n = torch.arange(float(n_mels))
    k = torch.arange(float(n_mfcc)).unsqueeze(1)
    dct = torch.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    if norm is None:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / float(n_mels))
    return dct.t()


def mu_law_encoding(x, quantization_channels):
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        x = x.to(torch.float)
    mu = torch.tensor(mu, dtype=x.dtype)
    x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / torch.log1p(mu)
    return ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)


def mu_law_decoding(x_mu, quantization_channels):
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(torch.float)
    mu = torch.tensor(mu, dtype=x_mu.dtype)
    x = (x_mu / mu) * 2 - 1.0
    return torch.sign(x) * (torch.exp(torch.abs(x) * torch.log1p(mu)) - 1.0) / mu


def sinc_resample_kernel(orig, new, lowpass_filter_width=6, rolloff=0.99, beta=14.769656459379492):
    g = math.gcd(orig, new)
    orig, new = orig // g, new // g
    base_freq = min(orig, new) * rolloff
    width = math.ceil(lowpass_filter_width * orig / base_freq)
    idx = torch.arange(-width, width + orig, dtype=torch.float64)[None, None] / orig
    t = torch.arange(0, -new, -1, dtype=torch.float64)[:, None, None] / new + idx
    t *= base_freq
    t = t.clamp_(-lowpass_filter_width, lowpass_filter_width)
    window = torch.i0(beta * torch.sqrt(1 - (t / lowpass_filter_width) ** 2)) / torch.i0(torch.tensor(beta))
    t *= math.pi
    scale = base_freq / orig
    kernels = torch.where(t == 0, torch.tensor(1.0).to(t), t.sin() / t) * window * scale
    return kernels.to(torch.float32), width, orig, new


def resample(wave, orig, new):
    kernel, width, o, n = sinc_resample_kernel(orig, new)
    shape = wave.size()
    wave = wave.view(-1, shape[-1])
    length = wave.size(-1)
    wave = F.pad(wave, (width, width + o))
    res = F.conv1d(wave[:, None], kernel, stride=o)
    res = res.transpose(1, 2).reshape(wave.size(0), -1)
    target = torch.ceil(torch.as_tensor(n * length / o)).long()
    return res[..., :target].view(shape[:-1] + res.shape[-1:][:0] + (int(target),))


def compute_deltas(spec, win_length=5, mode="replicate"):
    shape = spec.size()
    spec = spec.reshape(1, -1, shape[-1])
    n = (win_length - 1) // 2
    denom = n * (n + 1) * (2 * n + 1) / 3
    spec = F.pad(spec, (n, n), mode=mode)
    kernel = torch.arange(-n, n + 1, 1, dtype=spec.dtype).repeat(spec.shape[1], 1, 1)
    return (F.conv1d(spec, kernel, groups=spec.shape[1]) / denom).reshape(shape)


sr = 8000
t = torch.arange(0, 0.064, 1 / sr)
wave = (0.6 * torch.sin(2 * math.pi * 440 * t) + 0.3 * torch.sin(2 * math.pi * 1250 * t)).float()
wave = torch.stack([wave, wave * 0.5 + torch.from_numpy(rng.standard_normal(t.numel()) * 0.01).float()])
print("wave", wave.shape, wave.dtype, r(wave[0, :4]))
wins = {"hann": torch.hann_window(64), "hamming": torch.hamming_window(64, periodic=False),
        "kaiser": torch.kaiser_window(64, True, 8.0), "blackman": torch.blackman_window(64),
        "gauss": torch.signal.windows.gaussian(64, std=10.0), "bartlett": torch.bartlett_window(64)}
for name, w in wins.items():
    print("window", name, r(w[:3], 3), r(w.sum()))
spec = spectrogram(wave, 128, 32, 64, wins["hann"])
print("spec", tuple(spec.shape), r(spec[0].sum(-1).argmax()), r(spec[0, :, 3].topk(2).indices))
for kw in [dict(center=False), dict(pad_mode="constant"), dict(normalized=True, power=1.0), dict(power=None)]:
    s = spectrogram(wave, 128, 32, 64, wins["hann"], **kw)
    print("spec", sorted(kw), tuple(s.shape), s.dtype, r(s.abs()[1, 14, :3]))
fb = melscale_fbanks(65, 0.0, 4000.0, 16, sr)
fbs = melscale_fbanks(65, 20.0, 4000.0, 16, sr, norm="slaney", mel_scale="slaney")
print("fbanks", tuple(fb.shape), r(fb.sum(0), 8), r(fbs.max(0).values, 8), (fb.sum(1) > 0).sum().item())
mel = torch.matmul(spec.transpose(-1, -2), fb).transpose(-1, -2)
print("mel", tuple(mel.shape), r(mel[0, :, 2]))
db = amplitude_to_DB(mel, 10.0, 1e-10, math.log10(max(1e-10, 1.0)), top_db=40.0)
print("dB", r(db[0, :, 2]), r(db.amax(dim=(-2, -1))), r(db.amin(dim=(-2, -1))))
dct = create_dct(8, 16, "ortho")
mfcc = torch.matmul(db.transpose(-1, -2), dct).transpose(-1, -2)
print("mfcc", tuple(mfcc.shape), r(mfcc[0, :, 2]), torch.allclose(dct.T @ dct, torch.eye(8), atol=1e-5))
deltas = compute_deltas(mfcc)
print("deltas", tuple(deltas.shape), r(deltas[0, 1]))
enc = mu_law_encoding(wave, 256)
dec = mu_law_decoding(enc, 256)
print("mu-law", enc.dtype, enc[0, :6].tolist(), r((dec - wave).abs().max()), enc.min().item(), enc.max().item())
down = resample(wave, sr, 6000)
up = resample(down, 6000, sr)
print("resample", tuple(down.shape), tuple(up.shape), r(down[0, 10:14]),
      r((up[:, 20:-20] - wave[:, 20:-20]).abs().max()))
fade_in = torch.linspace(0.0, 1.0, 64).pow(2)
faded = wave.clone()
faded[..., :64] *= fade_in
faded[..., -64:] *= torch.linspace(1.0, 0.0, 64)
print("fade", r(faded[0, 60:64]), r(faded[0, -3:]))
pre = torch.cat([wave[..., :1], wave[..., 1:] - 0.97 * wave[..., :-1]], -1)
pre2 = F.conv1d(F.pad(wave[:, None], (1, 0)), torch.tensor([[[-0.97, 1.0]]]))[:, 0]
print("preemphasis", torch.allclose(pre[:, 1:], pre2[:, 1:], atol=1e-6), r(pre[0, :4]))
cspec = torch.stft(wave, 128, 32, window=wins["hann"][:64].repeat(2), return_complex=True)
back = torch.istft(cspec, 128, 32, window=wins["hann"][:64].repeat(2), length=wave.shape[-1])
print("istft", cspec.dtype, tuple(cspec.shape), r((back - wave).abs().max() < 1e-5), torch.view_as_real(cspec).shape)
freqs = torch.fft.rfftfreq(128, d=1 / sr)
print("freqs", r(freqs[[0, 1, -1]]), r(freqs[spec[0].mean(-1).argmax()]))
x = wave[:1].clone().requires_grad_()
melx = torch.matmul(spectrogram(x, 128, 32, 64, wins["hann"]).transpose(-1, -2), fb)
(melx + 0.1).log().mean().backward()
print("grad", r(x.grad[0, 100:104]), bool(torch.isfinite(x.grad).all()))

for fn in [lambda: torch.stft(wave, 128, 32, return_complex=False), lambda: torch.stft(wave, 128, 32),
           lambda: torch.stft(wave, 1024, 32, window=torch.hann_window(1024), center=False, return_complex=True),
           lambda: torch.stft(wave, 128, 32, window=torch.hann_window(100), return_complex=True),
           lambda: torch.istft(spec, 128, 32), lambda: torch.kaiser_window(-1),
           lambda: torch.kaiser_window(64, beta=8.0),
           lambda: F.conv1d(wave, torch.ones(1, 1, 3)), lambda: mu_law_encoding(wave, 256).float().log2().dtype]:
    try:
        out = fn()
        print("ok", out if isinstance(out, torch.dtype) else tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:120])
