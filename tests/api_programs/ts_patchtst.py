"""Patch- and pooling-based forecasters: PatchTST (RevIN, ReplicationPad1d at the end, patches by unfold,
channel independence by folding channels into the batch, a batch_first TransformerEncoder with BatchNorm-free
pre-norm layers in eval mode, a Flatten head), N-HiTS blocks (MaxPool1d with ceil_mode, coefficients
interpolated back to the horizon with linear and nearest modes), and LSTNet (Conv2d over the window, GRU, a skip
GRU over periodic slices, and the autoregressive highway)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def det_(module, scale=0.2):
    with torch.no_grad():
        for i, (n, p) in enumerate(module.named_parameters()):
            if "norm" in n and n.endswith("weight"):
                p.fill_(1.0)
            else:
                p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.47 + i).view_as(p) * scale)
    return module


B, C, L, H = 2, 3, 32, 8
t = torch.arange(L, dtype=torch.float32)
x = torch.stack([torch.sin(2 * math.pi * t / 8), torch.cos(2 * math.pi * t / 16) + 0.05 * t,
                 torch.sign(torch.sin(t / 3)) * 0.5], -1).unsqueeze(0).repeat(B, 1, 1)
x[1] = 2 * x[1] + 1


class PatchTST(nn.Module):
    def __init__(self, patch_len=8, stride=4, d_model=16, heads=2):
        super().__init__()
        self.patch_len, self.stride = patch_len, stride
        self.pad = nn.ReplicationPad1d((0, stride))
        self.n_patches = (L - patch_len) // stride + 2
        self.proj = nn.Linear(patch_len, d_model)
        self.pos = nn.Parameter(torch.zeros(1, self.n_patches, d_model))
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=32, dropout=0.1, batch_first=True,
                                           norm_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Sequential(nn.Flatten(start_dim=-2), nn.Linear(self.n_patches * d_model, H))

    def forward(self, x):
        mean = x.mean(1, keepdim=True).detach()
        std = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + 1e-5).detach()
        z = ((x - mean) / std).permute(0, 2, 1)
        z = self.pad(z)
        patches = z.unfold(dimension=-1, size=self.patch_len, step=self.stride)
        b, c, n, p = patches.shape
        u = self.proj(patches.reshape(b * c, n, p)) + self.pos
        h = self.encoder(u)
        out = self.head(h.reshape(b, c, n, -1)).permute(0, 2, 1)
        return out * std + mean, patches


model = det_(PatchTST()).eval()
print("n_patches", model.n_patches, "pad", model.pad)
y, patches = model(x)
print("patches", tuple(patches.shape), patches[0, 0, -1], "forecast", tuple(y.shape))
print(y[1, :, 0])
print("layer", model.encoder.layers[0].norm_first, model.encoder.layers[0].activation_relu_or_gelu,
      model.encoder.layers[0].activation is F.gelu)
print("channel independent", torch.allclose(model(x[:, :, :1])[0], y[:, :, :1], atol=1e-5))
print("scale equivariant", torch.allclose(model(3 * x + 2)[0], 3 * y + 2, atol=1e-4))
model.train()
torch.manual_seed(0)
print("train mode differs (dropout)", not torch.allclose(model(x)[0], y))


class NHiTSBlock(nn.Module):
    def __init__(self, pool, n_coef, mode):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size=pool, stride=pool, ceil_mode=True)
        n_in = math.ceil(L / pool)
        self.mlp = nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, L + n_coef))
        self.n_coef, self.mode = n_coef, mode

    def forward(self, y):
        pooled = self.pool(y.unsqueeze(1)).squeeze(1)
        theta = self.mlp(pooled)
        backcast, coef = theta[:, :L], theta[:, L:]
        kw = {"align_corners": False} if self.mode == "linear" else {}
        forecast = F.interpolate(coef.unsqueeze(1), size=H, mode=self.mode, **kw).squeeze(1)
        return backcast, forecast, pooled


blocks = nn.ModuleList([det_(NHiTSBlock(5, 2, "linear")), det_(NHiTSBlock(3, 4, "nearest")),
                        det_(NHiTSBlock(1, 8, "linear"))])
res = x[..., 0]
total = 0
for blk in blocks:
    bc, fc, pooled = blk(res)
    print("nhits block pooled", tuple(pooled.shape), "coef", blk.n_coef, "forecast", fc[0, :4])
    res = res - bc
    total = total + fc
print("nhits", tuple(total.shape), total[1])
print("interp nearest", F.interpolate(torch.arange(4.0).view(1, 1, 4), size=8, mode="nearest"))
print("interp linear", F.interpolate(torch.tensor([[[0.0, 2.0]]]), size=5, mode="linear", align_corners=False))


class LSTNet(nn.Module):
    def __init__(self, hid_cnn=6, hid_rnn=5, hid_skip=3, ck=4, skip=8, hw=4):
        super().__init__()
        self.ck, self.skip, self.hw, self.hid_skip = ck, skip, hw, hid_skip
        self.pt = (L - ck) // skip
        self.conv1 = nn.Conv2d(1, hid_cnn, kernel_size=(ck, C))
        self.GRU1 = nn.GRU(hid_cnn, hid_rnn)
        self.GRUskip = nn.GRU(hid_cnn, hid_skip)
        self.linear1 = nn.Linear(hid_rnn + skip * hid_skip, C)
        self.highway = nn.Linear(hw, 1)

    def forward(self, x):
        batch = x.size(0)
        c = F.relu(self.conv1(x.view(-1, 1, L, C)))
        c = torch.squeeze(c, 3)
        r = c.permute(2, 0, 1).contiguous()
        _, r = self.GRU1(r)
        r = torch.squeeze(r, 0)
        s = c[:, :, int(-self.pt * self.skip):].contiguous()
        s = s.view(batch, c.size(1), self.pt, self.skip).permute(2, 0, 3, 1).contiguous()
        s = s.view(self.pt, batch * self.skip, c.size(1))
        _, s = self.GRUskip(s)
        s = s.view(batch, self.skip * self.hid_skip)
        res = self.linear1(torch.cat((r, s), 1))
        z = x[:, -self.hw:, :].permute(0, 2, 1).contiguous().view(-1, self.hw)
        z = self.highway(z).view(-1, C)
        return res + z


lst = det_(LSTNet())
out = lst(x)
print("lstnet pt", lst.pt, "out", out)
print("gru params", [n for n, _ in lst.GRU1.named_parameters()], lst.GRU1)
loss = F.l1_loss(out, x[:, -1])
loss.backward()
print("lstnet loss", round(loss.item(), 4), "highway grad", lst.highway.weight.grad)
