"""Vision building blocks from research repositories: padding modes, pooling variants (ceil_mode, count_include_pad,
return_indices + max_unpool2d, lp_pool), DropPath, squeeze-excitation, weight/spectral norm, InstanceNorm and
LocalResponseNorm, Lazy modules, ROI pooling by slicing, sliding windows with Tensor.unfold, benchmark.Timer."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


x = T(2, 3, 7, 7)
for mode in ("constant", "reflect", "replicate", "circular"):
    p = F.pad(x, (1, 2, 2, 1), mode=mode) if mode != "constant" else F.pad(x, (1, 2, 2, 1), value=-1.0)
    print("pad", mode, tuple(p.shape), r(p[0, 0, 0]))
print(nn.ReflectionPad2d(2), nn.ReplicationPad2d((1, 0, 1, 0)), nn.ZeroPad2d(1), nn.ConstantPad2d(1, 0.5))
print("padmods", tuple(nn.ReflectionPad2d(2)(x).shape), tuple(nn.CircularPad2d(1)(x).shape))
print("avg ceil", r(F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)[0, 0, 0]))
print("avg incl", r(F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)[0, 0, -1]))
print("avg divisor", r(F.avg_pool2d(x, 2, divisor_override=3)[0, 0, 0]))
mp, idx = F.max_pool2d(x, 2, stride=2, return_indices=True)
print("maxpool", tuple(mp.shape), idx[0, 0, 0].tolist(), idx.dtype)
un = F.max_unpool2d(mp, idx, 2, stride=2, output_size=x.shape[-2:])
print("unpool", tuple(un.shape), int((un != 0).sum()), r(un[0, 0, 1]))
pool = nn.MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True)
print(pool, tuple(pool(x).shape))
print("lp", r(F.lp_pool2d(x.abs(), 2, 3, stride=2)[0, 0, 0]), nn.LPPool2d(2, 3, stride=2))
print("frac", tuple(F.adaptive_max_pool2d(x, (3, 2), return_indices=True)[1].shape))


class DropPath(nn.Module):
    def __init__(self, p=0.0):
        super().__init__()
        self.p = p

    def forward(self, x):
        if self.p == 0.0 or not self.training:
            return x
        keep = 1 - self.p
        mask = x.new_empty((x.shape[0],) + (1,) * (x.ndim - 1)).bernoulli_(keep)
        if keep > 0.0:
            mask.div_(keep)
        return x * mask

    def extra_repr(self):
        return f"drop_prob={round(self.p, 3):0.3f}"


class SE(nn.Module):
    def __init__(self, c, rd=4):
        super().__init__()
        self.fc1 = nn.Conv2d(c, rd, 1)
        self.fc2 = nn.Conv2d(rd, c, 1)
        self.gate = nn.Hardsigmoid()

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        return x * self.gate(self.fc2(F.relu(self.fc1(s))))


dp = DropPath(0.25)
print(dp, dp.eval()(x) is x)
dp.train()
y = dp(x)
print("droppath", tuple(y.shape), all(bool((y[i] == 0).all() or torch.allclose(y[i], x[i] / 0.75)) for i in range(2)))
se = SE(3)
with torch.no_grad():
    for p in se.parameters():
        p.copy_(T(*p.shape) * 0.5)
print(se, r(se(x)[0, :, 0, 0]))
print("hardswish", r(F.hardswish(x)[0, 0, 0]), r(F.hardsigmoid(x)[0, 0, 0]), r(F.mish(x)[0, 0, 0]))
print("relu6", r(F.relu6(x * 4)[0, 0, 0]), nn.Hardswish(), nn.ReLU6(inplace=True))

wn = nn.utils.parametrizations.weight_norm(nn.Conv2d(3, 4, 3), name="weight", dim=0)
print("weight_norm", [n for n, _ in wn.named_parameters()])
print("g", tuple(wn.parametrizations.weight.original0.shape), tuple(wn.parametrizations.weight.original1.shape))
sn = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4))
print("spectral", [n for n, _ in sn.named_parameters()], [n for n, _ in sn.named_buffers()])
old = nn.utils.weight_norm(nn.Linear(5, 3))
print("old weight_norm", sorted(n for n, _ in old.named_parameters()), tuple(old.weight_g.shape))
nn.utils.remove_weight_norm(old)
print("removed", sorted(n for n, _ in old.named_parameters()))

inn = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
print(inn, r(inn(x)[0, 0, 0]), r(inn.running_mean))
inn.eval()
print("in eval", r(inn(x)[0, 0, 0]))
print("F.instance_norm", r(F.instance_norm(x)[1, 2, 3]))
lrn = nn.LocalResponseNorm(2, alpha=1e-2, beta=0.75, k=2.0)
print(lrn, r(lrn(x)[0, 1, 0]))
print("layer_norm chw", r(F.layer_norm(x, x.shape[1:])[0, 0, 0]))
gn1 = F.group_norm(x, 1, weight=torch.ones(3), bias=torch.zeros(3))
print("group_norm", r(F.group_norm(x, 3)[0, 0, 0]), r(gn1[1, 1, 1]))

lazy = nn.Sequential(nn.LazyConv2d(5, 3), nn.LazyBatchNorm2d(), nn.Flatten(), nn.LazyLinear(2))
print(lazy)
out = lazy(x)
print("lazy", tuple(out.shape), lazy[0].weight.shape, lazy[3].in_features, type(lazy[0]).__name__)

feat = T(1, 4, 10, 10)
rois = torch.tensor([[0, 1, 1, 6, 6], [0, 2, 0, 9, 5]], dtype=torch.float32)
crops = []
for roi in rois:
    b, x1, y1, x2, y2 = roi.round().long().tolist()
    crops.append(F.adaptive_max_pool2d(feat[b, :, y1:y2 + 1, x1:x2 + 1], (2, 2)))
crops = torch.stack(crops)
print("roi pool", tuple(crops.shape), r(crops[1, 0], 4))

sig = T(2, 20)
win = sig.unfold(-1, 6, 4)
print("Tensor.unfold", tuple(win.shape), r(win[0, 1], 6), win.stride())
im_win = x.unfold(2, 3, 2).unfold(3, 3, 2)
print("2d windows", tuple(im_win.shape), r(im_win[0, 0, 1, 1].flatten(), 9))
print("cdist", r(torch.cdist(T(3, 4), T(2, 4))), r(torch.cdist(T(1, 2, 3), T(1, 3, 3), p=1)[0, 0]))
emb = F.normalize(T(4, 8), dim=1)
print("normalize", r(emb.norm(dim=1)), r((emb @ emb.T)[0]))

import torch.utils.benchmark as benchmark  # noqa: E402

t = benchmark.Timer(stmt="a @ b", globals={"a": T(16, 16), "b": T(16, 16)}, label="mm", num_threads=1)
m = t.timeit(5)
print("timer", type(m).__name__, m.number_per_run if hasattr(m, "number_per_run") else None, m.mean > 0, m.label)
