"""Kaldi-compatible filterbank features as torchaudio.compliance.kaldi computes them, written inline: snip_edges
framing with as_strided, DC-offset removal, raw log energy with an epsilon floor, pre-emphasis with replicate
padding, the povey window (hann ** 0.85), FFT size rounded up to a power of two, triangular mel banks on Kaldi's
1127*ln(1 + f/700) scale with vtln-free edges, log10 and clamp_min floors, and CMN over utterances."""

import math

import torch
import torch.nn.functional as F

EPS = torch.finfo(torch.float).eps
torch.manual_seed(0)


def next_pow2(x):
    return 1 if x == 0 else 2 ** (x - 1).bit_length()


def frames(wave, size, shift, snip_edges=True):
    if snip_edges:
        n = 1 + (wave.numel() - size) // shift
        return wave.as_strided((n, size), (shift * wave.stride(0), wave.stride(0)))
    n = (wave.numel() + shift // 2) // shift
    pad = size // 2 - shift // 2
    left = wave[:pad].flip(0)
    right_len = (n - 1) * shift + size - wave.numel() - pad
    right = wave.flip(0)[:right_len] if right_len > 0 else wave[:0]
    padded = torch.cat([left, wave, right])
    return padded.unfold(0, size, shift)


def mel(f):
    return 1127.0 * torch.log(1.0 + f / 700.0)


def mel_banks(num_bins, padded, sr, low=20.0, high=0.0):
    high = sr / 2 + high if high <= 0 else high
    n_fft_bins = padded // 2
    fft_mel = mel(torch.arange(n_fft_bins, dtype=torch.float) * (sr / padded))
    mlow, mhigh = mel(torch.tensor(low)), mel(torch.tensor(high))
    delta = (mhigh - mlow) / (num_bins + 1)
    b = torch.arange(num_bins, dtype=torch.float).unsqueeze(1)
    left, center, right = mlow + b * delta, mlow + (b + 1) * delta, mlow + (b + 2) * delta
    up = (fft_mel - left) / (center - left)
    down = (right - fft_mel) / (right - center)
    banks = torch.max(torch.zeros(1), torch.min(up, down))
    return F.pad(banks, (0, 1), mode="constant", value=0.0)


def fbank(
    wave,
    sr=16000,
    num_mel_bins=23,
    frame_ms=25.0,
    shift_ms=10.0,
    preemph=0.97,
    snip_edges=True,
    use_energy=True,
    use_log_fbank=True,
    use_power=True,
):
    size, shift = int(sr * frame_ms / 1000), int(sr * shift_ms / 1000)
    padded = next_pow2(size)
    x = frames(wave, size, shift, snip_edges)
    x = x - x.mean(dim=1, keepdim=True)
    log_energy = torch.max(x.pow(2).sum(1), torch.tensor(EPS)).log()
    prev = F.pad(x.unsqueeze(0), (1, 0), mode="replicate").squeeze(0)
    x = x - preemph * prev[:, :-1]
    win = torch.hann_window(size, periodic=False, dtype=torch.float64).pow(0.85).float()
    x = F.pad(x * win, (0, padded - size), value=0.0)
    spec = torch.fft.rfft(x).abs()
    if use_power:
        spec = spec.pow(2.0)
    feats = spec @ mel_banks(num_mel_bins, padded, sr).T
    if use_log_fbank:
        feats = torch.max(feats, torch.tensor(EPS)).log()
    if use_energy:
        feats = torch.cat([log_energy.unsqueeze(1), feats], dim=1)
    return feats


t = torch.arange(8000) / 16000
wave = 0.5 * torch.sin(2 * math.pi * 440 * t) + 0.1 * torch.sin(2 * math.pi * 3000 * t) + 0.01 * torch.randn(8000)
wave = (wave * 32768).round()
print("eps", EPS, "next_pow2", [next_pow2(v) for v in (0, 1, 400, 512, 513)])
banks = mel_banks(23, 512, 16000)
print(
    "banks", tuple(banks.shape), "row sums", banks.sum(1)[:5].round(decimals=4).tolist(), "nnz", int((banks > 0).sum())
)
print("mel(700)", round(mel(torch.tensor(700.0)).item(), 4), "mel(8000)", round(mel(torch.tensor(8000.0)).item(), 4))
for snip in (True, False):
    fr = frames(wave, 400, 160, snip)
    print("snip_edges", snip, "frames", tuple(fr.shape), "contiguous", fr.is_contiguous(), "first", fr[0, :3].tolist())
feats = fbank(wave)
print("fbank", tuple(feats.shape), feats.dtype, "energy", feats[:3, 0].round(decimals=4).tolist())
print("bins frame0", feats[0, 1:7].round(decimals=4).tolist())
print("argmax bin", feats[:, 1:].mean(0).argmax().item(), "mean", round(feats.mean().item(), 4))
lin = fbank(wave, use_log_fbank=False, use_energy=False, use_power=False)
print("magnitude fbank", tuple(lin.shape), round(lin.sum().log10().item(), 4))
db = 10.0 * torch.log10(lin.pow(2).clamp_min(1e-10))
db = torch.maximum(db, db.amax() - 80.0)
print("dB range", round(db.amax().item(), 4), round(db.amin().item(), 4))
cmn = feats - feats.mean(0, keepdim=True)
cmvn = cmn / feats.std(0, keepdim=True, unbiased=False).clamp_min(1e-5)
print(
    "cmn col mean max",
    bool(cmn.mean(0).abs().max() < 1e-3),
    "cmvn var",
    cmvn.var(0, correction=0)[:3].round(decimals=4).tolist(),
)
silence = torch.zeros(1200)
sf = fbank(silence)
print("silence", tuple(sf.shape), "all log eps", bool(torch.allclose(sf, torch.full_like(sf, math.log(EPS)))))
win = torch.hann_window(400, periodic=False).pow(0.85)
print("povey", win[:3].round(decimals=6).tolist(), round(win.sum().item(), 4), win.max().item())
try:
    frames(torch.randn(100), 400, 160)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.pad(torch.randn(5, 4), (1, 0), mode="replicate")
    print("2-d replicate ok")
except Exception as e:
    print(type(e).__name__, e)
