"""U-Net decoders compared: ConvTranspose2d with output_size, bilinear interpolate with align_corners both ways,
nn.Upsample, PixelShuffle and padding='same' convolutions; skips concatenated after F.pad on odd sizes."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def s(t):
    return round(float(t.detach().double().sum()), 4)


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding="same", bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding="same", bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.body(x)


class Up(nn.Module):
    def __init__(self, cin, cout, mode):
        super().__init__()
        self.mode = mode
        if mode == "transpose":
            self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
        elif mode == "shuffle":
            self.up = nn.Sequential(nn.Conv2d(cin, cin // 2 * 4, 1), nn.PixelShuffle(2))
        elif mode == "upsample":
            self.up = nn.Sequential(
                nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True), nn.Conv2d(cin, cin // 2, 1)
            )
        else:
            self.up = nn.Conv2d(cin, cin // 2, 1)
        self.conv = Block(cin, cout)

    def forward(self, x, skip):
        if self.mode == "interp":
            x = self.up(F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False))
        elif self.mode == "transpose":
            x = self.up(x, output_size=skip.shape[-2:])
        else:
            x = self.up(x)
        dy, dx = skip.size(2) - x.size(2), skip.size(3) - x.size(3)
        x = F.pad(x, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return self.conv(torch.cat([skip, x], dim=1))


class UNet(nn.Module):
    def __init__(self, mode, c=4, classes=3):
        super().__init__()
        self.inc = Block(1, c)
        self.d1, self.d2 = Block(c, 2 * c), Block(2 * c, 4 * c)
        self.u1, self.u2 = Up(4 * c, 2 * c, mode), Up(2 * c, c, mode)
        self.head = nn.Conv2d(c, classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.d1(F.max_pool2d(x1, 2))
        x3 = self.d2(F.max_pool2d(x2, 2))
        return self.head(self.u2(self.u1(x3, x2), x1))


x = torch.randn(2, 1, 21, 19)
for mode in ["transpose", "shuffle", "upsample", "interp"]:
    torch.manual_seed(1)
    net = UNet(mode)
    out = net(x)
    out.square().mean().backward()
    g = net.inc.body[0].weight.grad
    print(mode, tuple(out.shape), s(out), round(float(g.abs().sum()), 4), out.grad_fn.name())

img = torch.arange(16.0).reshape(1, 1, 4, 4)
for ac in (False, True):
    y = F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=ac)
    print("bilinear", ac, y[0, 0, 0].round(decimals=4).tolist())
    y = F.interpolate(img, size=(3, 5), mode="bicubic", align_corners=ac)
    print("bicubic", ac, y[0, 0, 1].round(decimals=4).tolist())
print("nearest", F.interpolate(img, size=(6, 6), mode="nearest")[0, 0, 1].tolist())
print("nearest-exact", F.interpolate(img, size=(6, 6), mode="nearest-exact")[0, 0, 1].tolist())
up = nn.Upsample(size=(5, 7), mode="bilinear")
print(up, tuple(up(img).shape))
print(nn.Upsample(scale_factor=(2.0, 3.0), mode="nearest"))

tconv = nn.ConvTranspose2d(2, 1, 3, stride=2, padding=1)
z = torch.randn(1, 2, 5, 5)
for size in [(9, 9), (10, 10), (10, 9)]:
    print("output_size", size, tuple(tconv(z, output_size=size).shape))
try:
    tconv(z, output_size=(12, 12))
except Exception as e:
    print(type(e).__name__, e)

ps, pu = nn.PixelShuffle(2), nn.PixelUnshuffle(2)
t = torch.arange(32.0).reshape(1, 8, 2, 2)
print(ps, ps(t).shape, ps(t)[0, 0].tolist())
print(torch.equal(pu(ps(t)), t))
try:
    ps(torch.randn(1, 6, 2, 2))
except Exception as e:
    print(type(e).__name__, e)

try:
    nn.Conv2d(3, 4, 3, stride=2, padding="same")
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Conv2d(3, 4, 3, padding="valid")(torch.randn(1, 3, 2, 2))
except Exception as e:
    print(type(e).__name__, e)
c = nn.Conv2d(2, 2, (3, 4), padding="same", dilation=(1, 2))
print(c, tuple(c(torch.randn(1, 2, 7, 8)).shape))
try:
    torch.cat([torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 5, 4)], dim=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.interpolate(img, scale_factor=2, mode="nearest", align_corners=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.interpolate(img, size=(4, 4), scale_factor=2)
except Exception as e:
    print(type(e).__name__, e)
