"""ESRGAN/Real-ESRGAN training code: residual-in-residual dense blocks with 0.2 residual scaling and
default_init_weights (kaiming_normal_ scaled by 0.1), pixel_unshuffle input for x2 models, a spectral-normed
U-Net discriminator, the relativistic average GAN loss with BCEWithLogitsLoss, a feature-matching perceptual loss,
MultiStepLR, and the module bookkeeping (parameter counts, named_modules, state_dict keys) such repos print."""

import torch

nn = torch.nn
F = torch.nn.functional
SN = torch.nn.utils.spectral_norm

torch.manual_seed(0)


@torch.no_grad()
def default_init_weights(module_list, scale=1.0, bias_fill=0.0):
    if not isinstance(module_list, list):
        module_list = [module_list]
    for module in module_list:
        for m in module.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight)
                m.weight.data *= scale
                if m.bias is not None:
                    m.bias.data.fill_(bias_fill)


class ResidualDenseBlock(nn.Module):
    def __init__(self, nf=8, gc=4):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(nf + i * gc, gc if i < 4 else nf, 3, 1, 1) for i in range(5)])
        self.lrelu = nn.LeakyReLU(negative_slope=0.2, inplace=True)
        default_init_weights(list(self.convs), 0.1)

    def forward(self, x):
        feats = [x]
        for i, conv in enumerate(self.convs):
            out = conv(torch.cat(feats, 1))
            if i < 4:
                feats.append(self.lrelu(out))
        return out * 0.2 + x


class RRDB(nn.Module):
    def __init__(self, nf, gc=4):
        super().__init__()
        self.rdb1, self.rdb2, self.rdb3 = (
            ResidualDenseBlock(nf, gc),
            ResidualDenseBlock(nf, gc),
            ResidualDenseBlock(nf, gc),
        )

    def forward(self, x):
        return self.rdb3(self.rdb2(self.rdb1(x))) * 0.2 + x


class RRDBNet(nn.Module):
    def __init__(self, scale=4, nf=8, nb=2):
        super().__init__()
        self.scale = scale
        in_ch = 3 * (16 if scale == 1 else 4 if scale == 2 else 1)
        self.conv_first = nn.Conv2d(in_ch, nf, 3, 1, 1)
        self.body = nn.Sequential(*[RRDB(nf) for _ in range(nb)])
        self.conv_body = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_up1 = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_up2 = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_last = nn.Conv2d(nf, 3, 3, 1, 1)
        self.lrelu = nn.LeakyReLU(0.2, True)

    def forward(self, x):
        feat = F.pixel_unshuffle(x, 2) if self.scale == 2 else F.pixel_unshuffle(x, 4) if self.scale == 1 else x
        feat = self.conv_first(feat)
        feat = feat + self.conv_body(self.body(feat))
        feat = self.lrelu(self.conv_up1(F.interpolate(feat, scale_factor=2, mode="nearest")))
        feat = self.lrelu(self.conv_up2(F.interpolate(feat, scale_factor=2, mode="nearest")))
        return self.conv_last(feat)


class UNetDiscriminatorSN(nn.Module):
    def __init__(self, nf=4):
        super().__init__()
        self.conv0 = nn.Conv2d(3, nf, 3, 1, 1)
        self.conv1 = SN(nn.Conv2d(nf, nf * 2, 4, 2, 1, bias=False))
        self.conv2 = SN(nn.Conv2d(nf * 2, nf * 4, 4, 2, 1, bias=False))
        self.conv3 = SN(nn.Conv2d(nf * 4, nf * 2, 3, 1, 1, bias=False))
        self.conv4 = SN(nn.Conv2d(nf * 2, nf, 3, 1, 1, bias=False))
        self.conv5 = nn.Conv2d(nf, 1, 3, 1, 1)

    def forward(self, x):
        x0 = F.leaky_relu(self.conv0(x), 0.2, inplace=True)
        x1 = F.leaky_relu(self.conv1(x0), 0.2, inplace=True)
        x2 = F.leaky_relu(self.conv2(x1), 0.2, inplace=True)
        x2 = F.interpolate(x2, scale_factor=2, mode="bilinear", align_corners=False)
        x3 = F.leaky_relu(self.conv3(x2), 0.2, inplace=True) + x1
        x3 = F.interpolate(x3, scale_factor=2, mode="bilinear", align_corners=False)
        x4 = F.leaky_relu(self.conv4(x3), 0.2, inplace=True) + x0
        return self.conv5(x4)


