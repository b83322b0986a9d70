"""GANomaly (Akcay et al.) and f-AnoGAN: an encoder-decoder-encoder generator with adversarial (feature matching),
contextual L1 and latent L2 losses, BCE discriminator with label smoothing, weights_init by classname, the latent
score min-max normalised, and f-AnoGAN's izi_f loss with a WGAN-GP gradient penalty through autograd.grad."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def weights_init(mod):
    classname = mod.__class__.__name__
    if classname.find("Conv") != -1:
        mod.weight.data.normal_(0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        mod.weight.data.normal_(1.0, 0.02)
        mod.bias.data.fill_(0)


def encoder(nz):
    return nn.Sequential(
        nn.Conv2d(1, 8, 4, 2, 1, bias=False),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(8, 16, 4, 2, 1, bias=False),
        nn.BatchNorm2d(16),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(16, nz, 4, 1, 0, bias=False),
    )


def decoder(nz):
    return nn.Sequential(
        nn.ConvTranspose2d(nz, 16, 4, 1, 0, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(True),
        nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(True),
        nn.ConvTranspose2d(8, 1, 4, 2, 1, bias=False),
        nn.Tanh(),
    )


class Generator(nn.Module):
    def __init__(self, nz=5):
        super().__init__()
        self.encoder1, self.decoder, self.encoder2 = encoder(nz), decoder(nz), encoder(nz)

    def forward(self, x):
        latent_i = self.encoder1(x)
        gen_imag = self.decoder(latent_i)
        return gen_imag, latent_i, self.encoder2(gen_imag)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        model = encoder(1)
        layers = list(model.children())
        self.features = nn.Sequential(*layers[:-1])
        self.classifier = nn.Sequential(layers[-1], nn.Sigmoid())

    def forward(self, x):
        features = self.features(x)
        return self.classifier(features).view(-1, 1).squeeze(1), features


netg, netd = Generator(), Discriminator()
netg.apply(weights_init)
netd.apply(weights_init)
print("D", netd.classifier, len(list(netd.features.children())))
print("init", round(netg.encoder1[0].weight.std().item(), 2), netg.decoder[1].bias.abs().sum().item())
opt_g = torch.optim.Adam(netg.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(netd.parameters(), lr=2e-4, betas=(0.5, 0.999))
l_adv, l_con, l_enc, l_bce = nn.MSELoss(), nn.L1Loss(), nn.MSELoss(), nn.BCELoss()
x = torch.tanh(torch.randn(8, 1, 16, 16))
for it in range(3):
    fake, latent_i, latent_o = netg(x)
    opt_g.zero_grad()
    err_g_adv = l_adv(netd(x)[1], netd(fake)[1])
    err_g_con = l_con(fake, x)
    err_g_enc = l_enc(latent_o, latent_i)
    err_g = err_g_adv * 1 + err_g_con * 50 + err_g_enc * 1
    err_g.backward(retain_graph=True)
    opt_g.step()
    opt_d.zero_grad()
    pred_real, _ = netd(x)
    pred_fake, _ = netd(fake.detach())
    real_label = torch.full((8,), 0.9)
    err_d = (l_bce(pred_real, real_label) + l_bce(pred_fake, torch.zeros(8))) * 0.5
    err_d.backward()
    opt_d.step()
    if err_d.item() < 1e-5:
        netd.apply(weights_init)
    print(it, round(err_g_con.item(), 4), round(err_g_enc.item(), 6), round(err_d.item(), 4))
print("latent", latent_i.shape, latent_i.grad_fn.name(), fake.grad_fn.name())

netg.eval()
with torch.no_grad():
    test = torch.cat([x[:4], torch.rand(4, 1, 16, 16) * 2 - 1])
    _, li, lo = netg(test)
    error = torch.mean(torch.pow((li - lo), 2), dim=1)
print("error", error.shape)
scores = error.reshape(error.size(0))
scores = (scores - torch.min(scores)) / (torch.max(scores) - torch.min(scores))
print("scores", scores)

# f-AnoGAN izi_f with a WGAN-GP critic
critic = nn.Sequential(nn.Flatten(), nn.Linear(256, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
enc = nn.Sequential(nn.Flatten(), nn.Linear(256, 5), nn.Tanh())
gen = nn.Sequential(nn.Linear(5, 256), nn.Tanh(), nn.Unflatten(1, (1, 16, 16)))
real = x
alpha = torch.rand(real.size(0), 1, 1, 1)
interp = (alpha * real + (1 - alpha) * gen(torch.randn(8, 5)).detach()).requires_grad_(True)
d_interp = critic(interp)
grads = torch.autograd.grad(
    outputs=d_interp,
    inputs=interp,
    grad_outputs=torch.ones_like(d_interp),
    create_graph=True,
    retain_graph=True,
    only_inputs=True,
)[0]
gp = ((grads.view(grads.size(0), -1).norm(2, dim=1) - 1) ** 2).mean()
gp.backward()
print("gp", round(gp.item(), 4), critic[1].weight.grad.abs().sum() > 0, grads.requires_grad)
feat = critic[:3]
fake_img = gen(enc(real))
loss_img = F.mse_loss(fake_img, real)
loss_feat = F.mse_loss(feat(fake_img), feat(real))
izif = loss_img + 1.0 * loss_feat
izif.backward()
print("izif", round(izif.item(), 4), enc[1].weight.grad.shape, gen[0].weight.grad is None)
per_sample = F.mse_loss(fake_img, real, reduction="none").mean((1, 2, 3)) + F.mse_loss(
    feat(fake_img), feat(real), reduction="none"
).mean(1)
print("per-sample", per_sample.detach())
print("unflatten", nn.Unflatten(1, (1, 16, 16)), nn.Unflatten(-1, torch.Size([2, 2]))(torch.arange(8).view(2, 4)).shape)
try:
    l_bce(torch.tensor([1.5]), torch.tensor([1.0]))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    l_bce(torch.tensor([0.5]), torch.tensor([1]))
except RuntimeError as e:
    print("RuntimeError", e)
print(
    F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([0.0, 0.0])),
    F.binary_cross_entropy(torch.tensor([0.3]), torch.tensor([0.2]), weight=torch.tensor([2.0])),
)
try:
    torch.autograd.grad(critic(real).sum(), real)
except RuntimeError as e:
    print("RuntimeError", e)
unused = torch.zeros(2, requires_grad=True)
print(
    torch.autograd.grad(critic(interp).sum(), [interp, unused], allow_unused=True)[1],
    torch.autograd.grad(critic(interp).sum(), unused, allow_unused=True, materialize_grads=True)[0],
)
try:
    torch.autograd.grad(critic(interp).sum(), unused)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.autograd.grad(critic(interp).sum(), unused, materialize_grads=True)
except ValueError as e:
    print("ValueError", e)
