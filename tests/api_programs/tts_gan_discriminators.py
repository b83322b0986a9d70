"""HiFi-GAN's discriminators and losses: a multi-period discriminator that reflect-pads audio to a multiple of the
period and reshapes it to 2-D, a multi-scale one with AvgPool1d(4, 2, padding=2) and spectral_norm on its first
scale, feature-matching L1 over every layer, and least-squares generator/discriminator losses."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import spectral_norm, weight_norm

torch.manual_seed(8)
torch.set_printoptions(precision=4, sci_mode=False)


class DiscriminatorP(nn.Module):
    def __init__(self, period):
        super().__init__()
        self.period = period
        self.convs = nn.ModuleList(
            [
                weight_norm(nn.Conv2d(1, 4, (5, 1), (3, 1), padding=(2, 0))),
                weight_norm(nn.Conv2d(4, 8, (5, 1), (3, 1), padding=(2, 0))),
            ]
        )
        self.conv_post = weight_norm(nn.Conv2d(8, 1, (3, 1), 1, padding=(1, 0)))

    def forward(self, x):
        fmap = []
        b, c, t = x.shape
        if t % self.period != 0:
            n_pad = self.period - (t % self.period)
            x = F.pad(x, (0, n_pad), "reflect")
            t = t + n_pad
        x = x.view(b, c, t // self.period, self.period)
        for layer in self.convs:
            x = F.leaky_relu(layer(x), 0.1)
            fmap.append(x)
        x = self.conv_post(x)
        fmap.append(x)
        return torch.flatten(x, 1, -1), fmap


class DiscriminatorS(nn.Module):
    def __init__(self, use_spectral_norm=False):
        super().__init__()
        norm_f = spectral_norm if use_spectral_norm else weight_norm
        self.convs = nn.ModuleList(
            [
                norm_f(nn.Conv1d(1, 4, 15, 1, padding=7)),
                norm_f(nn.Conv1d(4, 8, 41, 2, groups=4, padding=20)),
            ]
        )
        self.conv_post = norm_f(nn.Conv1d(8, 1, 3, 1, padding=1))

    def forward(self, x):
        fmap = []
        for layer in self.convs:
            x = F.leaky_relu(layer(x), 0.1)
            fmap.append(x)
        x = self.conv_post(x)
        fmap.append(x)
        return torch.flatten(x, 1, -1), fmap


class MSD(nn.Module):
    def __init__(self):
        super().__init__()
        self.discriminators = nn.ModuleList([DiscriminatorS(True), DiscriminatorS(), DiscriminatorS()])
        self.meanpools = nn.ModuleList([nn.AvgPool1d(4, 2, padding=2), nn.AvgPool1d(4, 2, padding=2)])

    def forward(self, y, y_hat):
        outs = []
        for i, d in enumerate(self.discriminators):
            if i != 0:
                y, y_hat = self.meanpools[i - 1](y), self.meanpools[i - 1](y_hat)
            outs.append((*d(y), *d(y_hat)))
        return outs


def feature_loss(fmap_r, fmap_g):
    loss = 0
    for dr, dg in zip(fmap_r, fmap_g):
        for rl, gl in zip(dr, dg):
            loss += torch.mean(torch.abs(rl - gl))
    return loss * 2


def discriminator_loss(real, gen):
    loss, r_losses, g_losses = 0, [], []
    for dr, dg in zip(real, gen):
        r_loss, g_loss = torch.mean((1 - dr) ** 2), torch.mean(dg**2)
        loss += r_loss + g_loss
        r_losses.append(r_loss.item())
        g_losses.append(g_loss.item())
    return loss, r_losses, g_losses


y = torch.randn(2, 1, 50)
y_hat = torch.randn(2, 1, 50, requires_grad=True)
mpd = nn.ModuleList(DiscriminatorP(p) for p in (2, 3, 7))
res = [(*d(y), *d(y_hat)) for d in mpd]
for p, (r, fr, g, fg) in zip((2, 3, 7), res):
    print(p, r.shape, [tuple(f.shape) for f in fr])
msd = MSD()
print(msd.meanpools[0], [tuple(o[0].shape) for o in msd(y, y_hat)])
print(nn.AvgPool1d(4, 2, padding=2)(torch.arange(7.0).view(1, 1, 7)))
print(nn.AvgPool1d(4, 2, padding=2, count_include_pad=False, ceil_mode=True)(torch.arange(7.0).view(1, 1, 7)))
outs = res + msd(y, y_hat)
loss_d, rl, gl = discriminator_loss([o[0] for o in outs], [o[2].detach() for o in outs])
print(round(loss_d.item(), 4), [round(v, 4) for v in rl])
loss_fm = feature_loss([o[1] for o in outs], [o[3] for o in outs])
loss_gen = sum(torch.mean((1 - o[2]) ** 2) for o in outs)
(loss_fm + loss_gen).backward()
print(round(loss_fm.item(), 4), round(loss_gen.item(), 4), round(y_hat.grad.norm().item(), 4))
sn = msd.discriminators[0].convs[0]
print(sorted(k for k in sn.state_dict()), sn.weight_u.shape, sn.weight_v.shape)
print(sorted(k for k, _ in sn.named_parameters()), sorted(k for k, _ in sn.named_buffers()))
sigma = torch.dot(sn.weight_u, torch.mv(sn.weight_orig.view(4, -1), sn.weight_v))
print(round(torch.linalg.matrix_norm(sn.weight.view(4, -1).detach(), 2).item(), 3), round(sigma.item(), 3))
try:
    DiscriminatorP(2)(torch.randn(2, 1, 1))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    x = torch.randn(2, 1, 49).transpose(1, 2).transpose(1, 2)
    x[..., :48].view(2, 1, 24, 2).shape
    torch.randn(2, 3, 50).transpose(1, 2).view(2, 3, 25, 2)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    nn.AvgPool1d(4, 2, padding=3)(y)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    nn.AvgPool1d(4)(torch.randn(2, 1, 3))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    spectral_norm(spectral_norm(nn.Linear(2, 2)))
except RuntimeError as e:
    print(type(e).__name__, e)
