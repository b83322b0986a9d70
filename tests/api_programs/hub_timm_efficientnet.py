"""timm-style EfficientNet pieces written inline: Conv2dSame with dynamic TF "SAME" padding (F.pad by
math.ceil), BatchNormAct2d subclassing nn.BatchNorm2d and calling F.batch_norm with its exponential_average_factor,
a Swish with an in-place mul_ and a memory-efficient autograd.Function version, SqueezeExcite with rd_ratio, an
arch-string decoder ('ir_r2_k3_s2_e6_c24_se0.25'), round_channels by width multiplier, depth scaling by ceil,
DepthwiseSeparable and InvertedResidual blocks with drop_path, and a few training steps with BN statistics."""

import math
import re

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def get_same_padding(x, kernel_size, stride, dilation):
    return max((math.ceil(x / stride) - 1) * stride + (kernel_size - 1) * dilation + 1 - x, 0)


def pad_same(x, kernel_size, stride, dilation=(1, 1), value=0):
    ih, iw = x.size()[-2:]
    pad_h = get_same_padding(ih, kernel_size[0], stride[0], dilation[0])
    pad_w = get_same_padding(iw, kernel_size[1], stride[1], dilation[1])
    return F.pad(x, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2), value=value)


class Conv2dSame(nn.Conv2d):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True):
        super().__init__(in_channels, out_channels, kernel_size, stride, 0, dilation, groups, bias)

    def forward(self, x):
        x = pad_same(x, self.kernel_size, self.stride, self.dilation)
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class SwishFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.mul(torch.sigmoid(x))

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        x_sigmoid = torch.sigmoid(x)
        return grad_output * (x_sigmoid * (1 + x * (1 - x_sigmoid)))


class SwishMe(nn.Module):
    def __init__(self, inplace=False):
        super().__init__()

    def forward(self, x):
        return SwishFn.apply(x)


class Swish(nn.Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return x.mul_(x.sigmoid()) if self.inplace else x.mul(x.sigmoid())


class BatchNormAct2d(nn.BatchNorm2d):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, apply_act=True,
                 act_layer=nn.SiLU):
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine,
                         track_running_stats=track_running_stats)
        self.act = act_layer(inplace=True) if apply_act else nn.Identity()

    def forward(self, x):
        if self.momentum is None:
            exponential_average_factor = 0.0
        else:
            exponential_average_factor = self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        x = F.batch_norm(x, self.running_mean if not self.training or self.track_running_stats else None,
                         self.running_var if not self.training or self.track_running_stats else None,
                         self.weight, self.bias, bn_training, exponential_average_factor, self.eps)
        return self.act(x)


class SqueezeExcite(nn.Module):
    def __init__(self, in_chs, rd_ratio=0.25, act_layer=nn.SiLU, gate_layer=nn.Sigmoid):
        super().__init__()
        rd_channels = max(1, round(in_chs * rd_ratio))
        self.conv_reduce = nn.Conv2d(in_chs, rd_channels, 1, bias=True)
        self.act1 = act_layer(inplace=True)
        self.conv_expand = nn.Conv2d(rd_channels, in_chs, 1, bias=True)
        self.gate = gate_layer()

    def forward(self, x):
        x_se = x.mean((2, 3), keepdim=True)
        x_se = self.conv_expand(self.act1(self.conv_reduce(x_se)))
        return x * self.gate(x_se)


def make_divisible(v, divisor=8, min_value=None, round_limit=0.9):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < round_limit * v:
        new_v += divisor
    return new_v


def round_channels(channels, multiplier=1.0, divisor=8):
    return channels if not multiplier else make_divisible(channels * multiplier, divisor)


def decode_block_str(block_str):
    ops = block_str.split("_")
    block_type, ops = ops[0], ops[1:]
    options = {}
    for op in ops:
        splits = re.split(r"(\d.*)", op)
        if len(splits) >= 2:
            key, value = splits[:2]
            options[key] = value
    return dict(block_type=block_type, repeats=int(options["r"]), kernel=int(options["k"]),
                stride=int(options["s"]), exp_ratio=float(options.get("e", 1.0)), out_chs=int(options["c"]),
                se_ratio=float(options.get("se", 0.0)))


class DepthwiseSeparableConv(nn.Module):
    def __init__(self, in_chs, out_chs, kernel, stride, se_ratio, drop_path_rate=0.0):
        super().__init__()
        self.has_skip = stride == 1 and in_chs == out_chs
        self.conv_dw = Conv2dSame(in_chs, in_chs, kernel, stride, groups=in_chs, bias=False)
        self.bn1 = BatchNormAct2d(in_chs)
        self.se = SqueezeExcite(in_chs, se_ratio) if se_ratio else nn.Identity()
        self.conv_pw = nn.Conv2d(in_chs, out_chs, 1, bias=False)
        self.bn2 = BatchNormAct2d(out_chs, apply_act=False)
        self.drop_path_rate = drop_path_rate

    def forward(self, x):
        shortcut = x
        x = self.bn2(self.conv_pw(self.se(self.bn1(self.conv_dw(x)))))
        return x + shortcut if self.has_skip else x


