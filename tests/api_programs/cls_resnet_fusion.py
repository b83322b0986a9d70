"""ResNet-18 and ResNet-50 as torchvision writes them (BasicBlock, Bottleneck, downsample, _make_layer, narrow
widths), zero_init_residual, parameter counts per stage, and conv+bn fusion for inference: with
torch.nn.utils.fusion.fuse_conv_bn_eval, fuse_conv_bn_weights, and by hand, checked against the unfused model."""

import copy

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval

rng = np.random.default_rng(18)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups,
                     bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv1x1(inplanes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = conv3x3(planes, planes, stride)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = conv1x1(planes, planes * self.expansion)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
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
    def __init__(self, block, layers, num_classes=10, zero_init_residual=False, width=8):
        super().__init__()
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, width, layers[0])
        self.layer2 = self._make_layer(block, width * 2, layers[1], stride=2)
        self.layer3 = self._make_layer(block, width * 4, layers[2], stride=2)
        self.layer4 = self._make_layer(block, width * 8, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width * 8 * block.expansion, num_classes)
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
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def randomize_(model, scale=0.3):
    with torch.no_grad():
        for p in model.parameters():
            std = (1.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else scale
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.from_numpy(rng.standard_normal(m.num_features).astype(np.float32) * 0.1))
                m.running_var.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, m.num_features).astype(np.float32)))
                m.weight.mul_(0.3).add_(1.0)


r18 = ResNet(BasicBlock, [2, 2, 2, 2], zero_init_residual=True)
r50 = ResNet(Bottleneck, [3, 4, 6, 3], width=4)
print("zero-init bn2", [float(b.bn2.weight.abs().sum()) for b in r18.layer1])
for name, model in (("resnet18", r18), ("resnet50", r50)):
    total = sum(p.numel() for p in model.parameters())
    stages = {n: sum(p.numel() for p in getattr(model, n).parameters())
              for n in ("layer1", "layer2", "layer3", "layer4")}
    print(name, total, stages, "fc", model.fc)
print(r18.layer2[0].downsample)
print(r50.layer1[0])
print("block types", [type(m).__name__ for m in r50.layer3.children()])
ds = [n for n, m in r50.named_modules() if n.endswith("downsample")]
print("downsamples", ds)

randomize_(r18)
r18.eval()
x = torch.from_numpy(rng.standard_normal((2, 3, 32, 32)).astype(np.float32))
with torch.no_grad():
    ref = r18(x)
    feats = r18.layer3(r18.layer2(r18.layer1(r18.maxpool(r18.relu(r18.bn1(r18.conv1(x)))))))
print("r18 out", tuple(ref.shape), r(ref, 5), "layer3", tuple(feats.shape))

conv, bn = r18.conv1, r18.bn1
fused = fuse_conv_bn_eval(conv, bn)
print("fused", fused, "bias", fused.bias is not None, fused.weight.requires_grad, type(fused.weight).__name__)
with torch.no_grad():
    a = bn(conv(x))
    b = fused(x)
print("fuse_conv_bn_eval max diff < 1e-5", bool((a - b).abs().max() < 1e-5))

fw, fb = fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
print("fuse_conv_bn_weights", type(fw).__name__, tuple(fw.shape), tuple(fb.shape), r(fb))
std = torch.sqrt(bn.running_var + bn.eps)
w_hand = conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1)
b_hand = bn.bias - bn.running_mean * bn.weight / std
print("by hand equal", torch.allclose(w_hand, fw, atol=1e-6), torch.allclose(b_hand, fb, atol=1e-6))

try:
    fuse_conv_bn_eval(conv.train(), bn)
except AssertionError as e:
    print("train-mode fuse: AssertionError", e)
conv.eval()


