"""SlowFast (Feichtenhofer et al.): a clip sampled into slow and fast pathways with linspace/long indices and
index_select, time-strided Conv3d lateral connections fused by cat, per-pathway pooling and a dropout head."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
ALPHA, BETA = 4, 8


def pack_pathways(frames, alpha=ALPHA):
    fast = frames
    idx = torch.linspace(0, frames.shape[2] - 1, frames.shape[2] // alpha).long()
    slow = torch.index_select(frames, 2, idx)
    return [slow, fast], idx


class FuseFastToSlow(nn.Module):
    def __init__(self, c_fast, ratio=2, kt=5, alpha=ALPHA):
        super().__init__()
        self.conv = nn.Conv3d(
            c_fast, c_fast * ratio, (kt, 1, 1), stride=(alpha, 1, 1), padding=(kt // 2, 0, 0), bias=False
        )
        self.bn = nn.BatchNorm3d(c_fast * ratio, eps=1e-5, momentum=0.1)

    def forward(self, xs):
        slow, fast = xs
        lateral = F.relu(self.bn(self.conv(fast)))
        return [torch.cat([slow, lateral], 1), fast]


class Stem(nn.Module):
    def __init__(self, cin, cout, kt):
        super().__init__()
        self.conv = nn.Conv3d(cin, cout, (kt, 7, 7), stride=(1, 2, 2), padding=(kt // 2, 3, 3), bias=False)
        self.bn = nn.BatchNorm3d(cout)
        self.pool = nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))

    def forward(self, x):
        return self.pool(F.relu(self.bn(self.conv(x))))


class SlowFast(nn.Module):
    def __init__(self, n_cls=5, c=16):
        super().__init__()
        self.s_stem, self.f_stem = Stem(3, c, 1), Stem(3, c // BETA, 5)
        self.fuse = FuseFastToSlow(c // BETA)
        self.s_res = nn.Conv3d(c + 2 * c // BETA, 2 * c, (1, 3, 3), padding=(0, 1, 1))
        self.f_res = nn.Conv3d(c // BETA, 2 * c // BETA, (3, 3, 3), padding=1)
        self.pools = nn.ModuleList([nn.AdaptiveAvgPool3d(1), nn.AdaptiveAvgPool3d((1, 1, 1))])
        self.dropout = nn.Dropout(0.5)
        self.head = nn.Linear(2 * c + 2 * c // BETA, n_cls)

    def forward(self, xs):
        xs = [self.s_stem(xs[0]), self.f_stem(xs[1])]
        xs = self.fuse(xs)
        xs = [F.relu(self.s_res(xs[0])), F.relu(self.f_res(xs[1]))]
        feats = [p(x).flatten(1) for p, x in zip(self.pools, xs)]
        return self.head(self.dropout(torch.cat(feats, 1)))


video = torch.randn(2, 3, 16, 32, 32)
frames = video.permute(1, 0, 2, 3, 4)
(slow, fast), idx = pack_pathways(video.transpose(0, 1).contiguous().transpose(0, 1), ALPHA)
print("slow idx", idx.tolist(), idx.dtype, tuple(slow.shape), tuple(fast.shape))
print("slow == fast[::4]?", torch.equal(slow, fast[:, :, ::5]), torch.equal(slow[:, :, 1], fast[:, :, 5]))
print("linspace", torch.linspace(0, 15, 4).tolist(), torch.linspace(0, 15, 4).long().tolist())
print("linspace int dtype", torch.linspace(0, 15, 4, dtype=torch.int64).tolist(), torch.linspace(2, 2, 1).tolist())

model = SlowFast()
model.eval()
logits = model([slow, fast])
print("eval logits", tuple(logits.shape), logits.round(decimals=4).tolist())
model.train()
torch.manual_seed(1)
logits = model([slow, fast])
loss = F.cross_entropy(logits, torch.tensor([1, 3]))
loss.backward()
print(
    "train loss finite",
    bool(torch.isfinite(loss)),
    "grad lateral",
    tuple(model.fuse.conv.weight.grad.shape),
    round(model.fuse.conv.weight.grad.abs().sum().item(), 4),
)
print("bn running", model.fuse.bn.running_mean.round(decimals=4).tolist(), model.fuse.bn.num_batches_tracked.item())

lat = model.fuse.conv(model.f_stem(fast))
print("lateral T", lat.shape[2], "slow T", model.s_stem(slow).shape[2])
ti = torch.tensor([[0, 4, 8, 12], [3, 7, 11, 15]])
gathered = torch.stack([video[b].index_select(1, ti[b]) for b in range(2)])
print("per-clip idx", tuple(gathered.shape), torch.equal(gathered[1, :, 2], video[1, :, 11]))
g2 = torch.gather(video, 2, ti.view(2, 1, 4, 1, 1).expand(2, 3, 4, 32, 32))
print("gather == stacked", torch.equal(g2, gathered))
print(
    "index_select out", torch.index_select(torch.arange(10.0), 0, torch.tensor([9, 0, 9]), out=torch.empty(3)).tolist()
)

for bad in [
    lambda: torch.index_select(video, 2, torch.tensor([0.0, 1.0])),
    lambda: torch.index_select(video, 2, torch.tensor([16])),
    lambda: torch.index_select(video, 2, torch.tensor([[0, 1]])),
    lambda: torch.cat([slow, fast], 1),
    lambda: torch.linspace(0, 1, -1),
    lambda: model([fast, slow]),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
