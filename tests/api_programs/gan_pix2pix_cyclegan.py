"""pix2pix and CycleGAN as the junyanz repository writes them: a U-Net generator with skip cats, Dropout kept in
eval, InstanceNorm2d (affine and track_running_stats variants), ReflectionPad2d resnet blocks, a PatchGAN
discriminator, the image pool, L1 and cycle losses, LambdaLR linear decay, set_requires_grad, and norm-layer errors."""

import random
import warnings

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)
random.seed(0)


class ResnetBlock(nn.Module):
    def __init__(self, dim, norm_layer):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.ReflectionPad2d(1),
            nn.Conv2d(dim, dim, 3),
            norm_layer(dim),
            nn.ReLU(True),
            nn.ReflectionPad2d(1),
            nn.Conv2d(dim, dim, 3),
            norm_layer(dim),
        )

    def forward(self, x):
        return x + self.conv_block(x)


class UNetDown(nn.Module):
    def __init__(self, cin, cout, normalize=True, dropout=0.0):
        super().__init__()
        layers = [nn.Conv2d(cin, cout, 4, 2, 1, bias=False)]
        if normalize:
            layers.append(nn.InstanceNorm2d(cout))
        layers.append(nn.LeakyReLU(0.2))
        if dropout:
            layers.append(nn.Dropout(dropout))
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)


class UNetUp(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.model = nn.Sequential(
            nn.ConvTranspose2d(cin, cout, 4, 2, 1, bias=False), nn.InstanceNorm2d(cout), nn.ReLU(inplace=True)
        )

    def forward(self, x, skip):
        return torch.cat((self.model(x), skip), 1)


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.d1 = UNetDown(3, 8, normalize=False)
        self.d2 = UNetDown(8, 16, dropout=0.5)
        self.u1 = UNetUp(16, 8)
        self.final = nn.Sequential(
            nn.Upsample(scale_factor=2), nn.ZeroPad2d((1, 0, 1, 0)), nn.Conv2d(16, 3, 4, padding=1), nn.Tanh()
        )

    def forward(self, x):
        d1 = self.d1(x)
        d2 = self.d2(d1)
        return self.final(self.u1(d2, d1))


patch_d = nn.Sequential(
    nn.Conv2d(6, 8, 4, 2, 1),
    nn.LeakyReLU(0.2, True),
    nn.Conv2d(8, 16, 4, 1, 1),
    nn.InstanceNorm2d(16, affine=True),
    nn.LeakyReLU(0.2, True),
    nn.Conv2d(16, 1, 4, 1, 1),
)
G = UNet()
A, B = torch.randn(2, 3, 16, 16), torch.randn(2, 3, 16, 16)
fake_B = G(A)
print("unet", tuple(fake_B.shape), G.final[0], G.final[1])
pred = patch_d(torch.cat((A, fake_B), 1))
print("patch", tuple(pred.shape), round(pred.mean().item(), 4))
loss_G = F.mse_loss(pred, torch.ones_like(pred)) + 100 * F.l1_loss(fake_B, B)
print("loss_G", round(loss_G.item(), 4), round(nn.L1Loss(reduction="sum")(fake_B, B).item(), 2))
G.eval()
o1, o2 = G(A), G(A)
print("eval dropout off", torch.equal(o1, o2))
G.train()
print("train dropout on", not torch.equal(G(A), G(A)))

# Resnet block with reflection padding; norms with running stats.
blk = ResnetBlock(4, lambda c: nn.InstanceNorm2d(c, track_running_stats=True))
x = torch.randn(2, 4, 6, 6)
y = blk(x)
inorm = blk.conv_block[2]
print(
    "resblock",
    tuple(y.shape),
    inorm,
    inorm.running_mean.round(decimals=4).tolist()[:2],
    inorm.num_batches_tracked.item(),
)
blk.eval()
print("eval uses running", round(blk(x).sum().item(), 3))
print("reflect", F.pad(torch.arange(4.0).view(1, 1, 1, 4), (2, 2, 0, 0), mode="reflect").view(-1).tolist())
print("replicate", nn.ReplicationPad2d((1, 0, 0, 1))(torch.arange(4.0).view(1, 1, 2, 2)).view(-1).tolist())
print(
    "instance stats",
    round(nn.InstanceNorm2d(4)(x).mean(dim=(2, 3)).abs().max().item(), 4),
    nn.InstanceNorm2d(4, affine=True).weight.shape,
)


class ImagePool:
    def __init__(self, size):
        self.size, self.images = size, []

    def query(self, images):
        out = []
        for image in images:
            image = torch.unsqueeze(image.data, 0)
            if len(self.images) < self.size:
                self.images.append(image)
                out.append(image)
            elif random.uniform(0, 1) > 0.5:
                rid = random.randint(0, self.size - 1)
                tmp = self.images[rid].clone()
                self.images[rid] = image
                out.append(tmp)
            else:
                out.append(image)
        return torch.cat(out, 0)


pool = ImagePool(3)
for i in range(4):
    q = pool.query(torch.full((2, 1, 2, 2), float(i)))
    print("pool", i, q[:, 0, 0, 0].tolist(), len(pool.images))


def set_requires_grad(nets, requires_grad=False):
    for net in nets if isinstance(nets, list) else [nets]:
        for p in net.parameters():
            p.requires_grad = requires_grad


set_requires_grad(patch_d, False)
print("D frozen", [p.requires_grad for p in patch_d.parameters()][:2])
G_BA = UNet()
cycle = F.l1_loss(G_BA(G(A)), A) * 10 + F.l1_loss(G(G_BA(B)), B) * 10
idt = F.l1_loss(G(B), B) * 5
(cycle + idt).backward()
print("cycle", round(cycle.item(), 3), "D grads", all(p.grad is None for p in patch_d.parameters()))
set_requires_grad([patch_d], True)

opt = torch.optim.Adam(list(G.parameters()) + list(G_BA.parameters()), lr=2e-4, betas=(0.5, 0.999))
n_epochs, decay_start = 6, 3
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lr_lambda=lambda ep: 1.0 - max(0, ep + 1 - decay_start) / float(n_epochs - decay_start + 1)
)
lrs = []
for ep in range(n_epochs):
    opt.step()
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 8))
print("lrs", lrs, len(opt.param_groups[0]["params"]))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("mismatched channels", tuple(nn.InstanceNorm2d(4)(torch.randn(4, 6, 6, 6)).shape))
print([str(w.message) for w in caught])
try:
    nn.ReflectionPad2d(3)(torch.randn(1, 1, 2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.InstanceNorm2d(4)(torch.randn(4, 1, 1))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.BatchNorm2d(4)(torch.randn(1, 4, 1, 1))
except Exception as e:
    print(type(e).__name__, e)
