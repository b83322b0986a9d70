"""Temporal Segment Networks (Wang et al.): per-segment 2-D features pooled by a consensus (mean, amax, top-k,
attention, logsumexp) over the segment dim, clip-level and video-level evaluation with multi-crop averaging."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class SegmentConsensus(nn.Module):
    def __init__(self, kind="avg", dim=1):
        super().__init__()
        self.kind, self.dim = kind, dim

    def forward(self, x):
        if self.kind == "avg":
            return x.mean(dim=self.dim, keepdim=True)
        if self.kind == "max":
            return x.amax(dim=self.dim, keepdim=True)
        if self.kind == "topk":
            return x.topk(2, dim=self.dim).values.mean(self.dim, keepdim=True)
        if self.kind == "lse":
            return torch.logsumexp(x, dim=self.dim, keepdim=True)
        if self.kind == "identity":
            return x
        raise ValueError(f"Unknown consensus type {self.kind}")


class TSN(nn.Module):
    def __init__(self, n_cls=4, n_seg=3, consensus="avg"):
        super().__init__()
        self.n_seg = n_seg
        self.base = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1),
            nn.GroupNorm(2, 8),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.fc = nn.Linear(8, n_cls)
        self.consensus = SegmentConsensus(consensus)

    def forward(self, x):
        b = x.shape[0]
        x = x.view((-1, 3) + x.shape[-2:])
        logits = self.fc(self.base(x)).view((b, self.n_seg) + (-1,))
        return self.consensus(logits).squeeze(1)


clips = torch.randn(2, 3 * 3, 8, 8)
for kind in ["avg", "max", "topk", "lse", "identity"]:
    torch.manual_seed(1)
    m = TSN(consensus=kind)
    y = m(clips)
    print(kind, tuple(y.shape), y.round(decimals=4).tolist()[0])

m = TSN(consensus="max")
y = m(clips)
y.sum().backward()
print("amax grad", type(y.grad_fn).__name__, round(m.fc.weight.grad.abs().sum().item(), 4))
ties = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
ties.amax(1).sum().backward()
print("amax ties", ties.grad.tolist())
ties.grad = None
ties.max(1).values.sum().backward()
print("max ties", ties.grad.tolist())
ties.grad = None
ties.amin(dim=(0, 1)).backward()
print("amin all", ties.grad.tolist())

scores = torch.tensor(
    [[[0.1, 2.0, -1.0], [0.3, 1.5, 0.2]], [[1.0, 0.0, 0.5], [2.0, -0.5, 0.1]], [[0.0, 0.0, 3.0], [0.2, 0.1, 0.4]]]
)
print("amax multi", scores.amax(dim=(0, 2)).tolist(), scores.amax(dim=-1, keepdim=True).shape)
print("aminmax", [t.tolist() for t in torch.aminmax(scores, dim=1)])
print("max with idx", [t.tolist() for t in scores.max(dim=1)])
print(
    "mean multi", scores.mean(dim=(0, 1)).round(decimals=4).tolist(), scores.nanmean(dim=-1).round(decimals=4).tolist()
)
print("softmax then mean", F.softmax(scores, -1).mean(1).round(decimals=4).tolist())
crops = scores.unsqueeze(1).expand(3, 5, 2, 3)
print("10-crop avg", crops.mean(1).argmax(-1).tolist(), crops.reshape(-1, 3).shape)

w = torch.tensor([[0.2, 0.3, 0.5]])
att = F.softmax(torch.tensor([[0.5, 1.0, -0.5]]), dim=-1)
feats = torch.arange(12.0).view(1, 3, 4)
print(
    "weighted",
    (att.unsqueeze(-1) * feats).sum(1).round(decimals=4).tolist(),
    torch.einsum("bt,btc->bc", w, feats).tolist(),
)

labels = torch.tensor([1, 0, 2])
video_scores = scores.mean(1)
top1 = (video_scores.argmax(1) == labels).float().mean().item()
top2 = (video_scores.topk(2, 1).indices == labels[:, None]).any(1).float().mean().item()
print("top1", round(top1, 4), "top2", round(top2, 4))
print("per-class", torch.bincount(labels[video_scores.argmax(1) == labels], minlength=3).tolist())

for bad in [
    lambda: scores.amax(dim=(1, 1)),
    lambda: torch.zeros(2, 0).amax(1),
    lambda: scores.amax(dim=3),
    lambda: scores.long().mean(1),
    lambda: SegmentConsensus("median")(scores),
    lambda: torch.logsumexp(scores.long(), 1),
    lambda: scores.topk(4, dim=-1),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
