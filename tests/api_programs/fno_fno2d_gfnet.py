"""A 2-D Fourier neural operator (two corner blocks of retained modes, rfft2/irfft2 with s=) beside GFNet's global
filter layer (a real Parameter viewed as complex, rfft2 norm="ortho"), with a state_dict round trip through BytesIO,
super-resolution evaluation and the mode-truncation error."""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SpectralConv2d(nn.Module):
    def __init__(self, cin, cout, modes1, modes2):
        super().__init__()
        self.cout, self.modes1, self.modes2 = cout, modes1, modes2
        scale = 1 / (cin * cout)
        self.weights1 = nn.Parameter(scale * torch.rand(cin, cout, modes1, modes2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(scale * torch.rand(cin, cout, modes1, modes2, dtype=torch.cfloat))

    @staticmethod
    def compl_mul2d(a, w):
        return torch.einsum("bixy,ioxy->boxy", a, w)

    def forward(self, x):
        b, _, h, w = x.shape
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.cout, h, w // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, : self.modes1, : self.modes2] = self.compl_mul2d(
            x_ft[:, :, : self.modes1, : self.modes2], self.weights1
        )
        out_ft[:, :, -self.modes1 :, : self.modes2] = self.compl_mul2d(
            x_ft[:, :, -self.modes1 :, : self.modes2], self.weights2
        )
        return torch.fft.irfft2(out_ft, s=(h, w))


class GlobalFilter(nn.Module):
    def __init__(self, dim, h, w):
        super().__init__()
        self.complex_weight = nn.Parameter(torch.randn(h, w // 2 + 1, dim, 2) * 0.02)
        self.h, self.w = h, w

    def forward(self, x):
        B, N, C = x.shape
        x = x.view(B, self.h, self.w, C).to(torch.float32)
        x = torch.fft.rfft2(x, dim=(1, 2), norm="ortho")
        x = x * torch.view_as_complex(self.complex_weight)
        x = torch.fft.irfft2(x, s=(self.h, self.w), dim=(1, 2), norm="ortho")
        return x.reshape(B, N, C)


class FNO2d(nn.Module):
    def __init__(self, modes=4, width=6):
        super().__init__()
        self.lift = nn.Conv2d(3, width, 1)
        self.spec = nn.ModuleList([SpectralConv2d(width, width, modes, modes) for _ in range(2)])
        self.w = nn.ModuleList([nn.Conv2d(width, width, 1) for _ in range(2)])
        self.norm = nn.InstanceNorm2d(width)
        self.proj = nn.Sequential(nn.Conv2d(width, 16, 1), nn.GELU(), nn.Conv2d(16, 1, 1))

    def forward(self, a):
        b, _, h, w = a.shape
        gy, gx = torch.meshgrid(torch.linspace(0, 1, h), torch.linspace(0, 1, w), indexing="ij")
        grid = torch.stack([gx, gy]).expand(b, -1, -1, -1)
        x = self.lift(torch.cat([a, grid], dim=1))
        for i, (s, w_) in enumerate(zip(self.spec, self.w)):
            x = self.norm(s(x)) + w_(x)
            x = F.gelu(x) if i == 0 else x
        return self.proj(x)


model = FNO2d()
print(model)
print("params", sum(p.numel() for p in model.parameters()), [n for n, p in model.named_parameters() if p.is_complex()])
a = torch.stack(
    [
        torch.sin(torch.linspace(0, 3.14 * k, 16))[:, None] * torch.cos(torch.linspace(0, 6.28, 16))[None]
        for k in range(1, 4)
    ]
).unsqueeze(1)
u = torch.roll(a, shifts=2, dims=-1) * 0.5
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
for step in range(5):
    opt.zero_grad(set_to_none=True)
    out = model(a)
    loss = torch.linalg.vector_norm(out - u, dim=(-2, -1)).div(torch.linalg.vector_norm(u, dim=(-2, -1))).mean()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    print("step", step, round(loss.item(), 4), round(gn.item(), 4), round(sched.get_last_lr()[0], 6))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, weights_only=True)
clone = FNO2d()
print("load", clone.load_state_dict(sd), sd["spec.0.weights1"].dtype, tuple(sd["spec.0.weights1"].shape))
with torch.no_grad():
    print("same", torch.allclose(clone(a), model(a)))
    a_hi = F.interpolate(a, size=(32, 32), mode="bicubic", align_corners=True)
    print("superres", tuple(model(a_hi).shape), round(model(a_hi).mean().item(), 4))

gf = GlobalFilter(dim=4, h=6, w=8)
tokens = torch.randn(2, 48, 4, requires_grad=True)
y = gf(tokens)
y.square().mean().backward()
print(
    "gfnet",
    tuple(y.shape),
    round(y.std().item(), 4),
    tuple(gf.complex_weight.grad.shape),
    round(gf.complex_weight.grad.abs().sum().item(), 4),
    round(tokens.grad.abs().sum().item(), 4),
)
ident = GlobalFilter(dim=4, h=6, w=8)
with torch.no_grad():
    ident.complex_weight.zero_()
    ident.complex_weight[..., 0] = 1.0
print("identity filter", torch.allclose(ident(tokens), tokens, atol=1e-5))

x = torch.randn(1, 1, 16, 16)
spec = SpectralConv2d(1, 1, 16, 9)
with torch.no_grad():
    spec.weights1.fill_(1.0)
    spec.weights2.fill_(0.0)
print("all modes", round((spec(x) - x).abs().max().item(), 4) > 0.1, tuple(spec(x).shape))
for modes in (1, 2, 4, 8):
    xf = torch.fft.rfft2(x)
    keep = torch.zeros_like(xf)
    keep[..., :modes, :modes] = xf[..., :modes, :modes]
    keep[..., -modes:, :modes] = xf[..., -modes:, :modes]
    rec = torch.fft.irfft2(keep, s=x.shape[-2:])
    print("modes", modes, round((rec - x).pow(2).mean().item(), 4))
try:
    torch.einsum("bixy,ioxy->boxy", torch.fft.rfft2(x), spec.weights1[:, :, :3])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.irfft2(torch.fft.rfft2(x), s=(16,))
except Exception as e:
    print(type(e).__name__, e)