def fuse_resnet(model):
    model = copy.deepcopy(model)
    model.conv1 = fuse_conv_bn_eval(model.conv1, model.bn1)
    model.bn1 = nn.Identity()
    for layer in (model.layer1, model.layer2, model.layer3, model.layer4):
        for blk in layer:
            blk.conv1 = fuse_conv_bn_eval(blk.conv1, blk.bn1)
            blk.bn1 = nn.Identity()
            blk.conv2 = fuse_conv_bn_eval(blk.conv2, blk.bn2)
            blk.bn2 = nn.Identity()
            if blk.downsample is not None:
                blk.downsample = nn.Sequential(fuse_conv_bn_eval(blk.downsample[0], blk.downsample[1]))
    return model


f18 = fuse_resnet(r18)
with torch.no_grad():
    out_f = f18(x)
print("fused resnet close", torch.allclose(out_f, ref, atol=1e-4), r(out_f, 5))
n_bn = sum(isinstance(m, nn.BatchNorm2d) for m in r18.modules())
n_bn_f = sum(isinstance(m, nn.BatchNorm2d) for m in f18.modules())
print("bn count", n_bn, "->", n_bn_f, "params", sum(p.numel() for p in f18.parameters()))
print(f18.layer2[0])

q18 = copy.deepcopy(r18)
torch.ao.quantization.fuse_modules(q18, ["conv1", "bn1", "relu"], inplace=True)
for layer in (q18.layer1, q18.layer2, q18.layer3, q18.layer4):
    for blk in layer:
        torch.ao.quantization.fuse_modules(blk, [["conv1", "bn1"], ["conv2", "bn2"]], inplace=True)
        if blk.downsample is not None:
            torch.ao.quantization.fuse_modules(blk.downsample, ["0", "1"], inplace=True)
print("fuse_modules stem", q18.conv1, type(q18.conv1).__module__, q18.bn1, q18.relu)
with torch.no_grad():
    print("fuse_modules close", torch.allclose(q18(x), ref, atol=1e-4), torch.allclose(q18(x), out_f, atol=1e-5))
try:
    torch.ao.quantization.fuse_modules(copy.deepcopy(r18).train(), ["conv1", "bn1"])
except AssertionError as e:
    print("train fuse_modules: AssertionError", e)
try:
    torch.ao.quantization.fuse_modules(r18, ["layer1", "layer2"])
except AssertionError as e:
    print("unknown pair: AssertionError", str(e)[:80])
lin, bn1d = nn.Linear(6, 4), nn.BatchNorm1d(4)
with torch.no_grad():
    lin.weight.copy_(torch.from_numpy(rng.standard_normal((4, 6)).astype(np.float32)))
    lin.bias.copy_(torch.linspace(-1, 1, 4))
    bn1d.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3, 0.0]))
    bn1d.running_var.copy_(torch.tensor([1.5, 0.5, 2.0, 1.0]))
    bn1d.weight.copy_(torch.tensor([1.0, 0.5, -1.0, 2.0]))
lin.eval(), bn1d.eval()
fl = fuse_linear_bn_eval(lin, bn1d)
v = torch.from_numpy(rng.standard_normal((3, 6)).astype(np.float32))
print("linear+bn fused", fl, torch.allclose(fl(v), bn1d(lin(v)), atol=1e-5), r(fl.bias))

randomize_(r50)
r50.eval()
with torch.no_grad():
    o50 = r50(x)
print("r50 out", tuple(o50.shape), r(o50, 5))
r50.train()
with torch.no_grad():
    r50(x)
r50.eval()
loss = nn.functional.cross_entropy(r50(x), torch.tensor([1, 3]))
loss.backward()
print("r50 eval loss", round(loss.item(), 4))
# two decimals: a ResNet-50's deep gradients carry float32 GEMM rounding (BLAS builds differ in the fourth)
grads = {n: round(p.grad.norm().item(), 2) for n, p in r50.named_parameters() if n.startswith("layer4.2")}
print("r50 layer4.2 grad norms", list(grads.items())[:4])
print("num_batches_tracked", int(r50.bn1.num_batches_tracked), r(r50.bn1.running_mean, 3))
