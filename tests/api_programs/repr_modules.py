"""Module reprs as model code prints them: a nested CNN, ModuleList/ModuleDict/ParameterList/ParameterDict,
repeated blocks, extra_repr of conv/norm/recurrent/attention/Transformer layers and losses, custom and
multi-line extra_repr, parametrized and spectral-normed layers, containers edited in place, and a
parameter-count summary printed beside the repr."""

from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm

torch.manual_seed(0)


class SqueezeExcite(nn.Module):
    def __init__(self, ch, ratio=0.25):
        super().__init__()
        self.ch, self.ratio = ch, ratio
        hidden = max(1, int(ch * ratio))
        self.fc = nn.Sequential(nn.Linear(ch, hidden), nn.SiLU(), nn.Linear(hidden, ch), nn.Sigmoid())

    def extra_repr(self):
        return f"ch={self.ch}, ratio={self.ratio}"

    def forward(self, x):
        return x * self.fc(x.mean((2, 3)))[:, :, None, None]


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8, momentum=0.03, eps=1e-3)
        self.act = nn.ReLU(inplace=True)
        self.register_buffer("step", torch.zeros((), dtype=torch.long))
        self.temperature = nn.Parameter(torch.ones(1))

    def extra_repr(self):
        return "stem: conv-bn-relu\nbuffers: step"

    def forward(self, x):
        return self.act(self.bn(self.conv(x))) * self.temperature


net = nn.Sequential(OrderedDict([
    ("stem", Stem()),
    ("se", SqueezeExcite(8)),
    ("blocks", nn.Sequential(*[nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.GELU()) for _ in range(3)])),
    ("pool", nn.AdaptiveAvgPool2d((1, 1))),
    ("flat", nn.Flatten()),
    ("drop", nn.Dropout(p=0.2)),
    ("head", nn.Linear(8, 5)),
]))
print(net)
print(net(torch.randn(2, 3, 16, 16)).shape)
print(f"params: {sum(p.numel() for p in net.parameters())}, trainable: "
      f"{sum(p.numel() for p in net.parameters() if p.requires_grad)}")
for name, mod in net.named_children():
    print(f"{name:>6}: {type(mod).__name__:<18} {sum(p.numel() for p in mod.parameters()):>5}")
print(net.stem, net[2][1], net[-1])
print(net[1:3])

layers = nn.ModuleDict({
    "lstm": nn.LSTM(4, 8, num_layers=2, batch_first=True, bidirectional=True, dropout=0.1),
    "lstm_proj": nn.LSTM(3, 6, proj_size=2),
    "gru": nn.GRU(8, 4, bias=False),
    "cells": nn.ModuleList([nn.LSTMCell(3, 5), nn.GRUCell(3, 5), nn.RNNCell(3, 5, nonlinearity="relu")]),
    "attn": nn.MultiheadAttention(8, 2, dropout=0.1, kdim=4, vdim=6, batch_first=True),
    "enc": nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, activation="gelu", batch_first=True, norm_first=True),
    "emb": nn.Embedding(100, 8, padding_idx=0, max_norm=2.0),
    "bag": nn.EmbeddingBag(100, 8, mode="mean"),
})
print(layers)
print(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2))
print(nn.TransformerDecoderLayer(8, 2, 16, batch_first=True))
norms = [nn.LayerNorm([4, 5], eps=1e-6, elementwise_affine=False), nn.GroupNorm(2, 4),
         nn.InstanceNorm1d(3, affine=True), nn.BatchNorm1d(3, track_running_stats=False),
         nn.RMSNorm(4, eps=1e-5), nn.LocalResponseNorm(2)]
for n in norms:
    print(n)
convs = [nn.Conv1d(2, 3, 5, padding="same", padding_mode="reflect"),
         nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1), nn.Conv3d(1, 2, (1, 3, 3), dilation=(1, 2, 2)),
         nn.Conv2d(4, 8, 1, bias=False), nn.ConvTranspose1d(2, 2, 4, groups=2)]
print(nn.ModuleList(convs))
losses = [nn.CrossEntropyLoss(label_smoothing=0.1), nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)),
          nn.HuberLoss(delta=2.0), nn.KLDivLoss(reduction="batchmean", log_target=True),
          nn.CTCLoss(blank=1, zero_infinity=True),
          nn.TripletMarginLoss(margin=0.5, p=1.0), nn.SmoothL1Loss(beta=0.5), nn.NLLLoss(ignore_index=3)]
print(nn.ModuleList(losses))
print(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False), nn.PixelShuffle(2), nn.Unfold(2, stride=2),
      nn.LeakyReLU(0.2), nn.Softmax(dim=-1), nn.Hardtanh(-2, 2), nn.PReLU(3), nn.Threshold(0.1, 20.0))

# repeated identical blocks print once with their index range
stack = nn.ModuleList([nn.Linear(4, 4) for _ in range(4)] + [nn.ReLU(), nn.ReLU(), nn.Linear(4, 2)])
print(stack)
deep = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)) for _ in range(6)])
print(deep)

# parameters in containers
plist = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(2, 3, dtype=torch.float64)),
                          nn.Parameter(torch.ones(1), requires_grad=False)])
print(plist)
print(nn.ParameterDict({"gamma": nn.Parameter(torch.ones(3)), "beta": torch.zeros(3)}))

# parametrizations and spectral norm wrap the layer's repr
class Symmetric(nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).T


sym = nn.Linear(3, 3)
P.register_parametrization(sym, "weight", Symmetric())
print(sym)
print(type(sym).__name__, P.is_parametrized(sym), P.is_parametrized(sym, "bias"))
print(weight_norm(nn.Linear(2, 2)))
print(orthogonal(nn.Linear(3, 3)))
print(spectral_norm(nn.Conv2d(1, 2, 3)))
P.remove_parametrizations(sym, "weight")
print(sym, type(sym).__name__)

# editing containers changes the repr
seq = nn.Sequential(nn.Linear(2, 3))
seq.append(nn.ReLU())
seq.insert(0, nn.Identity())
seq.extend([nn.Dropout(0.1), nn.Linear(3, 1)])
print(seq)
del seq[1]
seq.add_module("out", nn.Sigmoid())
print(seq, len(seq))
md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
md.update({"c": nn.ELU(alpha=0.5)})
print(md, list(md.keys()))
md.pop("b")
print(md)
print(nn.Sequential(), nn.ModuleList(), nn.ModuleDict(), nn.Identity())
