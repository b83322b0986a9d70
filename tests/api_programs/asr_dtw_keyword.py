"""Query-by-example keyword spotting as speech research scripts write it: features with torch.gradient deltas
(edge_order=2 and coordinate spacing), per-utterance var_mean normalisation, cosine distance matrices from
F.normalize and cdist, full and subsequence DTW filled by anti-diagonals, a backtracked warping path, the best
match's span with its length-normalised score, and duration expansion with repeat_interleave."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def features(wave, n=64, hop=32):
    frames = wave.unfold(0, n, hop) * torch.hann_window(n)
    logspec = torch.fft.rfft(frames).abs().clamp_min(1e-5).log()
    base = logspec[:, 1:13]
    (d1,) = torch.gradient(base, dim=0, edge_order=2)
    (d2,) = torch.gradient(d1, dim=0)
    feats = torch.cat([base, d1, d2], 1)
    var, mean = torch.var_mean(feats, dim=0, keepdim=True, correction=0)
    return (feats - mean) / var.clamp_min(1e-6).sqrt()


def tone(freqs, dur=640, sr=8000):
    t = torch.arange(dur) / sr
    return torch.cat([torch.sin(2 * math.pi * f * t) for f in freqs])


keyword = tone([600, 1200, 900])
utterance = torch.cat([0.3 * torch.randn(700), tone([600, 1200, 900]) * 0.8, 0.3 * torch.randn(900)])
q, u = features(keyword + 0.05 * torch.randn(keyword.numel())), features(utterance)
print("query", tuple(q.shape), "utterance", tuple(u.shape), "normalised", q.mean(0).abs().max().item() < 1e-5)

cos = 1 - F.normalize(q, dim=1) @ F.normalize(u, dim=1).T
euc = torch.cdist(q.unsqueeze(0), u.unsqueeze(0)).squeeze(0)
print("cosine dist", tuple(cos.shape), round(cos.min().item(), 4), "euclid", round(euc.mean().item(), 4))
print("cdist p=1 vs manual", torch.allclose(torch.cdist(q, u, p=1), (q[:, None] - u[None]).abs().sum(-1), atol=1e-4))


def dtw(cost, subsequence=False):
    N, M = cost.shape
    acc = torch.full((N + 1, M + 1), float("inf"), dtype=cost.dtype)
    acc[0, 0] = 0.0
    if subsequence:
        acc[0, :] = 0.0
    for k in range(2, N + M + 1):
        i = torch.arange(max(1, k - M), min(N, k - 1) + 1)
        j = k - i
        best = torch.minimum(torch.minimum(acc[i - 1, j], acc[i, j - 1]), acc[i - 1, j - 1])
        acc[i, j] = cost[i - 1, j - 1] + best
    return acc


def backtrack(acc, end_j):
    i, j, path = acc.size(0) - 1, end_j, []
    while i > 0 and j > 0:
        path.append((i - 1, j - 1))
        steps = torch.stack([acc[i - 1, j - 1], acc[i - 1, j], acc[i, j - 1]])
        move = int(steps.argmin())
        i, j = (i - 1, j - 1) if move == 0 else (i - 1, j) if move == 1 else (i, j - 1)
        if acc[i, j] == 0 and i == 0:
            break
    return path[::-1]


acc = dtw(cos, subsequence=True)
end = int(acc[-1, 1:].argmin()) + 1
path = backtrack(acc, end)
start = path[0][1]
print("subsequence match frames", start, "->", end - 1, "score", round((acc[-1, end] / len(path)).item(), 4))
print("path length", len(path), "monotone", all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(path, path[1:])))
full = dtw(cos[:, start:end])
print("full DTW on the span", round(full[-1, -1].item(), 4), "inf corners", int(torch.isinf(full).sum()))
scores = acc[-1, 1:] / q.size(0)
top = scores.topk(3, largest=False)
print("best ends", (top.indices + 1).tolist(), top.values.round(decimals=4).tolist())

seg_labels = torch.tensor([3, 1, 4, 1])
durations = torch.tensor([2, 0, 3, 1])
frames = torch.repeat_interleave(seg_labels, durations)
print(
    "expanded", frames.tolist(), "output_size", torch.repeat_interleave(seg_labels, durations, output_size=6).tolist()
)
starts = torch.cumsum(durations, 0) - durations
print("segment starts", starts.tolist(), "frame->segment", torch.repeat_interleave(torch.arange(4), durations).tolist())
(pos,) = torch.gradient(torch.tensor([0.0, 1.0, 4.0, 9.0, 16.0]), spacing=(torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0]),))
print(
    "gradient with coordinates",
    pos.tolist(),
    torch.gradient(torch.tensor([0.0, 1.0, 4.0, 9.0]), spacing=0.5)[0].tolist(),
)
for bad in (
    lambda: torch.gradient(torch.ones(2), edge_order=2),
    lambda: torch.repeat_interleave(seg_labels, torch.tensor([1, 2])),
    lambda: torch.cdist(q, u[:, :5]),
    lambda: torch.gradient(q, spacing=[1.0, 2.0, 3.0]),
):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
