"""Normalizing flows as Glow/RealNVP repos write them: checkerboard and channel masks, affine couplings with
tanh-scaled log-scales, ActNorm with data-dependent init, invertible 1x1 convs (slogdet and the LU-decomposed
variant via torch.linalg.lu / lu_factor), squeeze/unsqueeze, log-likelihood in bits per dim, exact inversion."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det_init_(module, scale=0.1):
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.53 + 0.07 * k) + k).view_as(p))


def checkerboard_mask(h, w, reverse=False):
    mask = (torch.arange(h).view(-1, 1) + torch.arange(w)) % 2
    mask = mask.to(torch.float32).view(1, 1, h, w)
    return 1 - mask if reverse else mask


def squeeze2x2(x):
    b, c, h, w = x.size()
    x = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4).contiguous()
    return x.view(b, c * 4, h // 2, w // 2)


def unsqueeze2x2(x):
    b, c, h, w = x.size()
    x = x.view(b, c // 4, 2, 2, h, w).permute(0, 1, 4, 2, 5, 3).contiguous()
    return x.view(b, c // 4, h * 2, w * 2)


class ActNorm(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, num_features, 1, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, num_features, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    @torch.no_grad()
    def initialize(self, x):
        flat = x.permute(1, 0, 2, 3).contiguous().view(x.shape[1], -1)
        mean, std = flat.mean(1), flat.std(1)
        self.loc.data.copy_(-mean.view_as(self.loc))
        self.log_scale.data.copy_(torch.log(1 / (std + 1e-6)).view_as(self.log_scale))
        self.initialized.fill_(1)

    def forward(self, x, reverse=False):
        if self.initialized.item() == 0:
            self.initialize(x)
        h, w = x.shape[2:]
        logdet = h * w * self.log_scale.sum()
        if reverse:
            return x * torch.exp(-self.log_scale) - self.loc, -logdet
        return (x + self.loc) * torch.exp(self.log_scale), logdet


class InvConv2d(nn.Module):
    def __init__(self, c):
        super().__init__()
        q, _ = torch.linalg.qr(torch.cos(torch.arange(c * c, dtype=torch.float32).view(c, c) ** 2 * 0.37 + 0.2))
        self.weight = nn.Parameter(q.unsqueeze(2).unsqueeze(3))

    def forward(self, x, reverse=False):
        h, w = x.shape[2:]
        logdet = h * w * torch.slogdet(self.weight.squeeze().double())[1].float()
        if reverse:
            return F.conv2d(x, self.weight.squeeze().inverse().unsqueeze(2).unsqueeze(3)), -logdet
        return F.conv2d(x, self.weight), logdet


class InvConv2dLU(nn.Module):
    def __init__(self, c):
        super().__init__()
        q, _ = torch.linalg.qr(torch.sin(torch.arange(c * c, dtype=torch.float32).view(c, c) ** 2 * 0.29 + 0.4))
        P, L, U = torch.linalg.lu(q)
        s = torch.diag(U)
        self.register_buffer("w_p", P)
        self.register_buffer("u_mask", torch.triu(torch.ones(c, c), 1))
        self.register_buffer("l_mask", self.u_mask.T.contiguous())
        self.register_buffer("s_sign", torch.sign(s))
        self.register_buffer("l_eye", torch.eye(c))
        self.w_l = nn.Parameter(L)
        self.w_s = nn.Parameter(torch.log(torch.abs(s)))
        self.w_u = nn.Parameter(torch.triu(U, 1))

    def calc_weight(self):
        return self.w_p @ (self.w_l * self.l_mask + self.l_eye) @ (
            self.w_u * self.u_mask + torch.diag(self.s_sign * torch.exp(self.w_s)))

    def forward(self, x, reverse=False):
        h, w = x.shape[2:]
        weight = self.calc_weight()
        logdet = h * w * torch.sum(self.w_s)
        if reverse:
            return F.conv2d(x, weight.inverse().unsqueeze(2).unsqueeze(3)), -logdet
        return F.conv2d(x, weight.unsqueeze(2).unsqueeze(3)), logdet


class AffineCoupling(nn.Module):
    def __init__(self, c, hidden=16, mask=None):
        super().__init__()
        self.mask = mask
        cin = c if mask is not None else c // 2
        cout = 2 * c if mask is not None else c
        self.net = nn.Sequential(nn.Conv2d(cin, hidden, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(hidden, hidden, 1), nn.ReLU(), nn.Conv2d(hidden, cout, 3, padding=1))
        self.scale = nn.Parameter(torch.ones(1, cout // 2, 1, 1))
        det_init_(self.net)

    def forward(self, x, reverse=False):
        if self.mask is not None:
            xa = x * self.mask
            s, t = self.net(xa).chunk(2, dim=1)
            s = self.scale * torch.tanh(s) * (1 - self.mask)
            t = t * (1 - self.mask)
            y = xa + (1 - self.mask) * (x * torch.exp(s) + t if not reverse else (x - t) * torch.exp(-s))
            ld = s.flatten(1).sum(-1)
            return y, -ld if reverse else ld
        xa, xb = x.chunk(2, 1)
        log_s, t = self.net(xa).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        yb = (xb + t) * s if not reverse else xb / s - t
        ld = torch.log(s).flatten(1).sum(-1)
        return torch.cat([xa, yb], 1), -ld if reverse else ld


x = (torch.sin(torch.arange(2 * 1 * 4 * 4, dtype=torch.float32) * 0.77).view(2, 1, 4, 4) + 1) / 2
print("mask\n", checkerboard_mask(4, 4)[0, 0])
sq = squeeze2x2(x)
print("squeeze", sq.shape, torch.equal(unsqueeze2x2(sq), x), r(sq[0, :, 0, 0], 4))

# dequantize + logit transform (RealNVP preprocessing) with its log-det
alpha = 0.05
u = torch.full_like(x, 0.5)
xd = (x * 255 + u) / 256
y = alpha + (1 - 2 * alpha) * xd
z0 = torch.log(y) - torch.log1p(-y)
ldj_pre = (math.log(1 - 2 * alpha) - F.softplus(-z0) - F.softplus(z0)).flatten(1).sum(-1)
print("logit", r(z0, 4), "ldj", r(ldj_pre))

layers = nn.ModuleList([
    AffineCoupling(1, mask=checkerboard_mask(4, 4)),
    AffineCoupling(1, mask=checkerboard_mask(4, 4, reverse=True)),
])
glow = nn.ModuleList([ActNorm(4), InvConv2d(4), AffineCoupling(4), ActNorm(4), InvConv2dLU(4), AffineCoupling(4)])

def forward(x):
    total = torch.zeros(x.shape[0])
    for layer in layers:
        x, ld = layer(x)
        total = total + ld
    x = squeeze2x2(x)
    for layer in glow:
        x, ld = layer(x)
        total = total + ld
    return x, total


def inverse(z):
    for layer in reversed(glow):
        z, _ = layer(z, reverse=True)
    z = unsqueeze2x2(z)
    for layer in reversed(layers):
        z, _ = layer(z, reverse=True)
    return z


z, logdet = forward(z0)
print("actnorm init", glow[0].initialized.item(), r(glow[0].log_scale, 4))
print("z", z.shape, r(z, 4), "logdet", r(logdet))
with torch.no_grad():
    rec = inverse(z)
print("inverse max err", (rec - z0).abs().max().item() < 1e-4)
print("LU weight orthogonal-ish", torch.allclose(glow[4].calc_weight() @ glow[4].calc_weight().T, torch.eye(4),
                                                 atol=1e-5), "sign", glow[4].s_sign.tolist())
w = glow[1].weight.squeeze()
sign, logabs = torch.linalg.slogdet(w)
print("slogdet", round(sign.item(), 4), round(logabs.item(), 4), "det", round(torch.det(w).item(), 4))
LU, piv = torch.linalg.lu_factor(w)
P, L, U = torch.lu_unpack(LU, piv)
print("lu_factor", piv.tolist(), piv.dtype, torch.allclose(P @ L @ U, w, atol=1e-6),
      round(torch.log(torch.diagonal(U).abs()).sum().item(), 4))

# negative log-likelihood in bits per dim, then one training step
log_pz = (-0.5 * (z ** 2 + math.log(2 * math.pi))).flatten(1).sum(-1)
log_px = log_pz + logdet + ldj_pre
D = x[0].numel()
bpd = (-log_px / (D * math.log(2)) + 8).mean()
print("log_pz", r(log_pz), "bpd", round(bpd.item(), 4))
params = list(layers.parameters()) + list(glow.parameters())
opt = torch.optim.Adamax(params, lr=1e-3)
bpd.backward()
gn = torch.nn.utils.clip_grad_norm_(params, max_norm=100.0)
print("grad norm", round(gn.item(), 4), "lu w_s grad", r(glow[4].w_s.grad, 4),
      "w_l masked grad", glow[4].w_l.grad.triu().abs().sum().item() == 0 or r(glow[4].w_l.grad.diagonal(), 4))
opt.step()
with torch.no_grad():
    z2, ld2 = forward(z0)
    lp2 = (-0.5 * (z2 ** 2 + math.log(2 * math.pi))).flatten(1).sum(-1) + ld2 + ldj_pre
print("bpd after", round((-lp2 / (D * math.log(2)) + 8).mean().item(), 4))
