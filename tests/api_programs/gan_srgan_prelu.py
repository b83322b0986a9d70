"""SRGAN/ESRGAN-style training pieces: a PReLU residual generator with PixelShuffle upsampling, a content loss on
frozen features, a relativistic discriminator, and regularisers that differentiate twice through PReLU (R1 on the
input, a Jacobian-norm penalty on the generator), with PReLU's parameter handling and errors."""

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)


class ResidualBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, 1, 1)
        self.bn1 = nn.BatchNorm2d(c)
        self.prelu = nn.PReLU()
        self.conv2 = nn.Conv2d(c, c, 3, 1, 1)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return x + self.bn2(self.conv2(self.prelu(self.bn1(self.conv1(x)))))


class UpsampleBlock(nn.Module):
    def __init__(self, c, scale):
        super().__init__()
        self.conv = nn.Conv2d(c, c * scale**2, 3, 1, 1)
        self.ps = nn.PixelShuffle(scale)
        self.prelu = nn.PReLU(c)

    def forward(self, x):
        return self.prelu(self.ps(self.conv(x)))


class Generator(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(3, c, 5, 1, 2), nn.PReLU(init=0.2))
        self.body = nn.Sequential(ResidualBlock(c), ResidualBlock(c))
        self.up = UpsampleBlock(c, 2)
        self.tail = nn.Conv2d(c, 3, 5, 1, 2)

    def forward(self, x):
        h = self.head(x)
        return torch.tanh(self.tail(self.up(self.body(h) + h)))


G = Generator()
print(G.head[1], G.up.prelu, G.up.ps)
print(
    "prelu params",
    [
        (n, tuple(p.shape), round(p.sum().item(), 4))
        for n, p in G.named_parameters()
        if "prelu" in n or n == "head.1.weight"
    ],
)
lr = torch.rand(2, 3, 6, 6) * 2 - 1
hr = torch.rand(2, 3, 12, 12) * 2 - 1
sr = G(lr)
print("sr", tuple(sr.shape), sr.grad_fn.name(), round(sr.mean().item(), 4))
print("prelu grad_fn", G.head[1](torch.randn(1, 4, 2, 2, requires_grad=True)).grad_fn.name())
print("functional prelu", F.prelu(torch.tensor([[-2.0, 3.0], [-1.0, -4.0]]), torch.tensor([0.1, 0.5])).tolist())
print("negative zero", [str(v) for v in F.prelu(torch.tensor([-0.0, 0.0]), torch.tensor([0.5])).tolist()])

# Content loss on a frozen feature extractor.
features = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2)).requires_grad_(False).eval()
content = F.mse_loss(features(sr), features(hr))
print("content", round(content.item(), 4), features[0].weight.grad is None)

D = nn.Sequential(
    nn.Conv2d(3, 8, 3, 2, 1), nn.PReLU(8), nn.Conv2d(8, 8, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(72, 1)
)
real_out, fake_out = D(hr), D(sr.detach())
loss_D = (
    F.binary_cross_entropy_with_logits(real_out - fake_out.mean(), torch.ones_like(real_out))
    + F.binary_cross_entropy_with_logits(fake_out - real_out.mean(), torch.zeros_like(fake_out))
) / 2
print("RaD", round(loss_D.item(), 4))

# R1 on real images through the PReLU discriminator: the penalty reaches the input and every D parameter.
x = hr.clone().requires_grad_(True)
(g,) = torch.autograd.grad(D(x).sum(), x, create_graph=True)
r1 = g.square().sum(dim=[1, 2, 3]).mean()
print("r1", round(r1.item(), 6), g.requires_grad)
grads = torch.autograd.grad(r1, [x] + list(D.parameters()), allow_unused=True)
print("r1 reaches", [q is not None for q in grads])
print("prelu slope grad", grads[3].abs().sum().item() > 0, tuple(grads[3].shape))

# A fixed-slope PReLU (frozen): the penalty still depends on the input.
D[1].weight.requires_grad_(False)
(g2,) = torch.autograd.grad(D[1](x[:, :1].expand(-1, 8, -1, -1)).sum(), x, create_graph=True)
print("frozen slope", g2.requires_grad)
(h,) = torch.autograd.grad(g2.square().sum(), x)
print("second derivative", h.abs().sum().item(), tuple(h.shape))
D[1].weight.requires_grad_(True)

# Jacobian-norm penalty on the generator (path length with respect to the LR input).
lr_in = lr.clone().requires_grad_(True)
noise = torch.randn(2, 3, 12, 12) / 12
(gz,) = torch.autograd.grad((G(lr_in) * noise).sum(), lr_in, create_graph=True)
pl = gz.square().sum(dim=[1, 2, 3]).sqrt()
print("pl lengths", pl.round(decimals=4).tolist())
pl.mean().backward()
print("G grads", sum(p.grad is not None for p in G.parameters()), len(list(G.parameters())))
print("head slope grad", round(G.head[1].weight.grad.item(), 6) != 0.0)

try:
    nn.PReLU(3)(torch.randn(2, 4, 5))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.prelu(torch.tensor([1, -2]), torch.tensor([0.5]))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.PixelShuffle(2)(torch.randn(1, 3, 4, 4))
except Exception as e:
    print(type(e).__name__, e)
