"""torch.nn.functional's own docstring examples beyond the modules: one_hot, normalize, cosine_similarity and
pairwise_distance broadcasting, pdist, affine_grid/grid_sample across modes, padding modes and align_corners,
functional conv with string padding and conv_tbc, unfold/fold, dropout family in eval, gumbel_softmax's hard
one-hots, fractional max pooling shapes, softmax dtype=, and the errors each function raises on misuse."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(17)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


print("one_hot", F.one_hot(torch.arange(0, 5) % 3).tolist(), F.one_hot(torch.arange(0, 5) % 3, num_classes=5).shape,
      F.one_hot(torch.arange(0, 6).view(3, 2) % 3).shape, F.one_hot(torch.tensor([1, 0])).dtype)
err(lambda: F.one_hot(torch.tensor([0, 3]), num_classes=3))
err(lambda: F.one_hot(torch.tensor([0.0, 1.0])))
err(lambda: F.one_hot(torch.tensor([-1, 1])))
x = T(3, 4)
print("normalize", r(F.normalize(x)), r(F.normalize(x, p=1.0, dim=0)), r(F.normalize(torch.zeros(2, 3))),
      r(F.normalize(x, p=float("inf"), dim=1, eps=0.5)))
a, b = T(5, 1, 4), T(1, 3, 4)
print("cosine broadcast", tuple(F.cosine_similarity(a, b, dim=-1).shape), r(F.cosine_similarity(a, b, dim=-1)))
print("cosine eps", r(F.cosine_similarity(torch.zeros(2, 3), T(2, 3))), r(F.cosine_similarity(x, x[0], dim=1)))
print("pairwise", r(F.pairwise_distance(x, x.flip(0))), r(F.pairwise_distance(x, x.flip(0), p=1.0, keepdim=True)),
      r(F.pairwise_distance(x, torch.zeros(4), eps=0.0)))
print("pdist", r(F.pdist(x)), r(F.pdist(x, p=0)), r(F.pdist(x, p=float("inf"))), F.pdist(x[:1]).shape)
err(lambda: F.cosine_similarity(T(3, 4), T(2, 4)))
err(lambda: F.pdist(T(2, 3, 4)))

# affine_grid / grid_sample
img = torch.arange(16.0).reshape(1, 1, 4, 4)
ident = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
for ac in (False, True):
    g = F.affine_grid(ident, (1, 1, 4, 4), align_corners=ac)
    print("identity grid", ac, r(g[0, 0], 8), torch.allclose(F.grid_sample(img, g, align_corners=ac), img))
rot = torch.tensor([[[0.8, -0.6, 0.1], [0.6, 0.8, -0.2]]])
grid = F.affine_grid(rot, (1, 1, 4, 4), align_corners=False)
for mode in ("bilinear", "nearest", "bicubic"):
    for pad in ("zeros", "border", "reflection"):
        out = F.grid_sample(img, grid * 1.3, mode=mode, padding_mode=pad, align_corners=False)
        print("grid_sample", mode, pad, r(out, 8))
print("grid 3d", tuple(F.affine_grid(torch.eye(3, 4)[None], (1, 2, 3, 4, 5), align_corners=False).shape),
      r(F.grid_sample(torch.arange(8.0).reshape(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 1, 3), align_corners=True)))
err(lambda: F.affine_grid(ident, (1, 1, 4), align_corners=False))
err(lambda: F.affine_grid(torch.ones(1, 3, 3), (1, 1, 4, 4), align_corners=False))
err(lambda: F.grid_sample(img, grid, mode="area", align_corners=False))
err(lambda: F.grid_sample(img, grid[..., :1], align_corners=False))
err(lambda: F.grid_sample(img, grid, padding_mode="wrap", align_corners=False))

# functional convolutions
inp, w = T(2, 4, 7), T(6, 2, 3)
print("conv1d", tuple(F.conv1d(inp, w, groups=2, padding="same").shape), tuple(F.conv1d(inp, w, groups=2).shape),
      r(F.conv1d(inp, w, torch.arange(6.0), stride=2, groups=2)))
print("conv2d", tuple(F.conv2d(T(1, 4, 5, 5), T(8, 4, 3, 3), padding="valid", dilation=2).shape),
      tuple(F.conv2d(T(4, 5, 5), T(8, 4, 3, 3), padding=1).shape))
print("conv_transpose", tuple(F.conv_transpose1d(inp, T(4, 3, 3), stride=3, output_padding=2, dilation=1).shape),
      tuple(F.conv_transpose2d(T(1, 4, 5, 5), T(4, 8, 3, 3), stride=2, groups=1).shape),
      tuple(F.conv_transpose3d(T(1, 2, 2, 3, 3), T(2, 1, 2, 2, 2), stride=2).shape))
tbc = F.conv_tbc(T(7, 2, 4), T(3, 4, 5), torch.zeros(5), pad=1)
print("conv_tbc", tuple(tbc.shape))
err(lambda: F.conv1d(inp, w, padding="same", stride=2))
err(lambda: F.conv1d(inp, w))
err(lambda: F.conv2d(T(1, 4, 5, 5), T(8, 4, 3)))
err(lambda: F.conv_transpose1d(inp, T(4, 3, 3), stride=2, output_padding=2))
err(lambda: F.conv1d(inp, w, groups=2, bias=torch.ones(5)))

# unfold / fold as in the docstring: convolution by hand
xin = T(1, 3, 10, 12)
wt = T(2, 3, 4, 5)
cols = F.unfold(xin, (4, 5))
manual = (cols.transpose(1, 2).matmul(wt.view(2, -1).t()).transpose(1, 2)).view(1, 2, 7, 8)
print("unfold conv", tuple(cols.shape), (manual - F.conv2d(xin, wt)).abs().max().item() < 1e-4)
print("fold", tuple(F.fold(cols, (10, 12), (4, 5)).shape),
      r(F.fold(F.unfold(torch.ones(1, 1, 3, 3), 2, padding=1), (3, 3), 2, padding=1)[0, 0], 9))
err(lambda: F.unfold(T(3, 4), 2))
err(lambda: F.fold(T(1, 12, 9), (4, 4), 2))

# dropout family outside training, gumbel softmax, fractional pooling, softmax dtypes
y = T(2, 3, 4, 4)
for fn in (F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout):
    inp_ = y if fn is not F.dropout1d else y[0]
    print(fn.__name__, torch.equal(fn(inp_, 0.5, training=False), inp_))
print("dropout p=1", F.dropout(y, 1.0).abs().sum().item(), F.dropout(y, 0.0).equal(y))
err(lambda: F.dropout(y, 1.5))
err(lambda: F.dropout1d(T(2, 3, 4, 5), 0.5))
logits = T(4, 5)
soft = F.gumbel_softmax(logits, tau=0.5)
hard = F.gumbel_softmax(logits, tau=1.0, hard=True)
print("gumbel", tuple(soft.shape), r(soft.sum(-1), 4), hard.sum(-1).tolist(), sorted(set(hard.flatten().tolist())))
fr, fi = F.fractional_max_pool2d(T(1, 2, 9, 9), 3, output_size=4, return_indices=True)
half = F.fractional_max_pool2d(T(1, 2, 9, 9), 2, output_ratio=(0.5, 0.5))
print("fractional", tuple(fr.shape), fi.dtype, tuple(half.shape),
      tuple(F.fractional_max_pool3d(T(1, 1, 6, 6, 6), 2, output_size=3).shape))
print("softmax dtype", F.softmax(logits, dim=1, dtype=torch.float64).dtype, F.log_softmax(logits.half(), 1).dtype,
      r(F.softmin(logits, 0)), r(F.softmax(torch.tensor([1.0, 2.0, 3.0]), 0)))
print("threshold/hardtanh", r(F.threshold(logits, 0.5, -2.0)), r(F.hardtanh(logits, -0.3, 0.3)),
      r(F.relu6(logits * 10)), r(F.leaky_relu(logits, 0.3)), r(F.elu(logits, 2.0)))
err(lambda: F.gumbel_softmax(logits, dim=3))
err(lambda: F.fractional_max_pool2d(T(1, 2, 9, 9), 3))
err(lambda: F.softmax(logits, dim=2))
