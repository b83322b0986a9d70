"""Context modules of modern segmenters: PSPNet's pyramid pooling with AdaptiveAvgPool2d bins (1, 2, 3, 6) over
non-divisible maps, SegFormer's overlapping patch embedding, efficient self-attention with spatial reduction,
Mix-FFN with a depthwise 3x3, the all-MLP decoder, and adaptive max/avg pooling details."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def s(t):
    return round(float(t.detach().double().sum()), 4)


class PPM(nn.Module):
    def __init__(self, cin, bins=(1, 2, 3, 6)):
        super().__init__()
        self.stages = nn.ModuleList(
            nn.Sequential(
                nn.AdaptiveAvgPool2d(b), nn.Conv2d(cin, cin // 4, 1, bias=False), nn.BatchNorm2d(cin // 4), nn.ReLU()
            )
            for b in bins
        )

    def forward(self, x):
        h, w = x.shape[-2:]
        return torch.cat(
            [x] + [F.interpolate(st(x), (h, w), mode="bilinear", align_corners=True) for st in self.stages], 1
        )


ppm = PPM(8).eval()
feat = torch.randn(2, 8, 11, 13)
with torch.no_grad():
    out = ppm(feat)
print("ppm", tuple(out.shape), s(out))
for b in [1, 2, 3, 6, (4, 5)]:
    p = F.adaptive_avg_pool2d(feat, b)
    print("adaptive avg", b, tuple(p.shape), s(p))
mx, idx = F.adaptive_max_pool2d(feat, 3, return_indices=True)
print("adaptive max", s(mx), idx[0, 0].tolist(), idx.dtype)
print(nn.AdaptiveMaxPool2d((2, None), return_indices=False)(feat).shape)
p1 = F.adaptive_avg_pool1d(torch.arange(7.0).view(1, 1, 7), 3)
print("1d bins", p1.flatten().round(decimals=4).tolist())


class EfficientAttention(nn.Module):
    def __init__(self, dim, heads, sr):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, dim * 2)
        self.proj = nn.Linear(dim, dim)
        self.sr = nn.Conv2d(dim, dim, sr, stride=sr)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, h, w):
        b, n, c = x.shape
        q = self.q(x).reshape(b, n, self.heads, c // self.heads).permute(0, 2, 1, 3)
        xr = self.sr(x.transpose(1, 2).reshape(b, c, h, w)).flatten(2).transpose(1, 2)
        kv = self.kv(self.norm(xr)).reshape(b, -1, 2, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        k, v = kv.unbind(0)
        attn = (q @ k.transpose(-2, -1) * self.scale).softmax(-1)
        ref = F.scaled_dot_product_attention(q, k, v)
        y = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj(y), (ref - attn @ v).abs().max()


class MixFFN(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.dw = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x, h, w):
        x = self.fc1(x)
        b, n, c = x.shape
        x = self.dw(x.transpose(1, 2).view(b, c, h, w)).flatten(2).transpose(1, 2)
        return self.fc2(F.gelu(x, approximate="none"))


embed = nn.Conv2d(3, 16, 7, stride=4, padding=3)
img = torch.randn(2, 3, 32, 24)
t = embed(img)
H, W = t.shape[-2:]
tok = t.flatten(2).transpose(1, 2)
print("patch embed", tuple(t.shape), tok.is_contiguous(), tuple(tok.stride()))
att = EfficientAttention(16, 2, 2)
ffn = MixFFN(16, 32)
ln1, ln2 = nn.LayerNorm(16), nn.LayerNorm(16)
a, err = att(ln1(tok), H, W)
tok = tok + a
tok = tok + ffn(ln2(tok), H, W)
print("block", tuple(tok.shape), s(tok), "sdpa agrees", err.item() < 1e-5)
stage = tok.transpose(1, 2).reshape(2, 16, H, W)
feats = [stage, F.max_pool2d(stage, 2), F.avg_pool2d(stage, 2, ceil_mode=True, count_include_pad=False)]
print("pyramid", [tuple(f.shape) for f in feats])
lin = nn.ModuleList(nn.Conv2d(16, 8, 1) for _ in feats)
fused = torch.cat(
    [F.interpolate(l(f), size=(H, W), mode="bilinear", align_corners=False) for l, f in zip(lin, feats)], 1
)
logits = nn.Conv2d(24, 5, 1)(fused)
up = F.interpolate(logits, scale_factor=4, mode="bilinear", align_corners=False)
print("decoder", tuple(up.shape), s(up))
up.mean().backward()
print("grads", round(embed.weight.grad.abs().sum().item(), 4), round(att.sr.weight.grad.abs().sum().item(), 4))
print(att.norm, ffn.dw)

for bad in [
    lambda: F.adaptive_avg_pool2d(feat, (0, 2)),
    lambda: F.adaptive_avg_pool2d(feat, (2, 2, 2)),
    lambda: F.adaptive_max_pool2d(torch.randn(2, 0, 4), 2),
    lambda: att(tok, H + 1, W),
    lambda: nn.LayerNorm(16)(torch.randn(2, 3, 15)),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
