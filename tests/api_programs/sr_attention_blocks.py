"""Attention blocks of restoration networks: RCAN's channel attention (AdaptiveAvgPool2d(1) + 1x1 convs + sigmoid)
inside residual groups, CBAM's channel (avg+max pooled MLP) and spatial (mean/amax over channels) gates, PAN's pixel
attention, ECA's 1-D conv over pooled channels, non-local attention with bmm/softmax, adaptive pools with None and
tuple sizes, return_indices, the modules' reprs, and training a small RCAN for a few steps."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class CALayer(nn.Module):
    def __init__(self, ch, reduction=4):
        super().__init__()
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_du = nn.Sequential(
            nn.Conv2d(ch, ch // reduction, 1, padding=0, bias=True),
            nn.ReLU(inplace=True),
            nn.Conv2d(ch // reduction, ch, 1, padding=0, bias=True),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return x * self.conv_du(self.avg_pool(x))


class RCAB(nn.Module):
    def __init__(self, ch, res_scale=1.0):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(ch, ch, 3, 1, 1), nn.ReLU(True), nn.Conv2d(ch, ch, 3, 1, 1), CALayer(ch))
        self.res_scale = res_scale

    def forward(self, x):
        return self.body(x).mul(self.res_scale) + x


class ResidualGroup(nn.Module):
    def __init__(self, ch, n):
        super().__init__()
        self.body = nn.Sequential(*[RCAB(ch) for _ in range(n)], nn.Conv2d(ch, ch, 3, 1, 1))

    def forward(self, x):
        return self.body(x) + x


class CBAM(nn.Module):
    def __init__(self, ch, r=2, k=7):
        super().__init__()
        self.mlp = nn.Sequential(nn.Flatten(), nn.Linear(ch, ch // r), nn.ReLU(), nn.Linear(ch // r, ch))
        self.spatial = nn.Conv2d(2, 1, k, padding=k // 2, bias=False)

    def forward(self, x):
        att = self.mlp(F.adaptive_avg_pool2d(x, 1)) + self.mlp(F.adaptive_max_pool2d(x, 1))
        x = x * torch.sigmoid(att)[:, :, None, None]
        s = torch.cat([x.mean(dim=1, keepdim=True), x.amax(dim=1, keepdim=True)], dim=1)
        return x * torch.sigmoid(self.spatial(s))


class PA(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv = nn.Conv2d(ch, ch, 1)

    def forward(self, x):
        return x * torch.sigmoid(self.conv(x))


class ECA(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.conv = nn.Conv1d(1, 1, kernel_size=k, padding=(k - 1) // 2, bias=False)

    def forward(self, x):
        y = F.adaptive_avg_pool2d(x, 1)
        y = self.conv(y.squeeze(-1).transpose(-1, -2)).transpose(-1, -2).unsqueeze(-1)
        return x * y.sigmoid().expand_as(x)


class NonLocal(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.theta, self.phi, self.g = nn.Conv2d(ch, ch // 2, 1), nn.Conv2d(ch, ch // 2, 1), nn.Conv2d(ch, ch // 2, 1)
        self.out = nn.Conv2d(ch // 2, ch, 1)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x):
        n, c, h, w = x.shape
        q = self.theta(x).flatten(2).transpose(1, 2)
        k = F.max_pool2d(self.phi(x), 2).flatten(2)
        v = F.max_pool2d(self.g(x), 2).flatten(2).transpose(1, 2)
        att = torch.softmax(torch.bmm(q, k), dim=-1)
        y = torch.bmm(att, v).transpose(1, 2).reshape(n, c // 2, h, w)
        return x + self.out(y), att


x = torch.randn(2, 8, 6, 6, generator=torch.Generator().manual_seed(1))
ca = CALayer(8)
print(ca)
print("ca", tuple(ca(x).shape), round(ca(x).sum().item(), 4), round(ca.conv_du(ca.avg_pool(x)).mean().item(), 4))
cb = CBAM(8)
print("cbam", round(cb(x).abs().mean().item(), 4), tuple(cb.spatial.weight.shape))
print("pa", round(PA(8)(x).abs().mean().item(), 4), "eca", round(ECA()(x).abs().mean().item(), 4))
nl = NonLocal(8)
y, att = nl(x)
print("nonlocal", torch.equal(y, x), tuple(att.shape), round(att.sum(-1).mean().item(), 4))

for size in (1, (2, 3), (None, 2), (3, None), 4):
    a = nn.AdaptiveAvgPool2d(size)
    m = nn.AdaptiveMaxPool2d(size, return_indices=True)
    out, idx = m(x)
    print(a, tuple(a(x).shape), tuple(out.shape), idx.dtype, int(idx.max()), round(a(x).sum().item(), 4))
print("pool1d", tuple(F.adaptive_max_pool1d(x.flatten(2), 5).shape), tuple(nn.AdaptiveAvgPool3d((1, None, 2))(x).shape))
print(
    "uneven",
    F.adaptive_avg_pool1d(torch.arange(7.0).view(1, 1, 7), 3).tolist(),
    F.adaptive_max_pool1d(torch.arange(7.0).view(1, 1, 7), 3, return_indices=True)[1].tolist(),
)

model = nn.Sequential(
    nn.Conv2d(3, 8, 3, 1, 1),
    ResidualGroup(8, 2),
    ResidualGroup(8, 2),
    CBAM(8),
    nn.Conv2d(8, 12, 3, 1, 1),
    nn.PixelShuffle(2),
)
print("params", sum(p.numel() for p in model.parameters()), len([m for m in model.modules() if isinstance(m, CALayer)]))
print([n for n, _ in model.named_children()], type(model[1].body[0].body[3].conv_du[3]).__name__)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
g = torch.Generator().manual_seed(5)
hr = torch.rand(2, 3, 12, 12, generator=g)
lr_img = F.interpolate(hr, scale_factor=0.5, mode="bicubic", antialias=True)
for step in range(4):
    sr = model(lr_img) + F.interpolate(lr_img, scale_factor=2, mode="bicubic")
    loss = F.l1_loss(sr, hr)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
gates = []
h = model[1].body[0].body[3].conv_du.register_forward_hook(lambda mod, i, o: gates.append(o.detach()))
model(lr_img)
h.remove()
print("gate", tuple(gates[0].shape), round(gates[0].min().item(), 4) > 0, round(gates[0].max().item(), 4) < 1)

for bad in [
    lambda: nn.AdaptiveAvgPool2d((1, 2, 3))(x),
    lambda: F.adaptive_max_pool2d(x, 0),
    lambda: F.adaptive_avg_pool2d(x.long(), 1),
    lambda: CALayer(8)(torch.randn(2, 6, 4, 4)),
    lambda: torch.bmm(torch.randn(2, 3, 4), torch.randn(2, 5, 6)),
]:
    try:
        print("ok", tuple(bad().shape))
    except Exception as e:
        print(type(e).__name__, e)
