"""DeepLabV3+ pieces: atrous separable convolutions with dilation, an ASPP with image pooling by
AdaptiveAvgPool2d(1) and expand, GroupNorm heads, output-stride bookkeeping and the low-level decoder fusion."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def s(t):
    return round(float(t.detach().double().sum()), 4)


class SepConv(nn.Sequential):
    def __init__(self, cin, cout, dilation):
        super().__init__(
            nn.Conv2d(cin, cin, 3, padding=dilation, dilation=dilation, groups=cin, bias=False),
            nn.Conv2d(cin, cout, 1, bias=False),
            nn.GroupNorm(2, cout),
            nn.ReLU(),
        )


class ASPPPooling(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.GroupNorm(2, cout), nn.ReLU())

    def forward(self, x):
        y = self.proj(self.pool(x))
        return y.expand(-1, -1, *x.shape[-2:])


class ASPP(nn.Module):
    def __init__(self, cin, cout, rates=(1, 2, 3)):
        super().__init__()
        branches = [nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.GroupNorm(2, cout), nn.ReLU())]
        branches += [SepConv(cin, cout, r) for r in rates]
        branches.append(ASPPPooling(cin, cout))
        self.branches = nn.ModuleList(branches)
        self.project = nn.Sequential(
            nn.Conv2d(cout * len(branches), cout, 1, bias=False), nn.GroupNorm(2, cout), nn.ReLU(), nn.Dropout(0.5)
        )

    def forward(self, x):
        return self.project(torch.cat([b(x) for b in self.branches], dim=1))


class DeepLabV3Plus(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU())
        self.layer = nn.Sequential(
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.ReLU()
        )
        self.aspp = ASPP(16, 8)
        self.low = nn.Sequential(nn.Conv2d(8, 4, 1, bias=False), nn.GroupNorm(1, 4), nn.ReLU())
        self.head = nn.Sequential(SepConv(12, 8, 1), nn.Conv2d(8, classes, 1))

    def forward(self, x):
        low = self.stem(x)
        high = self.aspp(self.layer(low))
        high = F.interpolate(high, size=low.shape[-2:], mode="bilinear", align_corners=False)
        out = self.head(torch.cat([high, self.low(low)], dim=1))
        return F.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)


net = DeepLabV3Plus().eval()
x = torch.randn(2, 3, 33, 29)
with torch.no_grad():
    y = net(x)
print(tuple(y.shape), s(y), y.dtype)
print("pool branch", net.aspp.branches[-1](torch.randn(1, 16, 5, 6)).stride())
print("argmax counts", torch.bincount(y.argmax(1).flatten(), minlength=5).tolist())
net.train()
torch.manual_seed(3)
y = net(x)
loss = F.cross_entropy(y, torch.randint(0, 5, (2, 33, 29)))
loss.backward()
print("train loss", round(loss.item(), 4), y.grad_fn.name())
print("gn grad", net.aspp.project[1].weight.grad.round(decimals=4).tolist())
n_params = sum(p.numel() for p in net.parameters())
n_dw = sum(m.weight.numel() for m in net.modules() if isinstance(m, nn.Conv2d) and m.groups > 1)
print("params", n_params, "depthwise", n_dw)

inp = torch.zeros(1, 1, 9, 9)
inp[0, 0, 4, 4] = 1.0
for d in (1, 2, 3):
    w = torch.ones(1, 1, 3, 3)
    out = F.conv2d(inp, w, padding=d, dilation=d)
    print("dilation", d, out.nonzero()[:, 2:].tolist()[:4], tuple(out.shape))
out = F.conv2d(inp, torch.ones(1, 1, 3, 3), padding="same", dilation=(2, 3))
print("same dil", tuple(out.shape), out.nonzero()[:, 3].unique().tolist())

gn = nn.GroupNorm(4, 8, eps=1e-3, affine=False)
z = torch.arange(2 * 8 * 3 * 3, dtype=torch.float32).reshape(2, 8, 3, 3)
print(gn, s(gn(z).abs()), gn(z)[0, :, 0, 0].round(decimals=4).tolist())
r = F.group_norm(z, 2, weight=torch.linspace(0.5, 2, 8), bias=torch.zeros(8))
print("F.group_norm", r[1, :, 1, 1].round(decimals=4).tolist())
try:
    nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.GroupNorm(16, 16))(torch.randn(1, 16, 5, 5))
except Exception as e:
    print(type(e).__name__, e)
print("gn(1) pooled", tuple(nn.GroupNorm(1, 16)(torch.randn(1, 16, 1, 1)).shape))
try:
    nn.GroupNorm(3, 8)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.group_norm(z, 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Conv2d(6, 4, 3, groups=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.conv2d(torch.randn(1, 6, 5, 5), torch.randn(4, 3, 3, 3), groups=3)
except Exception as e:
    print(type(e).__name__, e)
p = nn.AdaptiveAvgPool2d((1, None))
print(p, tuple(p(torch.randn(1, 2, 5, 7)).shape))
print(nn.AdaptiveAvgPool2d(1)(z)[0, :3].flatten().tolist())
try:
    torch.randn(1, 8, 1, 1).expand(2, 8, 4, 4)
except Exception as e:
    print(type(e).__name__, e)
