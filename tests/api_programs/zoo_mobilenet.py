"""MobileNetV3 and EfficientNet blocks as torchvision writes them: _make_divisible channel rounding,
Conv2dNormActivation through functools.partial norm layers, squeeze-excitation with hardsigmoid, hardswish and SiLU,
inverted residuals with depthwise convolutions, stochastic depth in row mode, BatchNorm running statistics,
conv-BN fusion for inference, channels_last, and a few training steps."""

from functools import partial

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(2)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


print("divisible", [_make_divisible(c * 0.75, 8) for c in (16, 24, 40, 80, 112, 960)])


class Conv2dNormActivation(nn.Sequential):
    def __init__(self, in_ch, out_ch, kernel_size=3, stride=1, groups=1, norm_layer=nn.BatchNorm2d,
                 activation_layer=nn.ReLU, inplace=True):
        padding = (kernel_size - 1) // 2
        layers = [nn.Conv2d(in_ch, out_ch, kernel_size, stride, padding, groups=groups, bias=norm_layer is None)]
        if norm_layer is not None:
            layers.append(norm_layer(out_ch))
        if activation_layer is not None:
            layers.append(activation_layer(inplace=inplace) if inplace is not None else activation_layer())
        super().__init__(*layers)
        self.out_channels = out_ch


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Hardsigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, input):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))
        return scale * input


def stochastic_depth(input, p, mode, training=True):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    noise = torch.empty(size, dtype=input.dtype, device=input.device)
    noise = noise.bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class InvertedResidual(nn.Module):
    def __init__(self, cin, exp, cout, k, use_se, act, stride, norm_layer, sd_prob=0.0):
        super().__init__()
        self.use_res_connect = stride == 1 and cin == cout
        layers = []
        if exp != cin:
            layers.append(Conv2dNormActivation(cin, exp, 1, norm_layer=norm_layer, activation_layer=act))
        layers.append(Conv2dNormActivation(exp, exp, k, stride, groups=exp, norm_layer=norm_layer,
                                           activation_layer=act))
        if use_se:
            layers.append(SqueezeExcitation(exp, _make_divisible(exp // 4, 8)))
        layers.append(Conv2dNormActivation(exp, cout, 1, norm_layer=norm_layer, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.sd_prob = sd_prob

    def forward(self, x):
        result = self.block(x)
        if self.use_res_connect:
            result = stochastic_depth(result, self.sd_prob, "row", self.training) + x
        return result


norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
model = nn.Sequential(
    Conv2dNormActivation(3, 8, 3, 2, norm_layer=norm_layer, activation_layer=nn.Hardswish),
    InvertedResidual(8, 8, 8, 3, True, nn.ReLU, 1, norm_layer),
    InvertedResidual(8, 24, 16, 5, True, nn.Hardswish, 2, norm_layer),
    InvertedResidual(16, 48, 16, 3, False, nn.SiLU, 1, norm_layer, sd_prob=0.0),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(1),
    nn.Linear(16, 32), nn.Hardswish(inplace=True), nn.Dropout(p=0.2, inplace=True), nn.Linear(32, 4))
print(model[2])
print("params", sum(p.numel() for p in model.parameters()),
      "buffers", [(n, tuple(b.shape), b.dtype) for n, b in model[0].named_buffers()])
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy((0.3 * rng.standard_normal(p.shape) + (1.0 if p.ndim == 1 and "weight" in name
                                                                           else 0.0)).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((4, 3, 12, 12)).astype(np.float32))
acts = torch.linspace(-4, 4, 9)
print("hardswish", r(F.hardswish(acts), 9), "hardsigmoid", r(F.hardsigmoid(acts), 9))
print("silu", r(F.silu(acts), 9), "relu6", F.relu6(acts * 2).tolist())
try:
    stochastic_depth(x, 0.2, "col")
except ValueError as e:
    print("ValueError", e)

model.train()
out = model(x)
bn = model[0][1]
print("train out", tuple(out.shape), "bn running", r(bn.running_mean), r(bn.running_var),
      bn.num_batches_tracked.item())
model.eval()
with torch.no_grad():
    ev = model(x)
print("eval out", r(ev, 8))

conv, bn = model[1].block[0][0], model[1].block[0][1]
w = conv.weight.clone()
std = (bn.running_var + bn.eps).sqrt()
fused = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
                  groups=conv.groups, bias=True)
with torch.no_grad():
    fused.weight.copy_(w * (bn.weight / std).reshape(-1, 1, 1, 1))
    fused.bias.copy_(bn.bias - bn.running_mean * bn.weight / std)
    t = torch.from_numpy(rng.standard_normal((2, 8, 6, 6)).astype(np.float32))
    print("fused == conv+bn", torch.allclose(fused(t), bn(conv(t)), atol=1e-5), tuple(fused.weight.shape))

xc = x.to(memory_format=torch.channels_last)
mcl = model.to(memory_format=torch.channels_last)
with torch.no_grad():
    print("channels_last", xc.is_contiguous(memory_format=torch.channels_last), xc.stride(),
          torch.allclose(mcl(xc), ev, atol=1e-5))

model.train()
y = torch.tensor([0, 1, 2, 3])
for m in model.modules():
    if isinstance(m, nn.Dropout):
        m.p = 0.0
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3, alpha=0.9, eps=0.0316, momentum=0.9, weight_decay=1e-5)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    if step == 0:
        print("grad se fc1", round(model[2].block[2].fc1.weight.grad.norm().item(), 4),
              "dw", round(model[2].block[1][0].weight.grad.norm().item(), 4))
    opt.step()
    print("step", step, round(loss.item(), 4))
print("bn momentum", model[0][1].momentum, "tracked", model[0][1].num_batches_tracked.item(),
      r(model[0][1].running_mean))
