"""GoogLeNet/Inception blocks as torchvision writes them (narrow): BasicConv2d, four-branch Inception modules
concatenated on channels, auxiliary classifiers active only in training, GoogLeNetOutputs namedtuple and
eager_outputs, transform_input, the warning for aux_logits in scripting, and the aux-weighted training loss."""

import warnings
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

rng = np.random.default_rng(7)
GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])
GoogLeNetOutputs.__annotations__ = {"logits": Tensor, "aux_logits2": Tensor | None, "aux_logits1": Tensor | None}
_GoogLeNetOutputs = GoogLeNetOutputs


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class BasicConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


class Inception(nn.Module):
    def __init__(self, in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj, conv_block=None):
        super().__init__()
        if conv_block is None:
            conv_block = BasicConv2d
        self.branch1 = conv_block(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(conv_block(in_channels, ch3x3red, kernel_size=1),
                                     conv_block(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(conv_block(in_channels, ch5x5red, kernel_size=1),
                                     conv_block(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=True),
                                     conv_block(in_channels, pool_proj, kernel_size=1))

    def _forward(self, x):
        return [self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)]

    def forward(self, x):
        return torch.cat(self._forward(x), 1)


class InceptionAux(nn.Module):
    def __init__(self, in_channels, num_classes, conv_block=None, dropout=0.7):
        super().__init__()
        if conv_block is None:
            conv_block = BasicConv2d
        self.conv = conv_block(in_channels, 8, kernel_size=1)
        self.fc1 = nn.Linear(8 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, num_classes)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(x, (2, 2))
        x = self.conv(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x), inplace=True)
        x = self.dropout(x)
        return self.fc2(x)


class GoogLeNet(nn.Module):
    __constants__ = ["aux_logits", "transform_input"]

    def __init__(self, num_classes=6, aux_logits=True, transform_input=False, dropout=0.2, dropout_aux=0.7):
        super().__init__()
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.conv1 = BasicConv2d(3, 8, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.conv2 = BasicConv2d(8, 8, kernel_size=1)
        self.conv3 = BasicConv2d(8, 12, kernel_size=3, padding=1)
        self.inception3a = Inception(12, 4, 4, 6, 2, 2, 2)
        self.inception3b = Inception(14, 6, 4, 8, 2, 4, 4)
        self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception4a = Inception(22, 8, 4, 8, 2, 2, 4)
        self.inception4b = Inception(22, 6, 4, 8, 2, 4, 4)
        if aux_logits:
            self.aux1 = InceptionAux(22, num_classes, dropout=dropout_aux)
            self.aux2 = InceptionAux(22, num_classes, dropout=dropout_aux)
        else:
            self.aux1 = None
            self.aux2 = None
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(22, num_classes)

    def _transform_input(self, x):
        if self.transform_input:
            x_ch0 = torch.unsqueeze(x[:, 0], 1) * (0.229 / 0.5) + (0.485 - 0.5) / 0.5
            x_ch1 = torch.unsqueeze(x[:, 1], 1) * (0.224 / 0.5) + (0.456 - 0.5) / 0.5
            x_ch2 = torch.unsqueeze(x[:, 2], 1) * (0.225 / 0.5) + (0.406 - 0.5) / 0.5
            x = torch.cat((x_ch0, x_ch1, x_ch2), 1)
        return x

    def _forward(self, x):
        x = self.maxpool1(self.conv1(x))
        x = self.conv3(self.conv2(x))
        x = self.inception3b(self.inception3a(x))
        x = self.maxpool3(x)
        x = self.inception4a(x)
        aux1: Tensor | None = None
        if self.aux1 is not None and self.training:
            aux1 = self.aux1(x)
        x = self.inception4b(x)
        aux2: Tensor | None = None
        if self.aux2 is not None and self.training:
            aux2 = self.aux2(x)
        x = torch.flatten(self.avgpool(x), 1)
        x = self.fc(self.dropout(x))
        return x, aux2, aux1

    @torch.jit.unused
    def eager_outputs(self, x, aux2, aux1):
        if self.training and self.aux_logits:
            return _GoogLeNetOutputs(x, aux2, aux1)
        return x

    def forward(self, x):
        x = self._transform_input(x)
        x, aux2, aux1 = self._forward(x)
        aux_defined = self.training and self.aux_logits
        if torch.jit.is_scripting():
            if not aux_defined:
                warnings.warn("Scripted GoogleNet always returns GoogleNetOutputs Tuple")
            return GoogLeNetOutputs(x, aux2, aux1)
        return self.eager_outputs(x, aux2, aux1)


model = GoogLeNet(transform_input=True)
with torch.no_grad():
    for name, p in model.named_parameters():
        std = (1.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
print(model.inception3a.branch4)
print("bn eps", model.conv1.bn.eps, "aux", model.aux1.fc2)
names = [n for n, _ in model.named_children()]
print("children", names)
total = sum(p.numel() for p in model.parameters())
aux = sum(p.numel() for n, p in model.named_parameters() if n.startswith("aux"))
print("params", total, "aux", aux, "deploy", total - aux)

x = torch.from_numpy(rng.uniform(0, 1, (2, 3, 32, 32)).astype(np.float32))
print("transformed", r(model._transform_input(x)[:, :, 0, 0], 6))
branch_shapes = [tuple(b.shape) for b in model.inception3a._forward(torch.zeros(1, 12, 8, 8))]
print("inception3a branches", branch_shapes)

model.train()
out = model(x)
print("train type", type(out).__name__, out._fields, isinstance(out, tuple))
print("logits", tuple(out.logits.shape), "aux shapes", tuple(out.aux_logits1.shape), tuple(out.aux_logits2.shape))
target = torch.tensor([2, 5])
loss1 = F.cross_entropy(out.logits, target)
loss2 = F.cross_entropy(out.aux_logits1, target)
loss3 = F.cross_entropy(out.aux_logits2, target)
loss = loss1 + 0.3 * loss2 + 0.3 * loss3
print("losses finite", all(torch.isfinite(t).item() for t in (loss1, loss2, loss3)))
loss.backward()
print("aux grads exist", model.aux1.fc2.weight.grad is not None, model.fc.weight.grad is not None)
logits, aux2, aux1 = out
print("unpacked", logits is out[0], out.aux_logits1 is aux1, out._asdict().keys())

model.eval()
with torch.no_grad():
    ev = model(x)
print("eval type", type(ev).__name__, tuple(ev.shape), r(ev, 6))
print("eval probs", r(F.softmax(ev, dim=1)[0], 6), "pred", ev.argmax(1).tolist())
top2 = ev.topk(2, dim=1)
print("top2", top2.indices.tolist(), type(top2).__name__)

noaux = GoogLeNet(aux_logits=False, transform_input=True)
sd = {k: v for k, v in model.state_dict().items() if not k.startswith("aux")}
print("load without aux", noaux.load_state_dict(sd))
noaux.train()
tr = noaux(x)
print("no-aux train returns", type(tr).__name__, noaux.aux1)
noaux.eval()
with torch.no_grad():
    print("same eval logits", torch.allclose(noaux(x), ev, atol=1e-5))
res = noaux.load_state_dict(model.state_dict(), strict=False)
print("unexpected aux keys", len(res.unexpected_keys), res.unexpected_keys[:3])

with torch.no_grad():
    feats = {}
    hooks = [getattr(model, n).register_forward_hook(lambda m, i, o, n=n: feats.__setitem__(n, tuple(o.shape)))
             for n in ("inception3a", "inception3b", "inception4a", "inception4b")]
    model(x)
    for h in hooks:
        h.remove()
print("feature map shapes", feats)
print("ceil_mode pool", F.max_pool2d(torch.arange(64.0).view(1, 1, 8, 8), 3, 2, ceil_mode=True).shape,
      F.max_pool2d(torch.arange(64.0).view(1, 1, 8, 8), 3, 2).shape)
