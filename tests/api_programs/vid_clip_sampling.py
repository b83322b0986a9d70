"""Video clip samplers as dataset code writes them: uniform, dense and segment-based frame indices with
linspace/arange/long casts, clamp and padding of short videos, multi-clip testing, unfold windows and gathers."""

import torch

torch.manual_seed(0)


def uniform_indices(n_frames, clip_len):
    return torch.linspace(0, n_frames - 1, clip_len).round().long()


def dense_indices(n_frames, clip_len, rate, start):
    idx = torch.arange(start, start + clip_len * rate, rate)
    return idx.clamp(max=n_frames - 1)


def loop_pad(n_frames, clip_len):
    return torch.arange(clip_len) % n_frames


def tsn_segments(n_frames, n_seg, test_mode):
    seg_len = n_frames / n_seg
    base = torch.arange(n_seg, dtype=torch.float64) * seg_len
    if test_mode:
        return (base + seg_len / 2).floor().long()
    offsets = torch.tensor([0.25, 0.75, 0.5, 0.1, 0.9, 0.0, 0.6, 0.3])[:n_seg]
    return (base + offsets * seg_len).floor().long().clamp(0, n_frames - 1)


def multi_clip_starts(n_frames, clip_span, n_clips):
    if n_frames <= clip_span:
        return torch.zeros(n_clips, dtype=torch.long)
    return torch.linspace(0, n_frames - clip_span, n_clips).long()


for n in [7, 16, 31, 300]:
    print("uniform", n, uniform_indices(n, 8).tolist())
print("dense", dense_indices(64, 8, 4, 10).tolist(), dense_indices(30, 8, 4, 10).tolist())
print("loop", loop_pad(5, 12).tolist())
for test_mode in [True, False]:
    print("tsn", test_mode, tsn_segments(100, 8, test_mode).tolist(), tsn_segments(5, 8, test_mode).tolist())
print("starts", multi_clip_starts(300, 64, 5).tolist(), multi_clip_starts(40, 64, 3).tolist())

print(
    "linspace", torch.linspace(0, 1, 5).tolist(), torch.linspace(0, 10, 1).tolist(), torch.linspace(3, -3, 4).tolist()
)
print(
    "linspace dtype",
    torch.linspace(0, 9, 4, dtype=torch.int32).tolist(),
    torch.linspace(0, 9, 4).dtype,
    torch.linspace(0, 9, 4, dtype=torch.float64).tolist(),
)
print("linspace tensor ends", torch.linspace(torch.tensor(0.0), torch.tensor(2.0), 3).tolist())
print(
    "arange",
    torch.arange(0, 1, 0.25).tolist(),
    torch.arange(10, 0, -3).tolist(),
    torch.arange(5.0).dtype,
    torch.arange(0, 5, 2.5).tolist(),
    torch.arange(1, 2.5, 0.5, dtype=torch.float64).tolist(),
)
print(
    "float idx to long",
    torch.tensor([0.4, 0.5, 1.5, 2.5, -0.5, 3.99]).long().tolist(),
    torch.tensor([0.4, 0.5, 1.5, 2.5, -0.5]).round().long().tolist(),
)
print("logspace", torch.logspace(0, 2, 3).tolist(), torch.logspace(0, 3, 4, base=2).tolist())

video = torch.arange(20 * 3, dtype=torch.float32).view(20, 3)
idx = uniform_indices(20, 6)
print("gather frames", video[idx][:, 0].tolist(), torch.index_select(video, 0, idx)[:, 0].tolist())
print("take_along", torch.take_along_dim(video, idx.view(-1, 1), dim=0)[:, 1].tolist())
windows = video[:, 0].unfold(0, 8, 4)
print("unfold", tuple(windows.shape), windows[:, 0].tolist(), windows[-1].tolist())
clips = video.unfold(0, 5, 5).permute(0, 2, 1)
print("unfold clips", tuple(clips.shape), clips[1, :, 2].tolist())
st = video.as_strided((4, 5, 3), (15, 3, 1))
print("as_strided", torch.equal(st, clips), st.is_contiguous())

g = torch.Generator().manual_seed(123)
jitter = torch.randint(0, 4, (6,), generator=g)
print("jitter range", bool(((jitter >= 0) & (jitter < 4)).all()), jitter.dtype)
perm = torch.randperm(20, generator=torch.Generator().manual_seed(0))
print("perm is perm", sorted(perm.tolist()) == list(range(20)))

boundaries = torch.tensor([0, 30, 75, 120])
frame_ids = torch.tensor([0, 29, 30, 74, 75, 119, 200])
print(
    "segment of frame",
    torch.bucketize(frame_ids, boundaries, right=True).tolist(),
    torch.searchsorted(boundaries, frame_ids, side="right").tolist(),
)
ts = torch.tensor([0.0, 0.04, 0.08, 0.12, 0.16, 0.2])
print("timestamp -> frame", torch.searchsorted(ts, torch.tensor([0.05, 0.12, 0.3])).tolist())

for bad in [
    lambda: torch.linspace(0, 1),
    lambda: torch.arange(0, 10, 0),
    lambda: torch.arange(10, 0, 1),
    lambda: video[torch.tensor([0.0, 1.0])],
    lambda: video[torch.tensor([20])],
    lambda: video[:, 0].unfold(0, 30, 1),
    lambda: video.unfold(0, 5, 0),
    lambda: torch.searchsorted(torch.tensor([3, 1, 2]), torch.tensor([2]), sorter=torch.tensor([1, 2, 5])),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
