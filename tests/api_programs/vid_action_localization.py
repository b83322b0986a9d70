"""Temporal action localisation (BMN / ActionFormer style): a 1-D feature pyramid over snippet features with
Conv1d and linear interpolation, temporal RoIAlign through grid_sample on a unit-height map, segment IoU with
soft-NMS, boundary matching by index arithmetic and the temporal-resampling errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

T, C = 16, 8
feats = torch.randn(2, C, T)
resized = F.interpolate(feats, size=12, mode="linear", align_corners=False)
print("linear resize", tuple(resized.shape), resized[0, 0, :5].round(decimals=4).tolist())
print(
    "linear ac",
    F.interpolate(feats, scale_factor=0.5, mode="linear", align_corners=True)[1, 1].round(decimals=4).tolist(),
)
print(
    "nearest 1d",
    F.interpolate(torch.arange(5.0).view(1, 1, 5), size=8, mode="nearest").view(-1).tolist(),
    F.interpolate(torch.arange(5.0).view(1, 1, 5), size=8, mode="nearest-exact").view(-1).tolist(),
)
print(
    "area 1d", F.interpolate(torch.arange(10.0).view(1, 1, 10), size=4, mode="area").view(-1).round(decimals=4).tolist()
)


class Pyramid(nn.Module):
    def __init__(self, c, levels=3):
        super().__init__()
        self.down = nn.ModuleList([nn.Conv1d(c, c, 3, stride=2, padding=1) for _ in range(levels - 1)])
        self.cls = nn.Conv1d(c, 3, 3, padding=1)
        self.reg = nn.Conv1d(c, 2, 3, padding=1, padding_mode="replicate")

    def forward(self, x):
        outs = [x]
        for d in self.down:
            outs.append(F.relu(d(outs[-1])))
        return [(self.cls(o), F.relu(self.reg(o))) for o in outs]


pyr = Pyramid(C)
for lvl, (cls, reg) in enumerate(pyr(feats)):
    print("level", lvl, tuple(cls.shape), round(cls.mean().item(), 4), round(reg.mean().item(), 4))


def temporal_roi_align(x, segments, out_len=4, align_corners=False):
    n = segments.shape[0]
    steps = (torch.arange(out_len, dtype=x.dtype) + 0.5) / out_len
    centres = segments[:, :1] + steps * (segments[:, 1:] - segments[:, :1])
    gx = centres / x.shape[-1] * 2 - 1 if not align_corners else centres / (x.shape[-1] - 1) * 2 - 1
    grid = torch.stack([gx, torch.zeros_like(gx)], -1).view(n, 1, out_len, 2)
    return F.grid_sample(x.unsqueeze(2).expand(n, -1, -1, -1), grid, align_corners=align_corners).squeeze(2)


segs = torch.tensor([[0.0, 4.0], [3.5, 11.0], [10.0, 16.0]])
roi = temporal_roi_align(feats[:1].expand(3, -1, -1), segs)
print("roi align", tuple(roi.shape), roi[1, 0].round(decimals=4).tolist())
print(
    "roi align ac",
    temporal_roi_align(feats[:1].expand(3, -1, -1), segs, align_corners=True)[2, 1].round(decimals=4).tolist(),
)


def seg_iou(a, b):
    inter = (torch.min(a[:, None, 1], b[None, :, 1]) - torch.max(a[:, None, 0], b[None, :, 0])).clamp(min=0)
    union = (a[:, 1] - a[:, 0])[:, None] + (b[:, 1] - b[:, 0])[None, :] - inter
    return inter / union


def soft_nms(segs, scores, sigma=0.5, thresh=0.001):
    segs, scores = segs.clone(), scores.clone()
    keep_s, keep_p = [], []
    while scores.numel() and scores.max() > thresh:
        i = int(scores.argmax())
        keep_s.append(segs[i])
        keep_p.append(scores[i].item())
        iou = seg_iou(segs[i : i + 1], segs)[0]
        scores = scores * torch.exp(-(iou**2) / sigma)
        scores[i] = 0
    return torch.stack(keep_s), keep_p


props = torch.tensor([[0.0, 5.0], [1.0, 6.0], [4.0, 9.0], [8.0, 15.0], [9.0, 14.0]])
sc = torch.tensor([0.9, 0.8, 0.3, 0.7, 0.65])
print("iou", seg_iou(props, props).round(decimals=4)[0].tolist())
kept, kp = soft_nms(props, sc)
print("soft-nms", kept[:3].tolist(), [round(p, 4) for p in kp])

bm = torch.arange(T * T, dtype=torch.float32).view(T, T)
starts, durs = torch.meshgrid(torch.arange(T), torch.arange(1, T + 1), indexing="ij")
ends = starts + durs
valid = ends <= T
print("bm valid", int(valid.sum()), bm[valid][:5].tolist(), torch.triu(torch.ones(4, 4), diagonal=1).sum().item())
flat = torch.nonzero(valid)[:4]
print("nonzero", flat.tolist(), torch.argwhere(valid.flip(0))[:2].tolist())

for bad in [
    lambda: F.interpolate(feats, size=(4, 4), mode="linear"),
    lambda: F.interpolate(feats, size=4, mode="bilinear"),
    lambda: F.interpolate(feats[0], size=4, mode="linear"),
    lambda: F.conv1d(feats, torch.ones(3, 4, 3)),
    lambda: nn.Conv1d(C, 3, 3, padding=20, padding_mode="reflect")(feats),
]:
    try:
        print("ok", tuple(bad().shape))
    except Exception as e:
        print(type(e).__name__, e)
