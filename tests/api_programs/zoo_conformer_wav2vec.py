"""wav2vec 2.0's feature extractor and a Conformer encoder as their reference implementations write them: strided
Conv1d stacks with GroupNorm on the first layer, the conv output length formula, a grouped positional convolution
under weight_norm(dim=2) with SamePad, Transformer-XL relative shift by pad and view, the Conformer convolution
module (pointwise conv, GLU, depthwise Conv1d, BatchNorm1d, SiLU), macaron half-step FFNs, and a few steps."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def fill(model, scale=0.3):
    with torch.no_grad():
        for name, p in model.named_parameters():
            base = 1.0 if (p.ndim == 1 and "norm" in name and name.endswith("weight")) else 0.0
            p.copy_(torch.from_numpy((base + scale * rng.standard_normal(p.shape)).astype(np.float32)))


class FeatureExtractor(nn.Module):
    def __init__(self, conv_layers=((8, 10, 5), (8, 3, 2), (8, 2, 2))):
        super().__init__()
        self.conv_layers = nn.ModuleList()
        in_d = 1
        for i, (dim, k, stride) in enumerate(conv_layers):
            layers = [nn.Conv1d(in_d, dim, k, stride=stride, bias=False)]
            if i == 0:
                layers.append(nn.GroupNorm(dim, dim, affine=True))
            layers.append(nn.GELU())
            self.conv_layers.append(nn.Sequential(*layers))
            in_d = dim
        self.spec = conv_layers

    def forward(self, x):
        x = x.unsqueeze(1)
        for conv in self.conv_layers:
            x = conv(x)
        return x

    def output_lengths(self, input_lengths):
        for _, k, stride in self.spec:
            input_lengths = torch.floor((input_lengths - k) / stride + 1)
        return input_lengths.to(torch.long)


class SamePad(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.remove = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x):
        return x[:, :, : -self.remove] if self.remove > 0 else x


def rel_shift(x):
    b, h, qlen, klen = x.shape
    x = F.pad(x, (1, 0))
    x = x.view(b, h, klen + 1, qlen)
    return x[:, :, 1:].view(b, h, qlen, klen)


class ConvModule(nn.Module):
    def __init__(self, dim, kernel_size=5):
        super().__init__()
        self.layer_norm = nn.LayerNorm(dim)
        self.pointwise_conv1 = nn.Conv1d(dim, 2 * dim, 1)
        self.glu = nn.GLU(dim=1)
        self.depthwise_conv = nn.Conv1d(dim, dim, kernel_size, padding=(kernel_size - 1) // 2, groups=dim)
        self.batch_norm = nn.BatchNorm1d(dim)
        self.activation = nn.SiLU()
        self.pointwise_conv2 = nn.Conv1d(dim, dim, 1)

    def forward(self, x):
        x = self.layer_norm(x).transpose(1, 2)
        x = self.glu(self.pointwise_conv1(x))
        x = self.activation(self.batch_norm(self.depthwise_conv(x)))
        return self.pointwise_conv2(x).transpose(1, 2)


class ConformerLayer(nn.Module):
    def __init__(self, dim, heads=2):
        super().__init__()
        self.ffn1 = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.SiLU(), nn.Linear(2 * dim, dim))
        self.self_attn_layer_norm = nn.LayerNorm(dim)
        self.self_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.conv_module = ConvModule(dim)
        self.ffn2 = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.SiLU(), nn.Linear(2 * dim, dim))
        self.final_layer_norm = nn.LayerNorm(dim)

    def forward(self, x, key_padding_mask=None):
        x = x + 0.5 * self.ffn1(x)
        h = self.self_attn_layer_norm(x)
        h, _ = self.self_attn(h, h, h, key_padding_mask=key_padding_mask, need_weights=False)
        x = x + h
        x = x + self.conv_module(x)
        x = x + 0.5 * self.ffn2(x)
        return self.final_layer_norm(x)


fe = FeatureExtractor()
fill(fe)
wav = torch.from_numpy(rng.standard_normal((2, 160)).astype(np.float32))
lengths = torch.tensor([160, 120])
feats = fe(wav)
print("features", tuple(feats.shape), "lengths", fe.output_lengths(lengths).tolist(), r(feats, 5))
print(fe.conv_layers[0])

pos_conv = nn.Conv1d(8, 8, kernel_size=4, padding=2, groups=2)
nn.init.normal_(pos_conv.weight, mean=0, std=math.sqrt(4 / (4 * 8)))
nn.init.constant_(pos_conv.bias, 0)
pos_conv = nn.utils.parametrizations.weight_norm(pos_conv, name="weight", dim=2)
print("weight_norm params", sorted(n for n, _ in pos_conv.named_parameters()))
print("g shape", tuple(pos_conv.parametrizations.weight.original0.shape),
      "v shape", tuple(pos_conv.parametrizations.weight.original1.shape))
with torch.no_grad():
    pos_conv.parametrizations.weight.original1.copy_(
        torch.from_numpy(rng.standard_normal((8, 4, 4)).astype(np.float32)))
    pos_conv.parametrizations.weight.original0.fill_(0.5)
w = pos_conv.weight
print("normed over dims 0,1", r(w.norm(dim=(0, 1)), 4))
pos_embed = nn.Sequential(pos_conv, SamePad(4), nn.GELU())
x = feats.transpose(1, 2)
x_pos = pos_embed(x.transpose(1, 2)).transpose(1, 2)
print("pos conv", tuple(x_pos.shape), r(x_pos, 4))
x = x + x_pos

scores = torch.arange(2 * 1 * 3 * 3, dtype=torch.float32).view(2, 1, 3, 3)
print("rel_shift", rel_shift(scores)[0, 0].tolist())

layer = ConformerLayer(8)
fill(layer)
frame_lengths = fe.output_lengths(lengths)
T = x.shape[1]
pad_mask = torch.arange(T).expand(2, T) >= frame_lengths.unsqueeze(1)
print("padding mask", pad_mask.int().tolist())
layer.train()
y = layer(x, key_padding_mask=pad_mask)
print("conformer", tuple(y.shape), r(y, 6), "bn running", r(layer.conv_module.batch_norm.running_mean))
layer.eval()
with torch.no_grad():
    print("eval", r(layer(x, key_padding_mask=pad_mask), 4))
print(layer.conv_module)
glu_in = torch.tensor([[1.0, 2.0, 0.0, -1.0]])
print("glu", r(F.glu(glu_in), 2), tuple(F.glu(torch.ones(4, 2), dim=0).shape))
try:
    F.glu(torch.ones(2, 3))
except RuntimeError as e:
    print("RuntimeError", e)

layer.train()
fe.train()
head = nn.Linear(8, 6)
fill(head)
params = list(fe.parameters()) + list(pos_embed.parameters()) + list(layer.parameters()) + list(head.parameters())
opt = torch.optim.Adam(params, lr=3e-3)
targets = torch.tensor([[1, 2, 3], [4, 5, 0]])
target_lengths = torch.tensor([3, 2])
for step in range(3):
    opt.zero_grad()
    f = fe(wav).transpose(1, 2)
    f = f + pos_embed(f.transpose(1, 2)).transpose(1, 2)
    log_probs = head(layer(f, key_padding_mask=pad_mask)).log_softmax(-1).transpose(0, 1)
    loss = F.ctc_loss(log_probs, targets, frame_lengths, target_lengths, blank=0, zero_infinity=True)
    loss.backward()
    if step == 0:
        print("grads g", r(pos_conv.parametrizations.weight.original0.grad, 4),
              "dw", round(layer.conv_module.depthwise_conv.weight.grad.norm().item(), 4),
              "gn", round(fe.conv_layers[0][1].weight.grad.norm().item(), 4))
    opt.step()
    print("step", step, round(loss.item(), 4))
