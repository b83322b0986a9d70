"""GAN training tricks from their papers on a toy generator/discriminator: the non-saturating, LSGAN (Mao et al.
2017), hinge (Lim & Ye 2017) and relativistic average (Jolicoeur-Martineau 2019) losses; ProGAN's equalized
learning rate as a parametrization, pixel norm and minibatch standard deviation (Karras et al. 2018); TTUR (Heusel
et al. 2017); and the generator EMA through swa_utils.AveragedModel with get_ema_multi_avg_fn."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils import parametrize
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

rng = np.random.default_rng(2018)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


class EqualLR(nn.Module):
    """w_hat = w * sqrt(2 / fan_in): weights stored N(0, 1), scaled at every use."""

    def __init__(self, fan_in):
        super().__init__()
        self.scale = (2 / fan_in) ** 0.5

    def forward(self, w):
        return w * self.scale


class PixelNorm(nn.Module):
    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-8)


class MinibatchStd(nn.Module):
    def __init__(self, group=2):
        super().__init__()
        self.group = group

    def forward(self, x):
        n, c = x.shape
        y = x.view(self.group, -1, c)
        y = (y - y.mean(0)).pow(2).mean(0).add(1e-8).sqrt().mean(1)
        return torch.cat([x, y.repeat(self.group).view(n, 1)], dim=1)


def equal_linear(i, o, seed):
    lin = nn.Linear(i, o)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(np.random.default_rng(seed).standard_normal((o, i)).astype(np.float32)))
        lin.bias.zero_()
    parametrize.register_parametrization(lin, "weight", EqualLR(i))
    return lin


G = nn.Sequential(PixelNorm(), equal_linear(4, 8, 1), nn.LeakyReLU(0.2), PixelNorm(), equal_linear(8, 2, 2))
D = nn.Sequential(equal_linear(2, 8, 3), nn.LeakyReLU(0.2), MinibatchStd(), equal_linear(9, 1, 4))
print(G[1])
print(
    "equal_lr",
    r(G[1].weight[0], 3),
    r(G[1].parametrizations.weight.original[0], 3),
    round(G[1].parametrizations.weight[0].scale, 4),
)
z = arr(4, 4)
print("pixel_norm", r(PixelNorm()(z).pow(2).mean(1)), "mbstd", MinibatchStd()(arr(4, 3)).shape)

ema = AveragedModel(G, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
print("ema", type(ema.module).__name__, ema.n_averaged, sorted(n for n, _ in ema.named_buffers()))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.99))
opt_d = torch.optim.Adam(D.parameters(), lr=4e-3, betas=(0.0, 0.99))
print("ttur", opt_g.param_groups[0]["lr"], opt_d.param_groups[0]["lr"])


def real_batch():
    return torch.from_numpy((rng.standard_normal((4, 2)) * 0.2 + np.array([1.0, -1.0])).astype(np.float32))


losses = {
    "nonsat": (lambda dr, df: F.softplus(-dr).mean() + F.softplus(df).mean(), lambda dr, df: F.softplus(-df).mean()),
    "lsgan": (
        lambda dr, df: 0.5 * ((dr - 1) ** 2).mean() + 0.5 * (df**2).mean(),
        lambda dr, df: 0.5 * ((df - 1) ** 2).mean(),
    ),
    "hinge": (lambda dr, df: F.relu(1 - dr).mean() + F.relu(1 + df).mean(), lambda dr, df: -df.mean()),
    "ragan": (
        lambda dr, df: (
            F.binary_cross_entropy_with_logits(dr - df.mean(), torch.ones_like(dr))
            + F.binary_cross_entropy_with_logits(df - dr.mean(), torch.zeros_like(df))
        ),
        lambda dr, df: (
            F.binary_cross_entropy_with_logits(df - dr.mean(), torch.ones_like(df))
            + F.binary_cross_entropy_with_logits(dr - df.mean(), torch.zeros_like(dr))
        ),
    ),
}
for step, (name, (d_loss, g_loss)) in enumerate(losses.items()):
    real, z = real_batch(), arr(4, 4)
    fake = G(z)
    ld = d_loss(D(real), D(fake.detach()))
    opt_d.zero_grad()
    ld.backward()
    opt_d.step()
    lg = g_loss(D(real), D(fake))
    opt_g.zero_grad()
    lg.backward()
    opt_g.step()
    ema.update_parameters(G)
    print(
        name,
        round(ld.item(), 4),
        round(lg.item(), 4),
        r(G[4].parametrizations.weight.original.grad, 3),
        ema.n_averaged.item(),
    )
g_w = G[1].parametrizations.weight.original
e_w = ema.module[1].parametrizations.weight.original
print("ema_lag", round((g_w - e_w).abs().mean().item(), 5), r(e_w, 3))
with torch.no_grad():
    zf = arr(3, 4)
    print("ema_sample", r(ema(zf), 6), r(G(zf), 6))
sd = ema.state_dict()
print("ema_state", [k for k in sd if "original" in k or k == "n_averaged"])
print(
    "bce_logits_vs_softplus",
    round(F.binary_cross_entropy_with_logits(torch.tensor([0.3, -2.0]), torch.ones(2)).item(), 4),
    round(F.softplus(-torch.tensor([0.3, -2.0])).mean().item(), 4),
)
try:
    MinibatchStd(3)(arr(4, 3))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    parametrize.register_parametrization(nn.Linear(2, 2), "weight", nn.Linear(2, 3))
except ValueError as e:
    print("ValueError", str(e).split("\n")[0])
