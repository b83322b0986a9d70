"""torchvision-style MobileNetV2/V3 written inline: _make_divisible, Conv2dNormActivation as an nn.Sequential
subclass, SqueezeExcitation with a Hardsigmoid scale, InvertedResidual blocks (expand, depthwise, project, residual
only when stride 1 and channels match), width_mult, partial BatchNorm with eps/momentum, torchvision's init loop,
StochasticDepth in row and batch modes, the ops.MLP helper, and a few RMSprop steps."""

from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Conv2dNormActivation(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1, inplace=True, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            params = {} if inplace is None else {"inplace": inplace}
            layers.append(activation_layer(**params))
        super().__init__(*layers)
        self.out_channels = out_channels


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, x):
        return self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))

    def forward(self, x):
        return self._scale(x) * x


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2d, use_se=False,
                 activation_layer=nn.ReLU6):
        super().__init__()
        if stride not in [1, 2]:
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=activation_layer))
        layers.append(Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                           norm_layer=norm_layer, activation_layer=activation_layer))
        if use_se:
            squeeze = _make_divisible(hidden_dim // 4, 8)
            layers.append(SqueezeExcitation(hidden_dim, squeeze, scale_activation=nn.Hardsigmoid))
        layers += [nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False), norm_layer(oup)]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=10, width_mult=1.0, round_nearest=8, dropout=0.2, use_se=False,
                 norm_layer=None, activation_layer=nn.ReLU6):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        input_channel, last_channel = 16, 64
        setting = [[1, 8, 1, 1], [4, 12, 2, 2], [4, 16, 2, 2]]
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                         activation_layer=activation_layer)]
        for t, c, n, s in setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, t, norm_layer,
                                                 use_se, activation_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer,
                                             activation_layer=activation_layer))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
        return self.classifier(torch.flatten(x, 1))


def stochastic_depth(input, p, mode, training=True):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    noise = torch.empty(size, dtype=input.dtype, device=input.device).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class MLP(nn.Sequential):
    def __init__(self, in_channels, hidden_channels, norm_layer=None, activation_layer=nn.ReLU, bias=True,
                 dropout=0.0):
        layers, in_dim = [], in_channels
        for hidden_dim in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden_dim, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden_dim))
            layers += [activation_layer(inplace=True), nn.Dropout(dropout)]
            in_dim = hidden_dim
        layers += [nn.Linear(in_dim, hidden_channels[-1], bias=bias), nn.Dropout(dropout)]
        super().__init__(*layers)


print("make_divisible", [_make_divisible(v, 8) for v in (3, 12, 20, 27.5, 33, 100 * 0.35, 1280 * 0.75)])
print(Conv2dNormActivation(8, 16, kernel_size=3, stride=2, groups=8, activation_layer=nn.Hardswish))
print(SqueezeExcitation(16, 8, scale_activation=nn.Hardsigmoid))
block = InvertedResidual(8, 8, 1, 4, use_se=True, activation_layer=nn.Hardswish)
print(block, "residual", block.use_res_connect)
try:
    InvertedResidual(8, 8, 3, 4)
except ValueError as e:
    print("ValueError:", e)

for wm in (0.5, 1.0, 1.5):
    m = MobileNetV2(width_mult=wm)
    print(f"width {wm}: params {sum(p.numel() for p in m.parameters())}",
          "channels", [f.out_channels for f in m.features], m.last_channel)

norm = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
v3ish = MobileNetV2(num_classes=5, use_se=True, norm_layer=norm, activation_layer=nn.Hardswish)
print("bn", v3ish.features[0][1], "residual blocks",
      [i for i, f in enumerate(v3ish.features) if getattr(f, "use_res_connect", False)])
print("linear std", round(v3ish.classifier[1].weight.std().item(), 4), "conv0 std",
      round(v3ish.features[0][0].weight.std().item(), 4))
print("state_dict keys", list(v3ish.state_dict())[:5], len(v3ish.state_dict()))

x = torch.randn(4, 3, 32, 32)
y = torch.tensor([0, 4, 2, 1])
opt = torch.optim.RMSprop(v3ish.parameters(), lr=1e-3, alpha=0.9, eps=0.0316, momentum=0.9, weight_decay=1e-5)
v3ish.train()
torch.manual_seed(3)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(v3ish(x), y, label_smoothing=0.1)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("bn running mean", v3ish.features[0][1].running_mean[:4])
v3ish.eval()
with torch.no_grad():
    print("eval logits", v3ish(x[:2]))
se = v3ish.features[2].conv[2]
with torch.no_grad():
    print("se scale", tuple(se._scale(torch.randn(1, 32, 4, 4)).shape), se.scale_activation)

torch.manual_seed(5)
t = torch.ones(6, 2, 2)
print("sd row", stochastic_depth(t, 0.5, "row")[:, 0, 0])
print("sd batch", stochastic_depth(t, 0.5, "batch").unique())
print("sd eval", torch.equal(stochastic_depth(t, 0.5, "row", training=False), t))
for bad in ((1.5, "row"), (0.2, "col")):
    try:
        stochastic_depth(t, *bad)
    except ValueError as e:
        print("ValueError:", e)

mlp = MLP(16, [32, 32, 4], norm_layer=nn.LayerNorm, dropout=0.1)
print(mlp)
mlp.eval()
print("mlp out", mlp(torch.randn(3, 16)).shape)
