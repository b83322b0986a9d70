"""speech recognition toy: STFT/ISTFT features, a hand-built mel filterbank, log-mel with SpecAugment-style
masking, and a Conv1d + GRU acoustic model trained with CTCLoss and greedy CTC decoding."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
rng = np.random.default_rng(7)
SR, N_FFT, HOP, N_MELS = 8000, 128, 32, 16


def r(x, k=6):
    x = x.detach()
    if x.is_complex():
        x = torch.view_as_real(x)
    return np.round(x.double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.2):
    with torch.no_grad():
        for name, p in m.named_parameters():
            if "bias" in name:
                p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32)) * 0.05)
            elif p.dim() > 1:
                p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32)) * scale)
    return m


def chirp(n, f0, f1):
    t = torch.arange(n, dtype=torch.float32) / SR
    return torch.sin(2 * math.pi * (f0 + (f1 - f0) * t / (2 * t[-1])) * t)


wave = chirp(1024, 200.0, 1800.0) + 0.05 * torch.from_numpy(rng.standard_normal(1024).astype(np.float32))
for wname in ["hann_window", "hamming_window"]:
    win = getattr(torch, wname)(N_FFT)
    spec = torch.stft(wave, N_FFT, hop_length=HOP, window=win, return_complex=True)
    print(wname, spec.shape, spec.dtype, r(spec.abs()[10:12, :3].T))
    back = torch.istft(spec, N_FFT, hop_length=HOP, window=win, length=wave.numel())
    print(" istft err", round((back - wave).abs().max().item(), 4), back.shape)
spec_nc = torch.stft(wave, N_FFT, hop_length=HOP, window=torch.hann_window(N_FFT), center=False, return_complex=True)
print("center=False", spec_nc.shape, r(spec_nc.angle()[5, :4]))
spec_on = torch.stft(
    wave, N_FFT, hop_length=HOP, window=torch.hann_window(N_FFT), normalized=True, onesided=False, return_complex=True
)
print("twosided normalized", spec_on.shape, r(spec_on.abs()[N_FFT - 3 :, 2]))
batch = torch.stack([wave, wave.flip(0)])
bspec = torch.stft(batch, N_FFT, hop_length=HOP, win_length=96, window=torch.hann_window(96), return_complex=True)
print("batched", bspec.shape, r(bspec.abs()[1, 20, :3]))


def hz_to_mel(f):
    return 2595.0 * torch.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def mel_filterbank(n_freqs, n_mels, sr):
    freqs = torch.linspace(0, sr / 2, n_freqs)
    m_pts = torch.linspace(hz_to_mel(torch.tensor(0.0)).item(), hz_to_mel(torch.tensor(sr / 2)).item(), n_mels + 2)
    f_pts = mel_to_hz(m_pts)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - freqs.unsqueeze(1)
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    fb = torch.clamp(torch.min(down, up), min=0.0)
    enorm = 2.0 / (f_pts[2 : n_mels + 2] - f_pts[:n_mels])
    return fb * enorm.unsqueeze(0)


fb = mel_filterbank(N_FFT // 2 + 1, N_MELS, SR)
print("filterbank", fb.shape, r(fb.sum(0), 8), int((fb > 0).sum()))


def log_mel(x):
    s = torch.stft(x, N_FFT, hop_length=HOP, window=torch.hann_window(N_FFT), return_complex=True)
    power = s.abs().pow(2)
    mel = torch.matmul(power.transpose(-1, -2), fb).transpose(-1, -2)
    return torch.log(mel.clamp(min=1e-10))


feats = log_mel(batch)
print("log-mel", feats.shape, r(feats[0, :, 7]), r(feats.mean(dim=(1, 2))))
mu, sd = feats.mean(-1, keepdim=True), feats.std(-1, keepdim=True)
norm = (feats - mu) / (sd + 1e-5)
print("cmvn", r(norm.mean(-1)[0, :4]), r(norm.std(-1)[1, :4]))
masked = norm.clone()
masked[:, 3:6, :] = 0.0
masked[..., 10:14] = masked.mean()
print("specaug", r(masked[0, 2:7, 10]), round(masked.abs().sum().item(), 3))
delta = F.conv1d(
    F.pad(norm.reshape(-1, 1, norm.shape[-1]), (2, 2), mode="replicate"),
    torch.tensor([[[-2.0, -1.0, 0.0, 1.0, 2.0]]]) / 10.0,
).reshape(norm.shape)
print("deltas", delta.shape, r(delta[1, 0, :5]))

# toy corpus: each "word" is a tone sequence; labels are tone ids (1..4), 0 is the CTC blank
TONES = [0.0, 440.0, 880.0, 1320.0, 1760.0]


def utterance(labels, seg=192):
    t = torch.arange(seg, dtype=torch.float32) / SR
    parts = [torch.sin(2 * math.pi * TONES[k] * t) * torch.hann_window(seg, periodic=False) for k in labels]
    return torch.cat(parts)


label_seqs = [[1, 2, 3], [4, 1], [2, 2, 4], [3, 4, 1, 2], [1, 3], [4, 3, 2]]
waves = [utterance(s) for s in label_seqs]
lens = torch.tensor([w.numel() for w in waves])
padded = nn.utils.rnn.pad_sequence(waves, batch_first=True)
print("padded", padded.shape, lens.tolist())
X = log_mel(padded)
X = (X - X.mean()) / X.std()
frames = lens // HOP + 1
print("frames", frames.tolist(), X.shape)
targets = torch.cat([torch.tensor(s) for s in label_seqs])
target_lens = torch.tensor([len(s) for s in label_seqs])


class AcousticModel(nn.Module):
    def __init__(self, n_in, hidden, n_out):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(n_in, hidden, 5, padding=2, bias=False), nn.BatchNorm1d(hidden), nn.GELU())
        self.gru = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_out)

    def forward(self, x, lengths):
        h = self.conv(x).transpose(1, 2)
        packed = nn.utils.rnn.pack_padded_sequence(h, lengths, batch_first=True, enforce_sorted=False)
        y, _ = self.gru(packed)
        y, out_lens = nn.utils.rnn.pad_packed_sequence(y, batch_first=True, total_length=x.shape[-1])
        return self.out(y).log_softmax(-1), out_lens


model = det(AcousticModel(N_MELS, 24, 5))
print(model)
print("params", sum(p.numel() for p in model.parameters()))
ctc = nn.CTCLoss(blank=0, zero_infinity=True)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(30):
    logp, out_lens = model(X, frames)
    loss = ctc(logp.transpose(0, 1), targets, out_lens, target_lens)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d} loss {loss.item():.4f} gnorm {gn.item():.4f}")
model.eval()
with torch.no_grad():
    logp, out_lens = model(X, frames)
print("out_lens", out_lens.tolist(), logp.shape, logp.dtype)


def greedy_decode(lp, n):
    best = lp[:n].argmax(-1)
    collapsed = torch.unique_consecutive(best)
    return collapsed[collapsed != 0].tolist()


hyps = [greedy_decode(logp[i], int(out_lens[i])) for i in range(len(label_seqs))]
for ref, hyp in zip(label_seqs, hyps):
    print("ref", ref, "hyp", hyp)
per_sample = F.ctc_loss(logp.transpose(0, 1), targets, out_lens, target_lens, reduction="none")
print("per-sample ctc", r(per_sample))
print("sum ctc", round(F.ctc_loss(logp.transpose(0, 1), targets, out_lens, target_lens, reduction="sum").item(), 3))
padded_t = nn.utils.rnn.pad_sequence([torch.tensor(s) for s in label_seqs], batch_first=True)
print("padded targets", round(F.ctc_loss(logp.transpose(0, 1), padded_t, out_lens, target_lens).item(), 4))
try:
    F.ctc_loss(logp.transpose(0, 1), targets, out_lens[:3], target_lens)
except RuntimeError as e:
    print("RuntimeError", str(e).split("\n")[0][:80])
