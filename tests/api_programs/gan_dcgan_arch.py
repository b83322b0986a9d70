"""DCGAN generator/discriminator as papers' repos write them: weights_init by class name, ConvTranspose2d with
output_padding and output_size, BatchNorm2d statistics, LeakyReLU inplace, Tanh, and the shape errors."""

import torch
import torch.nn as nn

torch.manual_seed(0)
nz, ngf, ndf, nc = 16, 8, 8, 3


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 3, 2, 1, output_padding=1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, 1, 4, 1, 0, bias=False),
        )

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


netG, netD = Generator(), Discriminator()
netG.apply(weights_init)
netD.apply(weights_init)
print(netG)
print(netD.main[1], netD.main[3])
print("G params", sum(p.numel() for p in netG.parameters()), "D params", sum(p.numel() for p in netD.parameters()))
print([n for n, _ in netG.named_buffers()][:3])

z = torch.randn(4, nz, 1, 1)
fake = netG(z)
print("fake", tuple(fake.shape), fake.dtype, fake.grad_fn.name(), round(fake.abs().max().item(), 4) <= 1.0)
print("fake stats", round(fake.mean().item(), 4), round(fake.std().item(), 4))
out = netD(fake)
print("D out", tuple(out.shape), out.grad_fn.name(), [round(v, 4) for v in out.tolist()])
bn = netG.main[1]
print("bn running_mean", bn.running_mean[:4].round(decimals=4).tolist(), bn.num_batches_tracked.item())
print("bn running_var", bn.running_var[:4].round(decimals=4).tolist())

# ConvTranspose2d output_size picks output_padding for the caller.
up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
x = torch.randn(1, 4, 5, 5)
print("no output_size", tuple(up(x).shape))
print("output_size 10", tuple(up(x, output_size=[10, 10]).shape))
print("output_size full", tuple(up(x, output_size=(1, 2, 10, 9)).shape))
try:
    up(x, output_size=(12, 12))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=2)(x)
except Exception as e:
    print(type(e).__name__, e)
try:
    netD(torch.randn(2, 3, 16, 16))
except Exception as e:
    print(type(e).__name__, e)
try:
    netG(torch.randn(4, nz))
except Exception as e:
    print(type(e).__name__, e)

netG.eval()
with torch.no_grad():
    e1 = netG(z)
print("eval fake", round(e1.sum().item(), 4), e1.requires_grad)
print("output_padding attr", netG.main[6].output_padding, netG.main[6].padding, netG.main[6].kernel_size)
print("weight shape", tuple(netG.main[0].weight.shape), "std", round(netG.main[0].weight.std().item(), 4))
