"""torchvision-style ResNet written inline: conv3x3/conv1x1 helpers, BasicBlock and Bottleneck with expansion,
_make_layer with a downsample branch, kaiming_normal_(mode="fan_out") and zero_init_residual, FrozenBatchNorm2d
with its _load_from_state_dict dropping num_batches_tracked, swapping BN for frozen BN by named_children, an
IntermediateLayerGetter returning an OrderedDict of features, and training steps with BN running statistics."""

from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import Tensor, nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups,
                     bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion: int = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    expansion: int = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=10, zero_init_residual=False, groups=1, width_per_group=64,
                 norm_layer=None, base=8):
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = base
        self.groups, self.base_width = groups, width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, base, layers[0])
        self.layer2 = self._make_layer(block, base * 2, layers[1], stride=2)
        self.layer3 = self._make_layer(block, base * 4, layers[2], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(base * 4 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1):
        norm_layer = self._norm_layer
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class FrozenBatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", torch.ones(num_features))
        self.register_buffer("bias", torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        num_batches_tracked_key = prefix + "num_batches_tracked"
        if num_batches_tracked_key in state_dict:
            del state_dict[num_batches_tracked_key]
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, x):
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        rv = self.running_var.reshape(1, -1, 1, 1)
        rm = self.running_mean.reshape(1, -1, 1, 1)
        scale = w * (rv + self.eps).rsqrt()
        return x * scale + (b - rm * scale)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


def freeze_bn(module):
    for name, child in module.named_children():
        if isinstance(child, nn.BatchNorm2d):
            frozen = FrozenBatchNorm2d(child.num_features, child.eps)
            frozen.load_state_dict(child.state_dict())
            setattr(module, name, frozen)
        else:
            freeze_bn(child)
    return module


class IntermediateLayerGetter(nn.ModuleDict):
    def __init__(self, model, return_layers):
        if not set(return_layers).issubset([name for name, _ in model.named_children()]):
            raise ValueError("return_layers are not present in model")
        orig_return_layers = return_layers
        return_layers = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            if name in return_layers:
                del return_layers[name]
            if not return_layers:
                break
        super().__init__(layers)
        self.return_layers = orig_return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


r18 = ResNet(BasicBlock, [2, 1, 1], zero_init_residual=True)
r50 = ResNet(Bottleneck, [1, 1, 1], base=4)
print(r18.layer2)
print(r50.layer1[0])
for name, m in (("basic", r18), ("bottleneck", r50)):
    print(name, "params", sum(p.numel() for p in m.parameters()), "buffers", sum(b.numel() for b in m.buffers()),
          "state_dict", len(m.state_dict()))
print("zero init", r18.layer1[0].bn2.weight.abs().sum().item(), r18.layer1[0].bn1.weight.sum().item())
print("kaiming std", round(r18.conv1.weight.std().item(), 4), "expected", round((2 / (8 * 49)) ** 0.5, 4))
print("keys", [k for k in r18.state_dict() if k.startswith("layer2.0.downsample")])
try:
    BasicBlock(8, 8, groups=2)
except ValueError as e:
    print("ValueError:", e)

x = torch.randn(4, 3, 32, 32)
y = torch.tensor([1, 0, 3, 9])
opt = torch.optim.SGD(r18.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
r18.train()
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(r18(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} bn1 running_mean", r18.bn1.running_mean[:3])
print("num_batches_tracked", r18.bn1.num_batches_tracked.item(), r18.layer1[0].bn2.weight[:3])
print("running_var", r18.bn1.running_var[:4])

r18.eval()
with torch.no_grad():
    ref = r18(x)
frozen = freeze_bn(ResNet(BasicBlock, [2, 1, 1]))
missing = frozen.load_state_dict(r18.state_dict(), strict=False)
print("load into frozen", missing)
print(frozen.layer1[0].bn1, "trainable", sum(p.numel() for p in frozen.parameters()),
      "frozen buffers", len([b for b in frozen.buffers()]))
with torch.no_grad():
    print("frozen == eval bn", torch.allclose(frozen(x), ref, atol=1e-4), ref[0, :4])
frozen.train()
with torch.no_grad():
    print("frozen ignores train()", torch.allclose(frozen(x), ref, atol=1e-4))

body = IntermediateLayerGetter(r50, return_layers={"layer1": "feat0", "layer3": "feat2"})
print("getter children", list(body.keys()))
feats = body(x)
print("features", [(k, tuple(v.shape)) for k, v in feats.items()])
try:
    IntermediateLayerGetter(r50, {"layer9": "x"})
except ValueError as e:
    print("ValueError:", e)

r50.eval()
traced_bn = r50.layer1[0].bn3
print("bn3 repr", traced_bn, traced_bn.momentum, traced_bn.track_running_stats)
head = nn.Sequential(OrderedDict(pool=nn.AdaptiveAvgPool2d(1), flat=nn.Flatten(), fc=nn.Linear(64, 5)))
print(head, head(feats["feat2"]).shape)