g = RRDBNet(scale=4)
g2 = RRDBNet(scale=2)
d = UNetDiscriminatorSN()
print("G params", sum(p.numel() for p in g.parameters()), "x2 first conv", tuple(g2.conv_first.weight.shape))
print("D params", sum(p.numel() for p in d.parameters()), sorted(k for k in d.state_dict() if "conv1" in k))
print(
    "rdb w std", round(g.body[0].rdb1.convs[0].weight.std().item(), 4), g.body[0].rdb1.convs[0].bias.abs().sum().item()
)
print("modules", len(list(g.named_modules())), [n for n, _ in g.named_modules()][:4])
print(g.body[0].rdb1.lrelu, d.conv1)

g2_out = g2(torch.rand(1, 3, 8, 8))
print("x2 out", tuple(g2_out.shape), "x4 out", tuple(g(torch.rand(1, 3, 4, 4)).shape))

feat_net = nn.Sequential(
    nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 6, 3, padding=1), nn.ReLU()
).requires_grad_(False)
bce = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(g.parameters(), lr=1e-3, betas=(0.9, 0.99))
opt_d = torch.optim.Adam(d.parameters(), lr=1e-3, betas=(0.9, 0.99))
sched = torch.optim.lr_scheduler.MultiStepLR(opt_g, milestones=[2, 3], gamma=0.5)
gen = torch.Generator().manual_seed(7)
for it in range(4):
    hr = torch.rand(2, 3, 16, 16, generator=gen)
    lr_img = F.interpolate(hr, scale_factor=0.25, mode="bicubic", antialias=True, align_corners=False)
    for p in d.parameters():
        p.requires_grad = False
    sr = g(lr_img)
    real_pred = d(hr).detach()
    fake_pred = d(sr)
    l_gan = (
        bce(real_pred - fake_pred.mean(), torch.zeros_like(real_pred))
        + bce(fake_pred - real_pred.mean(), torch.ones_like(fake_pred))
    ) / 2
    l_pix = F.l1_loss(sr, hr)
    l_percep = sum(F.l1_loss(a, b) for a, b in zip((feat_net[:2](sr), feat_net(sr)), (feat_net[:2](hr), feat_net(hr))))
    l_g = l_pix + l_percep + 0.1 * l_gan
    opt_g.zero_grad()
    l_g.backward()
    opt_g.step()
    for p in d.parameters():
        p.requires_grad = True
    fake_pred = d(sr.detach())
    real_pred = d(hr)
    l_d_real = bce(real_pred - fake_pred.mean().detach(), torch.ones_like(real_pred)) * 0.5
    l_d_fake = bce(fake_pred - real_pred.mean().detach(), torch.zeros_like(fake_pred)) * 0.5
    opt_d.zero_grad()
    (l_d_real + l_d_fake).backward()
    opt_d.step()
    sched.step()
    print(
        it,
        "pix",
        round(l_pix.item(), 4),
        "percep",
        round(l_percep.item(), 4),
        "gan",
        round(l_gan.item(), 4),
        "d",
        round((l_d_real + l_d_fake).item(), 4),
        "lr",
        sched.get_last_lr(),
    )
u = d.conv1.weight_u
print("sn u", tuple(u.shape), round(u.norm().item(), 4), "weight_orig" in dict(d.conv1.named_parameters()))
print("out range", round(sr.min().item(), 2) < round(sr.max().item(), 2), sr.shape)

try:
    RRDBNet(scale=2)(torch.rand(1, 3, 5, 5))
except Exception as e:
    print(type(e).__name__, e)
try:
    ResidualDenseBlock(8, 4)(torch.rand(1, 6, 4, 4))
except Exception as e:
    print(type(e).__name__, e)
