"""Streaming speech models as deployment code writes them: a causal conv stack run chunk by chunk with a cached
left context equal to the full-utterance run, GRU vs GRUCell stepping, LSTM state carried across chunks, a
frame-by-frame STFT with an overlap-add synthesis buffer, and inference_mode with ring buffers via torch.roll."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class CausalStack(nn.Module):
    def __init__(self, ch=4, k=3, dilations=(1, 2, 4)):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(ch, ch, k, dilation=d) for d in dilations)
        self.ctx = [(k - 1) * d for d in dilations]

    def forward(self, x):
        for conv, c in zip(self.convs, self.ctx):
            x = torch.tanh(conv(F.pad(x, (c, 0)))) + x
        return x

    def init_cache(self, batch, ch):
        return [torch.zeros(batch, ch, c) for c in self.ctx]

    def step(self, x, cache):
        new_cache = []
        for conv, c, past in zip(self.convs, self.ctx, cache):
            full = torch.cat([past, x], dim=-1)
            new_cache.append(full[..., -c:])
            x = torch.tanh(conv(full)) + x
        return x, new_cache


stack = CausalStack()
sig = torch.randn(2, 4, 48)
with torch.no_grad():
    offline = stack(sig)
    cache = stack.init_cache(2, 4)
    outs = []
    for chunk in sig.split([5, 11, 16, 7, 9], dim=-1):
        y, cache = stack.step(chunk, cache)
        outs.append(y)
    online = torch.cat(outs, -1)
print("chunked == offline", online.shape, torch.allclose(online, offline, atol=1e-6),
      round((online - offline).abs().max().item(), 6))
print("cache shapes", [tuple(c.shape) for c in cache], "receptive field", 1 + sum(stack.ctx))
print("tail", offline[0, :, -3:])

gru = nn.GRU(3, 5, batch_first=True)
cell = nn.GRUCell(3, 5)
with torch.no_grad():
    cell.weight_ih.copy_(gru.weight_ih_l0)
    cell.weight_hh.copy_(gru.weight_hh_l0)
    cell.bias_ih.copy_(gru.bias_ih_l0)
    cell.bias_hh.copy_(gru.bias_hh_l0)
seq = torch.randn(2, 9, 3)
with torch.no_grad():
    full, h_full = gru(seq)
    h = torch.zeros(2, 5)
    steps = []
    for t in range(seq.shape[1]):
        h = cell(seq[:, t], h)
        steps.append(h)
    stepped = torch.stack(steps, 1)
print("GRUCell == GRU", torch.allclose(stepped, full, atol=1e-6), torch.allclose(h, h_full[0], atol=1e-6))
print("h", h_full[0])

lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True)
with torch.no_grad():
    ref, (hn, cn) = lstm(seq)
    state = None
    parts = []
    for chunk in seq.split(4, dim=1):
        o, state = lstm(chunk, state)
        parts.append(o)
    chunked = torch.cat(parts, 1)
print("LSTM state carried", torch.allclose(chunked, ref, atol=1e-6), torch.allclose(state[1], cn, atol=1e-6),
      tuple(state[0].shape))

N_FFT, HOP = 32, 8
win = torch.hann_window(N_FFT)
audio = torch.randn(256)
spec_ref = torch.stft(audio, N_FFT, HOP, window=win, center=False, return_complex=True)
print("reference frames", tuple(spec_ref.shape))
ring = torch.zeros(N_FFT)
frames = []
ola = torch.zeros(N_FFT)
norm = torch.zeros(N_FFT)
recon = []
wsq = win * win
with torch.inference_mode():
    for i in range(0, audio.numel(), HOP):
        ring = torch.roll(ring, -HOP)
        ring[-HOP:] = audio[i : i + HOP]
        if i + HOP < N_FFT:
            continue
        spec = torch.fft.rfft(ring * win)
        frames.append(spec)
        out = torch.fft.irfft(spec, n=N_FFT) * win
        ola = ola + out
        norm = norm + wsq
        recon.append(ola[:HOP] / norm[:HOP].clamp_min(1e-8))
        ola = torch.cat([ola[HOP:], torch.zeros(HOP)])
        norm = torch.cat([norm[HOP:], torch.zeros(HOP)])
    print("inference tensors", ring.is_inference(), torch.is_inference_mode_enabled())
stream = torch.stack(frames, 1)
print("streamed frames", tuple(stream.shape), torch.allclose(stream, spec_ref, atol=1e-4))
rec = torch.cat(recon)
start = N_FFT - HOP
steady = rec[N_FFT - HOP :]
target = audio[start : start + steady.numel()]
print("ola reconstruction", rec.numel(), round((steady - target).abs().max().item(), 4))
try:
    ring.add_(1.0).requires_grad_(True)
    print("ok")
except RuntimeError as e:
    print("RuntimeError |", str(e).split("\n")[0][:120])
print("clone out of inference", ring.clone().is_inference(), torch.Tensor(3).is_inference())
