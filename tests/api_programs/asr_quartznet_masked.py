"""QuartzNet/Jasper blocks as NeMo writes them: MaskedConv1d that zeroes frames past each length and returns the
new lengths by the conv output formula, time-channel separable convolutions (depthwise groups=C then pointwise),
BatchNorm1d with momentum=None's cumulative average and track_running_stats=False, residual 1x1 branches,
squeeze-excitation over masked means, padding_mode variants, conv-BN fusion for inference with
torch.nn.utils.fusion, a weight-standardised conv through _conv_forward, and the convolution argument errors."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

torch.manual_seed(0)


class MaskedConv1d(nn.Conv1d):
    def forward(self, x, lengths):
        mask = torch.arange(x.size(-1)) < lengths[:, None]
        x = x * mask[:, None].to(x.dtype)
        k, s, p, d = self.kernel_size[0], self.stride[0], self.padding[0], self.dilation[0]
        lengths = torch.div(lengths + 2 * p - d * (k - 1) - 1, s, rounding_mode="floor") + 1
        return super().forward(x), lengths


class SqueezeExcite(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(c, c // r), nn.ReLU(inplace=True), nn.Linear(c // r, c), nn.Sigmoid())

    def forward(self, x, lengths):
        mask = (torch.arange(x.size(-1)) < lengths[:, None]).unsqueeze(1)
        mean = (x * mask).sum(-1) / lengths[:, None]
        return x * self.fc(mean).unsqueeze(-1)


class SeparableBlock(nn.Module):
    def __init__(self, c_in, c_out, k, repeat=2):
        super().__init__()
        self.dw = nn.ModuleList(
            MaskedConv1d(
                c_in if i == 0 else c_out,
                c_in if i == 0 else c_out,
                k,
                padding=k // 2,
                groups=c_in if i == 0 else c_out,
                bias=False,
            )
            for i in range(repeat)
        )
        self.pw = nn.ModuleList(nn.Conv1d(c_in if i == 0 else c_out, c_out, 1, bias=False) for i in range(repeat))
        self.bn = nn.ModuleList(nn.BatchNorm1d(c_out, eps=1e-3, momentum=0.1) for _ in range(repeat))
        self.res = nn.Sequential(nn.Conv1d(c_in, c_out, 1, bias=False), nn.BatchNorm1d(c_out, eps=1e-3))
        self.se = SqueezeExcite(c_out)

    def forward(self, x, lengths):
        y, lens = x, lengths
        for i, (dw, pw, bn) in enumerate(zip(self.dw, self.pw, self.bn)):
            y, lens = dw(y, lens)
            y = bn(pw(y))
            if i < len(self.dw) - 1:
                y = F.relu(y)
        y = self.se(y, lens)
        return F.relu(y + self.res(x)), lens


B, C, T = 3, 8, 20
x = torch.randn(B, C, T, requires_grad=True)
lengths = torch.tensor([20, 15, 9])
prologue = MaskedConv1d(C, 12, 5, stride=2, padding=2)
block = SeparableBlock(12, 16, 7)
y, lens = prologue(x, lengths)
print("prologue", tuple(y.shape), "lengths", lens.tolist(), lens.dtype)
z, lens2 = block(y, lens)
print("block", tuple(z.shape), lens2.tolist(), "sum", round(z.sum().item(), 4))
print(
    "dw groups",
    [m.groups for m in block.dw],
    tuple(block.dw[0].weight.shape),
    "params",
    sum(p.numel() for p in block.parameters()),
)
z.mean().backward()
print(
    "grad past lengths is zero",
    bool((x.grad[1, :, 15:] == 0).all()),
    bool((x.grad[2, :, 9:] == 0).all()),
    "dw grad",
    round(block.dw[0].weight.grad.norm().item(), 4),
)

cma = nn.BatchNorm1d(4, momentum=None)
for i in range(3):
    cma(torch.randn(5, 4, 6) + i)
print("cumulative running_mean", cma.running_mean.round(decimals=4).tolist(), "batches", cma.num_batches_tracked.item())
nostat = nn.BatchNorm1d(4, affine=False, track_running_stats=False).eval()
print(nostat, nostat.running_mean, "eval uses batch stats", round(nostat(torch.randn(5, 4) * 3 + 2).mean().item(), 4))

for mode in ("zeros", "reflect", "replicate", "circular"):
    conv = nn.Conv1d(2, 2, 3, padding=1, padding_mode=mode, bias=False)
    nn.init.constant_(conv.weight, 1.0)
    print(mode, conv(torch.arange(10.0).view(1, 2, 5))[0, 0].tolist())
print(nn.Conv1d(2, 4, 3, padding="same", dilation=2, padding_mode="reflect"))

block.eval()
conv, bn = block.pw[1], block.bn[1]
fused = fuse_conv_bn_eval(conv, bn)
probe = torch.randn(2, 16, 11)
with torch.no_grad():
    print(
        "fused", type(fused).__name__, fused.bias is not None, torch.allclose(fused(probe), bn(conv(probe)), atol=1e-5)
    )


class WSConv1d(nn.Conv1d):
    """Weight standardisation (as BigTransfer-style encoders use it) through the module's own _conv_forward."""

    def forward(self, x):
        w = self.weight
        w = (w - w.mean(dim=(1, 2), keepdim=True)) / (w.std(dim=(1, 2), keepdim=True, unbiased=False) + 1e-5)
        return self._conv_forward(x, w, self.bias)


ws = WSConv1d(16, 8, 3, padding=1, padding_mode="replicate")
print("ws conv", tuple(ws(probe).shape), round(ws(probe).std().item(), 4), ws._reversed_padding_repeated_twice)
print("running stats after train step", block.bn[0].running_var[:3].round(decimals=4).tolist())

for bad in (
    lambda: nn.Conv1d(4, 4, 3, padding="same", stride=2),
    lambda: nn.Conv1d(6, 4, 3, groups=4),
    lambda: F.conv1d(torch.randn(1, 4, 2), torch.randn(4, 4, 5)),
    lambda: nn.BatchNorm1d(4)(torch.randn(1, 4)),
    lambda: nn.BatchNorm1d(4)(torch.randn(2, 5, 3)),
):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
