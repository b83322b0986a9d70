"""Inception-v3 blocks as torchvision writes them (narrow): factorized 1x7/7x1 and 1x3/3x1 convolutions with tuple
padding, InceptionA/B/C branches, an InceptionAux head, InceptionOutputs in training, per-branch shapes, the
fusion of asymmetric conv+bn pairs for inference, and a whole-model pickle through io.BytesIO (weights_only=False)
next to the state_dict route."""

import io
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.fusion import fuse_conv_bn_eval

rng = np.random.default_rng(299)
InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class BasicConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


class InceptionA(nn.Module):
    def __init__(self, in_channels, pool_features):
        super().__init__()
        self.branch1x1 = BasicConv2d(in_channels, 8, kernel_size=1)
        self.branch5x5_1 = BasicConv2d(in_channels, 6, kernel_size=1)
        self.branch5x5_2 = BasicConv2d(6, 8, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = BasicConv2d(in_channels, 8, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(8, 12, kernel_size=3, padding=1)
        self.branch_pool = BasicConv2d(in_channels, pool_features, kernel_size=1)

    def _forward(self, x):
        b1 = self.branch1x1(x)
        b5 = self.branch5x5_2(self.branch5x5_1(x))
        b3 = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        bp = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return [b1, b5, b3, bp]

    def forward(self, x):
        return torch.cat(self._forward(x), 1)


class InceptionC(nn.Module):
    def __init__(self, in_channels, c7):
        super().__init__()
        self.branch1x1 = BasicConv2d(in_channels, 8, kernel_size=1)
        self.branch7x7_1 = BasicConv2d(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = BasicConv2d(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7_3 = BasicConv2d(c7, 8, kernel_size=(7, 1), padding=(3, 0))
        self.branch_pool = BasicConv2d(in_channels, 8, kernel_size=1)

    def forward(self, x):
        b1 = self.branch1x1(x)
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        bp = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return torch.cat([b1, b7, bp], 1)


class InceptionE(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.branch3x3_1 = BasicConv2d(in_channels, 6, kernel_size=1)
        self.branch3x3_2a = BasicConv2d(6, 6, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = BasicConv2d(6, 6, kernel_size=(3, 1), padding=(1, 0))

    def forward(self, x):
        b = self.branch3x3_1(x)
        return torch.cat([self.branch3x3_2a(b), self.branch3x3_2b(b)], 1)


class InceptionAux(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.conv0 = BasicConv2d(in_channels, 8, kernel_size=1)
        self.conv1 = BasicConv2d(8, 16, kernel_size=2)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = F.avg_pool2d(x, kernel_size=2, stride=2)
        x = self.conv1(self.conv0(x))
        x = F.adaptive_avg_pool2d(x, (1, 1))
        return self.fc(torch.flatten(x, 1))


class InceptionV3(nn.Module):
    def __init__(self, num_classes=5, aux_logits=True):
        super().__init__()
        self.aux_logits = aux_logits
        self.Conv2d_1a_3x3 = BasicConv2d(3, 8, kernel_size=3, stride=2)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = InceptionA(8, pool_features=4)
        self.Mixed_6b = InceptionC(32, c7=6)
        self.AuxLogits = InceptionAux(24, num_classes) if aux_logits else None
        self.Mixed_7a = InceptionE(24)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=0.5)
        self.fc = nn.Linear(12, num_classes)

    def forward(self, x):
        x = self.maxpool1(self.Conv2d_1a_3x3(x))
        x = self.Mixed_6b(self.Mixed_5b(x))
        aux = self.AuxLogits(x) if self.AuxLogits is not None and self.training else None
        x = self.Mixed_7a(x)
        x = self.fc(self.dropout(torch.flatten(self.avgpool(x), 1)))
        if self.training and self.aux_logits:
            return InceptionOutputs(x, aux)
        return x


model = InceptionV3()
with torch.no_grad():
    for p in model.parameters():
        std = (1.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.from_numpy(rng.standard_normal(m.num_features).astype(np.float32) * 0.1))
            m.running_var.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, m.num_features).astype(np.float32)))
print(model.Mixed_6b.branch7x7_2)
print(model.Mixed_7a)
print("params", sum(p.numel() for p in model.parameters()),
      {n: sum(p.numel() for p in c.parameters()) for n, c in model.named_children() if n.startswith("Mixed")})
x = torch.from_numpy(rng.standard_normal((2, 3, 23, 23)).astype(np.float32))
stem = model.maxpool1(model.Conv2d_1a_3x3(x))
print("stem", tuple(stem.shape), "5b branches", [tuple(b.shape) for b in model.Mixed_5b._forward(stem)])
k = model.Mixed_6b.branch7x7_2.conv
print("asymmetric conv", k.kernel_size, k.padding, tuple(k.weight.shape))

model.train()
model.dropout.eval()
out = model(x)
print("train", type(out).__name__, tuple(out.logits.shape), tuple(out.aux_logits.shape))
loss = F.cross_entropy(out.logits, torch.tensor([0, 4])) + 0.4 * F.cross_entropy(out.aux_logits, torch.tensor([0, 4]))
loss.backward()
print("loss", round(loss.item(), 4), "aux fc grad", round(model.AuxLogits.fc.weight.grad.norm().item(), 4))

model.eval()
with torch.no_grad():
    ref = model(x)
print("eval", type(ref).__name__, r(ref, 5))


def fuse_basic(mod):
    for name, child in mod.named_children():
        if isinstance(child, BasicConv2d):
            fused = fuse_conv_bn_eval(child.conv, child.bn)
            setattr(mod, name, nn.Sequential(fused, nn.ReLU(inplace=True)))
        else:
            fuse_basic(child)
    return mod


buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
clone = torch.load(buf, weights_only=False)
print("whole-model load", type(clone).__name__, clone.training, torch.equal(clone(x), ref))
fused = fuse_basic(clone)
print("fused branch", fused.Mixed_6b.branch7x7_3)
with torch.no_grad():
    out_f = fused(x)
print("fused close", torch.allclose(out_f, ref, atol=1e-4), "bn left", sum(isinstance(m, nn.BatchNorm2d)
                                                                         for m in fused.modules()))
print("params fused", sum(p.numel() for p in fused.parameters()))
sd_buf = io.BytesIO()
torch.save(model.state_dict(), sd_buf)
sd_buf.seek(0)
no_aux = InceptionV3(aux_logits=False)
res = no_aux.load_state_dict(torch.load(sd_buf, map_location="cpu"), strict=False)
print("no-aux load unexpected", len(res.unexpected_keys), res.unexpected_keys[0], res.missing_keys)
no_aux.eval()
with torch.no_grad():
    print("no-aux equal", torch.equal(no_aux(x), ref))
