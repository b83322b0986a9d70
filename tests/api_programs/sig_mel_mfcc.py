"""Mel filterbanks and MFCCs written by hand (HTK and Slaney scales, DCT-II matrix, deltas), as audio repos do."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def hz_to_mel(f, htk=True):
    if htk:
        return 2595.0 * torch.log10(1.0 + f / 700.0)
    f_sp = 200.0 / 3
    mels = f / f_sp
    min_log_hz, logstep = 1000.0, math.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp
    return torch.where(f >= min_log_hz, min_log_mel + torch.log(f / min_log_hz) / logstep, mels)


def mel_to_hz(m, htk=True):
    if htk:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    f_sp = 200.0 / 3
    min_log_hz, logstep = 1000.0, math.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp
    return torch.where(m >= min_log_mel, min_log_hz * torch.exp(logstep * (m - min_log_mel)), f_sp * m)


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, htk=True, norm=None):
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_min, m_max = hz_to_mel(torch.tensor(f_min), htk), hz_to_mel(torch.tensor(f_max), htk)
    m_pts = torch.linspace(m_min.item(), m_max.item(), n_mels + 2)
    f_pts = mel_to_hz(m_pts, htk)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    fb = torch.max(torch.zeros(1), torch.min(down, up))
    if norm == "slaney":
        enorm = 2.0 / (f_pts[2 : n_mels + 2] - f_pts[:n_mels])
        fb = fb * enorm.unsqueeze(0)
    return fb


def create_dct(n_mfcc, n_mels, norm="ortho"):
    n = torch.arange(float(n_mels))
    k = torch.arange(float(n_mfcc)).unsqueeze(1)
    dct = torch.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    if norm is None:
        dct = dct * 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / float(n_mels))
    return dct.t()


print("hz->mel htk", hz_to_mel(torch.tensor([0.0, 440.0, 1000.0, 4000.0])))
print("hz->mel slaney", hz_to_mel(torch.tensor([0.0, 440.0, 1000.0, 4000.0]), htk=False))
print("roundtrip", mel_to_hz(hz_to_mel(torch.tensor([123.0, 2500.0]), False), False))

sr, n_fft, hop, n_mels = 8000, 256, 64, 20
fb = melscale_fbanks(n_fft // 2 + 1, 0.0, sr / 2, n_mels, sr)
print("fbank", fb.shape, fb.dtype, fb.sum(0)[:5], round(fb.max().item(), 4))
fb_s = melscale_fbanks(n_fft // 2 + 1, 20.0, 3800.0, n_mels, sr, htk=False, norm="slaney")
print("slaney fbank", fb_s.sum(0)[:5], (fb_s > 0).sum(0)[:8])
print("empty filters", int((fb.sum(0) == 0).sum()))

dct = create_dct(13, n_mels)
print("dct", dct.shape, dct[:3, :3])
print("dct orthonormal", torch.allclose(dct.t() @ dct, torch.eye(13), atol=1e-5))
print("dct norm=None", create_dct(4, 6, norm=None)[0])

# a few synthetic utterances: tones with harmonics and noise
t = torch.arange(sr // 2) / sr
f0s = torch.tensor([150.0, 220.0, 330.0])
wav = sum(torch.sin(2 * math.pi * k * f0s[:, None] * t) / k for k in range(1, 4))
wav = wav + 0.01 * torch.randn_like(wav)
print("wav", wav.shape, wav[:, :3])

window = torch.hann_window(n_fft)
spec = torch.stft(wav, n_fft, hop, window=window, return_complex=True).abs().pow(2.0)
print("power spec", spec.shape)
mel = torch.matmul(spec.transpose(-1, -2), fb).transpose(-1, -2)
print("mel / 1e3", mel.shape, mel[0, :4, 10] / 1000)
log_mel = torch.log(mel + 1e-6)
print("log mel mean per utt", log_mel.mean(dim=(1, 2)))
amin, top_db = 1e-10, 80.0
mel_db = 10.0 * torch.log10(torch.clamp(mel, min=amin))
mel_db = torch.max(mel_db, mel_db.amax(dim=(-2, -1), keepdim=True) - top_db)
print("mel dB", mel_db[1, :3, 5], mel_db.amin(dim=(1, 2)))

mfcc = torch.matmul(mel_db.transpose(-1, -2), dct).transpose(-1, -2)
print("mfcc", mfcc.shape, mfcc[:, :4, 20])
print("c0 vs mean log", torch.allclose(mfcc[:, 0], mel_db.sum(1) / math.sqrt(n_mels), atol=1e-3))

# cepstral mean and variance normalization
cmvn = (mfcc - mfcc.mean(-1, keepdim=True)) / (mfcc.std(-1, keepdim=True) + 1e-5)
print("cmvn", cmvn.mean(-1).abs().max().item() < 1e-4, cmvn.std(-1)[0, :3])


def compute_deltas(specgram, win_length=5):
    n = (win_length - 1) // 2
    denom = n * (n + 1) * (2 * n + 1) / 3
    shape = specgram.size()
    x = specgram.reshape(1, -1, shape[-1])
    x = F.pad(x, (n, n), mode="replicate")
    kernel = torch.arange(-n, n + 1, 1, dtype=x.dtype).repeat(x.shape[1], 1, 1)
    out = F.conv1d(x, kernel, groups=x.shape[1]) / denom
    return out.reshape(shape)


d1 = compute_deltas(mfcc)
d2 = compute_deltas(d1)
feats = torch.cat([mfcc, d1, d2], dim=1)
print("deltas", d1.shape, feats.shape, d1[0, 1, :4], d2[2, 0, 3:6])

# liftering and a frame-level classifier input
lifter = 1 + 11.0 * torch.sin(math.pi * torch.arange(13.0) / 22)
print("lifter", lifter[:4])
pooled = torch.cat([feats.mean(-1), feats.std(-1)], dim=1)
print("pooled", pooled.shape, pooled[:, :3])
sim = F.cosine_similarity(pooled[:, None], pooled[None], dim=-1)
print("utt similarity\n", sim)
