"""A speech front end built by hand, the way ASR recipes write it without torchaudio: pre-emphasis, framing with
Tensor.unfold, a Hamming-windowed power spectrum via torch.fft.rfft, HTK and Slaney mel filterbanks from
linspace, log-mel with a dB floor, MFCCs through an orthonormal DCT-II matrix, deltas by conv1d, and CMVN."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
SR, N_FFT, WIN, HOP, N_MELS, N_MFCC = 16000, 512, 400, 160, 40, 13


def hz_to_mel(f, htk=True):
    if htk:
        return 2595.0 * torch.log10(1.0 + f / 700.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    mels = f / f_sp
    logstep = math.log(6.4) / 27.0
    return torch.where(f >= min_log_hz, min_log_hz / f_sp + torch.log(f / min_log_hz) / logstep, mels)


def mel_to_hz(m, htk=True):
    if htk:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = math.log(6.4) / 27.0
    return torch.where(m >= min_log_mel, min_log_hz * torch.exp(logstep * (m - min_log_mel)), f_sp * m)


def mel_fbank(n_freqs, f_min, f_max, n_mels, sr, htk=True, norm=None):
    all_freqs = torch.linspace(0, sr // 2, n_freqs)
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


def dct_matrix(n_mfcc, n_mels):
    n = torch.arange(float(n_mels))
    k = torch.arange(float(n_mfcc)).unsqueeze(1)
    dct = torch.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    dct[0] *= 1.0 / math.sqrt(2.0)
    dct *= math.sqrt(2.0 / float(n_mels))
    return dct.t()


t = torch.arange(SR // 4, dtype=torch.float32) / SR
f0 = 120.0 + 80.0 * t / t[-1]
phase = 2 * math.pi * torch.cumsum(f0, 0) / SR
wave = sum(torch.sin(h * phase) / h for h in range(1, 6)) * torch.hann_window(t.numel(), periodic=False)
wave = wave + 0.003 * torch.randn_like(wave)
print("wave", wave.shape, round(wave.std().item(), 4), round(phase[-1].item(), 3))

emph = torch.cat([wave[:1], wave[1:] - 0.97 * wave[:-1]])
print("pre-emphasis", [round(v, 4) for v in emph[1000:1004].tolist()], round(emph.pow(2).mean().item(), 4))
emph_conv = F.conv1d(wave.view(1, 1, -1), torch.tensor([[[-0.97, 1.0]]]), padding=(1,))[0, 0, : wave.numel()]
emph_conv[0] = wave[0]
print("conv1d pre-emphasis matches", torch.allclose(emph, emph_conv, atol=1e-6))

frames = emph.unfold(0, WIN, HOP)
print("frames", tuple(frames.shape), frames.stride(), frames.is_contiguous())
frames = frames - frames.mean(dim=1, keepdim=True)
log_energy = torch.log(frames.pow(2).sum(1).clamp_min(1e-10))
print("log energy", log_energy[:5])
window = torch.hamming_window(WIN, periodic=False)
spec = torch.fft.rfft(frames * window, n=N_FFT)
power = spec.abs().pow(2) / N_FFT
print("power", tuple(power.shape), power.dtype, round(power.sum().item(), 3), power.argmax(dim=1)[:8].tolist())

for htk, norm in [(True, None), (False, "slaney")]:
    fb = mel_fbank(N_FFT // 2 + 1, 20.0, SR / 2, N_MELS, SR, htk=htk, norm=norm)
    print("fbank htk" if htk else "fbank slaney", tuple(fb.shape), round(fb.sum().item(), 4),
          fb.argmax(dim=0)[:6].tolist(), (fb > 0).sum(0)[-4:].tolist())

fb = mel_fbank(N_FFT // 2 + 1, 20.0, SR / 2, N_MELS, SR)
mel = power @ fb
logmel = torch.log(mel + 1e-6)
print("logmel", tuple(logmel.shape), round(logmel.mean().item(), 4), round(logmel.std().item(), 4))
db = 10.0 * torch.log10(torch.clamp(mel, min=1e-10))
db = torch.max(db, db.max() - 80.0)
print("dB range", round(db.min().item(), 3), round(db.max().item(), 3))

dct = dct_matrix(N_MFCC, N_MELS)
print("dct orthonormal", torch.allclose(dct.t() @ dct, torch.eye(N_MFCC), atol=1e-5))
mfcc = logmel @ dct
print("mfcc", tuple(mfcc.shape))
print(mfcc[:3, :6])
lifter = 1 + 11.0 * torch.sin(math.pi * torch.arange(N_MFCC) / 22.0)
mfcc_l = mfcc * lifter
print("liftered c1..c3", [round(v, 4) for v in mfcc_l[5, 1:4].tolist()])


def deltas(feat, n=2):
    x = feat.t().unsqueeze(0)
    x = F.pad(x, (n, n), mode="replicate")
    kernel = torch.arange(-n, n + 1, dtype=feat.dtype).view(1, 1, -1).repeat(feat.shape[1], 1, 1)
    denom = 2 * sum(i * i for i in range(1, n + 1))
    return (F.conv1d(x, kernel, groups=feat.shape[1]) / denom)[0].t()


d1 = deltas(mfcc)
d2 = deltas(d1)
feats = torch.cat([mfcc, d1, d2], dim=1)
print("deltas", tuple(feats.shape), round(d1.abs().mean().item(), 4), round(d2.abs().mean().item(), 4))
cmvn = (feats - feats.mean(0)) / feats.std(0, unbiased=False).clamp_min(1e-5)
print("cmvn mean/std", round(cmvn.mean(0).abs().max().item(), 4), round(cmvn.std(0, unbiased=False).mean().item(), 4))

cs = torch.cumsum(F.pad(feats, (0, 0, 1, 0)), dim=0)
win_mean = (cs[5:] - cs[:-5]) / 5
ref = feats.unfold(0, 5, 1).mean(-1)
print("sliding mean via cumsum", tuple(win_mean.shape), torch.allclose(win_mean, ref, atol=1e-4))

batch = torch.stack([wave, wave.roll(800), 0.5 * wave])
spec_b = torch.stft(batch, N_FFT, hop_length=HOP, win_length=WIN, window=torch.hann_window(WIN), return_complex=True)
mel_b = torch.matmul(fb.t(), spec_b.abs().pow(2))
print("batched mel", tuple(mel_b.shape), [round(v, 4) for v in mel_b.log1p().mean((1, 2)).tolist()])
ratio = mel_b[2] / mel_b[0].clamp_min(1e-12)
print("0.5 gain -> power ratio", round(ratio[mel_b[0] > 1e-3].median().item(), 4))
