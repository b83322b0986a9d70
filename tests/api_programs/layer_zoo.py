"""nn layer zoo and losses with deterministic weights."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:5].numpy(), 4).tolist()


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.3)
    return m


x4 = T(2, 4, 8, 8)
x3 = T(2, 4, 16)
x5 = T(1, 2, 4, 4, 4)
for m, inp in [
    (nn.Conv1d(4, 6, 3, padding=2, dilation=2), x3),
    (nn.Conv2d(4, 6, 3, groups=2, padding="same", padding_mode="reflect"), x4),
    (nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), x4),
    (nn.Conv3d(2, 3, 3), x5),
    (nn.ConvTranspose1d(4, 2, 4, stride=2), x3),
    (nn.GroupNorm(2, 4), x4),
    (nn.InstanceNorm2d(4, affine=True), x4),
    (nn.LayerNorm([8, 8]), x4),
    (nn.BatchNorm1d(4), x3),
    (nn.LocalResponseNorm(2), x4),
    (nn.PixelShuffle(2), x4),
    (nn.PixelUnshuffle(2), x4),
    (nn.Upsample(scale_factor=2, mode="nearest"), x4),
    (nn.Upsample(size=(5, 5), mode="bicubic", align_corners=True), x4),
    (nn.AdaptiveMaxPool2d(3), x4),
    (nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), x4),
    (nn.MaxPool1d(2, return_indices=False), x3),
    (nn.LPPool2d(2, 2), x4),
    (nn.ZeroPad2d((1, 0, 2, 0)), x4),
    (nn.ReflectionPad1d(2), x3),
    (nn.ReplicationPad2d(1), x4),
    (nn.CircularPad2d(1), x4),
    (nn.ConstantPad1d(1, 3.5), x3),
    (nn.RMSNorm(16), x3),
    (nn.Bilinear(16, 16, 3), None),
    (nn.EmbeddingBag(10, 3, mode="mean"), None),
    (nn.PReLU(), x3),
    (nn.GLU(), x3),
    (nn.Softmax2d(), x4),
    (nn.Hardswish(), x3),
    (nn.Mish(), x3),
    (nn.ELU(alpha=0.5), x3),
    (nn.SELU(), x3),
    (nn.CELU(), x3),
    (nn.Softsign(), x3),
    (nn.Hardtanh(-0.5, 0.5), x3),
    (nn.LogSigmoid(), x3),
    (nn.Threshold(0.1, 20), x3),
    (nn.RReLU(), x3),
    (nn.Softmin(dim=1), x3),
    (nn.LogSoftmax(dim=-1), x3),
    (nn.Tanhshrink(), x3),
    (nn.Softshrink(0.5), x3),
    (nn.Hardshrink(), x3),
    (nn.SiLU(), x3),
    (nn.ReLU6(), x3),
    (nn.Hardsigmoid(), x3),
    (nn.AlphaDropout(0.2), x3),
    (nn.Dropout2d(0.3), x4),
    (nn.ChannelShuffle(2), x4),
    (nn.Fold(output_size=(4, 4), kernel_size=2), T(1, 8, 9)),
    (nn.Unfold(2, stride=2), x4),
    (nn.MaxPool3d(2), x5),
    (nn.AdaptiveAvgPool3d(1), x5),
    (nn.InstanceNorm1d(4), x3),
    (nn.BatchNorm3d(2), x5),
    (nn.CosineSimilarity(dim=1), None),
    (nn.Identity(54, unused="x"), x3),
]:
    det(m)
    m.eval()
    name = type(m).__name__
    if name == "Bilinear":
        out = m(T(2, 16), T(2, 16))
    elif name == "EmbeddingBag":
        out = m(torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2]))
    elif name == "CosineSimilarity":
        out = m(T(3, 4), T(3, 4))
    else:
        out = m(inp)
    print(name, tuple(out.shape), r(out))
mp = nn.MaxPool2d(2, return_indices=True)
o, idx = mp(x4)
print("unpool", nn.MaxUnpool2d(2)(o, idx).shape, idx.dtype)
logits = T(4, 5)
tgt = torch.tensor([0, 3, 4, 1])
y = T(4, 5)
print(
    "ce",
    r(F.cross_entropy(logits, tgt, weight=torch.arange(1.0, 6.0), reduction="none")),
    r(F.cross_entropy(logits, F.softmax(y, -1))),
)
print(
    "nll",
    r(F.nll_loss(F.log_softmax(logits, 1), tgt, ignore_index=3)),
    r(F.kl_div(F.log_softmax(logits, 1), F.softmax(y, 1), reduction="batchmean")),
)
print(
    "bce",
    r(F.binary_cross_entropy_with_logits(logits, torch.sigmoid(y), pos_weight=torch.ones(5) * 2)),
    r(F.binary_cross_entropy(torch.sigmoid(logits), torch.sigmoid(y), weight=torch.ones(5))),
)
print(
    "reg",
    r(F.huber_loss(logits, y, delta=0.5)),
    r(F.smooth_l1_loss(logits, y, beta=0.5)),
    r(F.l1_loss(logits, y)),
    r(F.mse_loss(logits, y, reduction="sum")),
)
print(
    "margin",
    r(F.margin_ranking_loss(logits[:, 0], y[:, 0], torch.tensor([1.0, -1.0, 1.0, -1.0]), margin=0.1)),
    r(F.triplet_margin_loss(logits, y, T(4, 5))),
    r(F.cosine_embedding_loss(logits, y, torch.tensor([1, -1, 1, -1]))),
    r(F.hinge_embedding_loss(logits, torch.sign(y))),
)
print(
    "multi",
    r(F.multilabel_soft_margin_loss(logits, (y > 0).float())),
    r(F.multi_margin_loss(logits, tgt)),
    r(F.multilabel_margin_loss(logits, torch.tensor([[1, 2, -1, 0, 0]] * 4))),
    r(F.soft_margin_loss(logits, torch.sign(y))),
)
print(
    "nll_misc",
    r(F.poisson_nll_loss(logits, y.abs())),
    r(F.gaussian_nll_loss(logits, y, torch.ones(4, 5))),
    r(nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.2)(logits, tgt)),
)
lp = F.log_softmax(T(6, 2, 5), 2)
print("ctc", r(F.ctc_loss(lp, torch.tensor([[1, 2], [3, 3]]), torch.tensor([6, 5]), torch.tensor([2, 2]))))
theta = torch.tensor([[[1.0, 0.1, 0.0], [0.0, 0.9, 0.1]]])
grid = F.affine_grid(theta, (1, 1, 4, 4), align_corners=False)
print("grid", r(grid), r(F.grid_sample(x4[:1, :1], grid, mode="bilinear", padding_mode="border", align_corners=False)))
print(
    "interp",
    r(F.interpolate(x3, size=10, mode="linear")),
    r(F.interpolate(x4, scale_factor=0.5, mode="area")),
    r(F.interpolate(x4, scale_factor=1.5, mode="bilinear", antialias=False)),
)
print(
    "emb",
    r(F.embedding(torch.tensor([[0, 2]]), T(4, 3), max_norm=1.0)),
    r(F.embedding_bag(torch.tensor([0, 1, 2]), T(4, 3), torch.tensor([0, 1]), mode="sum")),
)
print(
    "fns",
    r(F.glu(x3, 1)),
    r(F.local_response_norm(x4, 3)),
    r(F.normalize(x3, p=1, dim=2)),
    r(F.layer_norm(x3, (16,))),
    r(F.group_norm(x4, 2)),
    r(F.instance_norm(x4)),
    r(F.batch_norm(x3, torch.zeros(4), torch.ones(4))),
    r(F.rms_norm(x3, (16,))),
)
print(
    "conv_fn",
    r(F.conv2d(x4, T(2, 4, 3, 3), stride=2)),
    r(F.conv_transpose2d(x4, T(4, 2, 2, 2), stride=2)),
    r(F.avg_pool1d(x3, 2)),
    r(F.max_pool2d(x4, 3, 2, 1, ceil_mode=True)),
    r(F.adaptive_avg_pool1d(x3, 5)),
    r(F.lp_pool1d(x3, 2, 2)),
)
print(
    "acts",
    r(F.leaky_relu(x3, 0.1)),
    r(F.gelu(x3, approximate="tanh")),
    r(F.softplus(x3, beta=2, threshold=1)),
    r(F.hardtanh(x3)),
    r(F.relu6(x3)),
    r(F.logsigmoid(x3)),
    r(F.silu(x3)),
    r(F.mish(x3)),
    r(F.elu(x3)),
    r(F.selu(x3)),
    r(F.celu(x3)),
    r(F.softsign(x3)),
    r(F.tanhshrink(x3)),
    r(F.threshold(x3, 0.5, 0.0)),
    r(F.prelu(x3, torch.tensor([0.25]))),
    r(F.hardswish(x3)),
)
print("OK")