class InvertedResidual(nn.Module):
    def __init__(self, in_chs, out_chs, kernel, stride, exp_ratio, se_ratio, drop_path_rate=0.0):
        super().__init__()
        mid = make_divisible(in_chs * exp_ratio)
        self.has_skip = stride == 1 and in_chs == out_chs
        self.conv_pw = nn.Conv2d(in_chs, mid, 1, bias=False)
        self.bn1 = BatchNormAct2d(mid)
        self.conv_dw = Conv2dSame(mid, mid, kernel, stride, groups=mid, bias=False)
        self.bn2 = BatchNormAct2d(mid)
        self.se = SqueezeExcite(mid, se_ratio / exp_ratio) if se_ratio else nn.Identity()
        self.conv_pwl = nn.Conv2d(mid, out_chs, 1, bias=False)
        self.bn3 = BatchNormAct2d(out_chs, apply_act=False)
        self.drop_path_rate = drop_path_rate

    def forward(self, x):
        shortcut = x
        x = self.bn3(self.conv_pwl(self.se(self.bn2(self.conv_dw(self.bn1(self.conv_pw(x)))))))
        if self.has_skip:
            if self.training and self.drop_path_rate > 0:
                keep = 1 - self.drop_path_rate
                x = x * x.new_empty(x.shape[0], 1, 1, 1).bernoulli_(keep).div_(keep)
            x = x + shortcut
        return x


class EfficientNet(nn.Module):
    def __init__(self, arch, width_multiplier=1.0, depth_multiplier=1.0, num_classes=5, drop_path_rate=0.1):
        super().__init__()
        stem = round_channels(16, width_multiplier)
        self.conv_stem = Conv2dSame(3, stem, 3, stride=2, bias=False)
        self.bn1 = BatchNormAct2d(stem)
        specs = [decode_block_str(s) for s in arch]
        total = sum(math.ceil(s["repeats"] * depth_multiplier) for s in specs)
        blocks, in_chs, idx = [], stem, 0
        for s in specs:
            out = round_channels(s["out_chs"], width_multiplier)
            stage = []
            for r in range(math.ceil(s["repeats"] * depth_multiplier)):
                dpr = drop_path_rate * idx / total
                stride = s["stride"] if r == 0 else 1
                if s["block_type"] == "ds":
                    stage.append(DepthwiseSeparableConv(in_chs, out, s["kernel"], stride, s["se_ratio"], dpr))
                else:
                    stage.append(InvertedResidual(in_chs, out, s["kernel"], stride, s["exp_ratio"], s["se_ratio"],
                                                  dpr))
                in_chs, idx = out, idx + 1
            blocks.append(nn.Sequential(*stage))
        self.blocks = nn.Sequential(*blocks)
        self.classifier = nn.Linear(in_chs, num_classes)
        for n, m in self.named_modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels // m.groups
                m.weight.data.normal_(0, math.sqrt(2.0 / fan_out))
                if m.bias is not None:
                    m.bias.data.zero_()
            elif isinstance(m, nn.Linear):
                init_range = 1.0 / math.sqrt(m.weight.size(0))
                m.weight.data.uniform_(-init_range, init_range)
                m.bias.data.zero_()

    def forward(self, x):
        x = self.blocks(self.bn1(self.conv_stem(x)))
        return self.classifier(x.mean((2, 3)))


print("same padding", [get_same_padding(x, 3, 2, 1) for x in (7, 8, 9, 10)], get_same_padding(5, 5, 1, 2))
conv = Conv2dSame(2, 4, 3, stride=2)
x = torch.randn(1, 2, 7, 8)
print(conv, conv(x).shape, "vs ceil", (math.ceil(7 / 2), math.ceil(8 / 2)))
ref = nn.Conv2d(2, 4, 3, padding="same")
ref.load_state_dict(Conv2dSame(2, 4, 3).state_dict())
c1 = Conv2dSame(2, 4, 3)
c1.load_state_dict(ref.state_dict())
print("stride-1 same == padding='same'", torch.allclose(c1(x), ref(x), atol=1e-6))
print("even kernel same", Conv2dSame(2, 2, 4)(x).shape, nn.Conv2d(2, 2, 4, padding="same")(x).shape)

t = torch.randn(6, requires_grad=True)
a = SwishMe()(t)
a.sum().backward()
g_me = t.grad.clone()
t.grad = None
F.silu(t).sum().backward()
print("swish fn", torch.allclose(a, F.silu(t)), "grad", torch.allclose(g_me, t.grad, atol=1e-6), a.grad_fn.name())
buf = torch.randn(4)
out = Swish(inplace=True)(buf)
print("inplace swish", out is buf, out.data_ptr() == buf.data_ptr())

bn = BatchNormAct2d(4, momentum=None)
for i in range(3):
    bn(torch.randn(2, 4, 3, 3) + i)
torch.manual_seed(0)
print(bn, "tracked", bn.num_batches_tracked.item(), "cumulative mean", bn.running_mean)

specs = ["ds_r1_k3_s1_e1_c16_se0.25", "ir_r2_k3_s2_e6_c24_se0.25", "ir_r2_k5_s2_e6_c40_se0.25"]
print("decoded", decode_block_str(specs[1]))
print("round_channels", [round_channels(c, 1.1) for c in (16, 24, 40, 80)], [round_channels(c, 0.5) for c in
                                                                             (16, 24, 40)])
for w, d in ((1.0, 1.0), (1.1, 1.2), (0.5, 0.5)):
    net = EfficientNet(specs, w, d)
    print(f"w={w} d={d} blocks {[len(s) for s in net.blocks]} params {sum(p.numel() for p in net.parameters())}")
net = EfficientNet(specs)
print(net.blocks[1][0])
print("drop paths", [round(b.drop_path_rate, 4) for s in net.blocks for b in s])
x = torch.randn(4, 3, 32, 32)
y = torch.tensor([0, 1, 2, 3])
opt = torch.optim.RMSprop(net.parameters(), lr=0.01, alpha=0.9, eps=1e-3, momentum=0.9)
net.train()
for step in range(3):
    loss = F.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("bn stats", net.bn1.running_mean[:3], net.bn1.num_batches_tracked.item())
net.eval()
with torch.no_grad():
    print("eval", net(x).argmax(1).tolist(), net.blocks[2][1].has_skip)
