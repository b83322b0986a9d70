"""An ESPnet-style Conformer layer: sinusoidal relative positional encodings over 2T-1 offsets, multi-head attention
with pos_bias_u/pos_bias_v and the zero-pad rel_shift, padding masks from lengths applied with masked_fill before
softmax and after it, a convolution module (pointwise GLU, depthwise Conv1d with groups, BatchNorm1d, SiLU) that
zeroes padded frames, macaron FFNs, and a short training run with masked mean pooling."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def make_pad_mask(lengths, max_len=None):
    max_len = max_len or int(lengths.max())
    return torch.arange(max_len, device=lengths.device).unsqueeze(0) >= lengths.unsqueeze(1)


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        pos = torch.arange(max_len - 1, -max_len, -1.0).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model))
        pe = torch.zeros(2 * max_len - 1, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)
        self.max_len = max_len

    def forward(self, x):
        T = x.size(1)
        c = self.max_len - 1
        return x * math.sqrt(x.size(-1)), self.pe[:, c - T + 1 : c + T]


class RelMHA(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h, self.dk = h, d // h
        self.q, self.k, self.v, self.out = (nn.Linear(d, d) for _ in range(4))
        self.pos = nn.Linear(d, d, bias=False)
        self.pos_bias_u = nn.Parameter(torch.empty(h, self.dk))
        self.pos_bias_v = nn.Parameter(torch.empty(h, self.dk))
        nn.init.xavier_uniform_(self.pos_bias_u)
        nn.init.xavier_uniform_(self.pos_bias_v)

    @staticmethod
    def rel_shift(x):
        b, h, t, p = x.shape
        x = torch.cat([x.new_zeros(b, h, t, 1), x], dim=-1).view(b, h, p + 1, t)
        return x[:, :, 1:].view(b, h, t, p)[:, :, :, : p // 2 + 1]

    def forward(self, x, pos, mask):
        B, T, _ = x.shape
        q = self.q(x).view(B, T, self.h, self.dk)
        k = self.k(x).view(B, T, self.h, self.dk).transpose(1, 2)
        v = self.v(x).view(B, T, self.h, self.dk).transpose(1, 2)
        p = self.pos(pos).view(1, -1, self.h, self.dk).transpose(1, 2)
        ac = torch.matmul((q + self.pos_bias_u).transpose(1, 2), k.transpose(-2, -1))
        bd = self.rel_shift(torch.matmul((q + self.pos_bias_v).transpose(1, 2), p.transpose(-2, -1)))
        scores = (ac + bd) / math.sqrt(self.dk)
        m = mask.unsqueeze(1).unsqueeze(2)
        scores = scores.masked_fill(m, torch.finfo(scores.dtype).min)
        attn = torch.softmax(scores, dim=-1).masked_fill(m, 0.0)
        return self.out((attn @ v).transpose(1, 2).reshape(B, T, -1)), attn


class ConvModule(nn.Module):
    def __init__(self, d, kernel=5):
        super().__init__()
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, kernel, padding=(kernel - 1) // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x, mask):
        x = x.masked_fill(mask.unsqueeze(-1), 0.0).transpose(1, 2)
        x = F.glu(self.pw1(x), dim=1)
        x = F.silu(self.bn(self.dw(x)))
        return self.pw2(x).transpose(1, 2)


class ConformerLayer(nn.Module):
    def __init__(self, d=16, h=4):
        super().__init__()
        ffn = lambda: nn.Sequential(
            nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Dropout(0.1), nn.Linear(4 * d, d)
        )
        self.ff1, self.ff2 = ffn(), ffn()
        self.norm_att, self.norm_conv, self.norm_out = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.att, self.conv = RelMHA(d, h), ConvModule(d)

    def forward(self, x, pos, mask):
        x = x + 0.5 * self.ff1(x)
        a, attn = self.att(self.norm_att(x), pos, mask)
        x = x + a
        x = x + self.conv(self.norm_conv(x), mask)
        return self.norm_out(x + 0.5 * self.ff2(x)), attn


B, T, D = 3, 9, 16
lengths = torch.tensor([9, 6, 4])
mask = make_pad_mask(lengths)
print("mask", mask.int().tolist())
enc, layer = RelPositionalEncoding(D), ConformerLayer(D)
x = torch.randn(B, T, D)
xs, pos = enc(x)
print(
    "pos",
    tuple(pos.shape),
    pos[0, T - 1, :4].round(decimals=4).tolist(),
    "buffers",
    [n for n, _ in enc.named_buffers()],
)
print(
    "state_dict keys", len(enc.state_dict()), "rel_shift", RelMHA.rel_shift(torch.arange(6.0).view(1, 1, 2, 3)).tolist()
)
layer.eval()
with torch.no_grad():
    y, attn = layer(xs, pos, mask)
print(
    "eval out",
    tuple(y.shape),
    round(y.abs().sum().item(), 4),
    y[1, 0, :4].round(decimals=4).tolist(),
    "attn rows",
    attn.sum(-1)[:, 0].round(decimals=4).tolist(),
)
print(
    "attn to pads",
    attn[1, :, :, 6:].abs().sum().item(),
    "dw groups",
    layer.conv.dw.groups,
    tuple(layer.conv.dw.weight.shape),
)
layer.train()
opt = torch.optim.Adam(layer.parameters(), lr=1e-3)
target = torch.randn(B, D)
for step in range(3):
    torch.manual_seed(step)
    y, _ = layer(xs, pos, mask)
    keep = (~mask).unsqueeze(-1).float()
    pooled = (y * keep).sum(1) / keep.sum(1)
    loss = F.mse_loss(pooled, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), "bias_u grad", round(layer.att.pos_bias_u.grad.norm().item(), 4))
print(
    "running_mean",
    layer.conv.bn.running_mean[:4].round(decimals=4).tolist(),
    "batches",
    layer.conv.bn.num_batches_tracked.item(),
)
print("n params", sum(p.numel() for p in layer.parameters()))
try:
    F.glu(torch.randn(2, 5, 3), dim=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Conv1d(16, 16, 3, groups=5)
except Exception as e:
    print(type(e).__name__, e)
