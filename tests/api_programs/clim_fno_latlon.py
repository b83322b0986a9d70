"""FNO on a lat-lon grid: SpectralConv2d keeping low modes (corners of rfft2), circular padding in longitude and
replicate/reflect in latitude, pole flipping with roll, resolution-invariant evaluation, and complex weight grads."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpectralConv2d(nn.Module):
    def __init__(self, cin, cout, m1, m2):
        super().__init__()
        self.m1, self.m2 = m1, m2
        scale = 1 / (cin * cout)
        self.weights1 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat))

    def forward(self, x):
        b = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.weights1.shape[1], x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, : self.m1, : self.m2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, : self.m1, : self.m2], self.weights1
        )
        out_ft[:, :, -self.m1 :, : self.m2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, -self.m1 :, : self.m2], self.weights2
        )
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


class FNOLatLon(nn.Module):
    def __init__(self, c=2, width=6, modes=(3, 3)):
        super().__init__()
        self.lift = nn.Conv2d(c + 2, width, 1)
        self.spec = SpectralConv2d(width, width, *modes)
        self.w = nn.Conv2d(width, width, 3, padding=0)
        self.proj = nn.Sequential(nn.Conv2d(width, 8, 1), nn.GELU(), nn.Conv2d(8, c, 1))

    def forward(self, x):
        b, _, h, w = x.shape
        lat = torch.linspace(-1, 1, h).view(1, 1, h, 1).expand(b, 1, h, w)
        lon = torch.sin(torch.linspace(0, 2 * torch.pi, w + 1)[:-1]).view(1, 1, 1, w).expand(b, 1, h, w)
        x = self.lift(torch.cat([x, lat, lon], dim=1))
        pad = F.pad(x, (1, 1, 0, 0), mode="circular")
        pad = F.pad(pad, (0, 0, 1, 1), mode="replicate")
        x = F.gelu(self.spec(x) + self.w(pad))
        return self.proj(x)


torch.manual_seed(0)
torch.set_printoptions(precision=4)
model = FNOLatLon()
print(model)
print("complex params", [(n, p.dtype, p.is_complex()) for n, p in model.named_parameters() if p.is_complex()])
x = torch.randn(2, 2, 8, 16)
y = model(x)
print("out", tuple(y.shape), round(y.mean().item(), 4), round(y.std().item(), 4))
y2 = model(torch.randn(1, 2, 12, 24))
print("other resolution", tuple(y2.shape))
loss = F.mse_loss(y, x)
loss.backward()
g = model.spec.weights1.grad
print("wgrad", g.dtype, g.shape, round(g.abs().sum().item(), 4), round(g.real.sum().item(), 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(model(x), x)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
st = opt.state[model.spec.weights1]
print("adam state", st["exp_avg"].dtype, st["exp_avg_sq"].dtype, round(st["exp_avg_sq"].abs().sum().item(), 6))

# periodic longitude padding vs roll
f = torch.arange(12.0).view(1, 1, 2, 6)
print("circular", F.pad(f, (2, 2, 0, 0), mode="circular")[0, 0])
print("roll", torch.roll(f, shifts=3, dims=-1)[0, 0], torch.roll(f, shifts=(1, -2), dims=(-2, -1))[0, 0])
print("reflect lat", F.pad(f, (0, 0, 1, 1), mode="reflect")[0, 0, :, 0])
# across-pole continuation: flip latitude, shift longitude by 180 degrees
pole = torch.roll(torch.flip(f, dims=[-2]), shifts=f.shape[-1] // 2, dims=-1)
print("pole", pole[0, 0])
print("cat pole", torch.cat([pole[..., -1:, :], f, pole[..., :1, :]], dim=-2).shape)
try:
    F.pad(f, (7, 7, 0, 0), mode="circular")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.pad(f, (0, 0, 2, 2), mode="reflect")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.pad(f, (2, 2), mode="circular")
except NotImplementedError as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    F.pad(f[0, 0], (1, 1, 1, 1, 1, 1), mode="replicate")
except (RuntimeError, NotImplementedError) as e:
    print(type(e).__name__, e)
try:
    torch.einsum("bixy,ioxy->boxy", torch.randn(1, 2, 3, 3, dtype=torch.cfloat), torch.randn(2, 2, 3, 3))
except RuntimeError as e:
    print(type(e).__name__, e)
