"""The DCGAN tutorial's idioms: weights_init by class name, nn.init on .data, ConvTranspose2d generator, strided
Conv2d discriminator, BCELoss with torch.full labels, Adam(betas=(0.5, 0.999)), D(x).mean().item() bookkeeping."""

# ruff: noqa: UP008, UP031  (the tutorials' own idioms, kept as written)

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

rng = np.random.default_rng(0)
torch.manual_seed(999)
torch.use_deterministic_algorithms(True)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


nc, nz, ngf, ndf = 3, 8, 4, 4
ngpu = 1
device = torch.device("cuda:0" if (torch.cuda.is_available() and ngpu > 0) else "cpu")
device = torch.device("cpu")


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
        m.weight.data.copy_(T(*m.weight.shape) * 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        m.weight.data.copy_(1.0 + T(*m.weight.shape) * 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self, ngpu):
        super(Generator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super(Discriminator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input)


netG = Generator(ngpu).to(device)
if (device.type == "cuda") and (ngpu > 1):
    netG = nn.DataParallel(netG, list(range(ngpu)))
netG.apply(weights_init)
print(netG)
netD = Discriminator(ngpu).to(device)
netD.apply(weights_init)
print(netD)
print("G params", sum(p.numel() for p in netG.parameters()), "D params", sum(p.numel() for p in netD.parameters()))
print("bn init", r(netG.main[1].weight, 4), r(netG.main[1].bias, 4))

criterion = nn.BCELoss()
fixed_noise = T(16, nz, 1, 1)
real_label = 1.0
fake_label = 0.0
lr = 0.0002
beta1 = 0.5
optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))
data = [(T(8, nc, 16, 16).tanh(), torch.zeros(8)) for _ in range(3)]
G_losses, D_losses, img_list = [], [], []
iters = 0
num_epochs = 2
print("Starting Training Loop...")
for epoch in range(num_epochs):
    for i, batch in enumerate(data, 0):
        netD.zero_grad()
        real_cpu = batch[0].to(device)
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        noise = T(b_size, nz, 1, 1).to(device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        print("[%d/%d][%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f / %.4f"
              % (epoch, num_epochs, i, len(data), errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
        G_losses.append(errG.item())
        D_losses.append(errD.item())
        if (iters % 2 == 0) or ((epoch == num_epochs - 1) and (i == len(data) - 1)):
            with torch.no_grad():
                fake = netG(fixed_noise).detach().cpu()
            img_list.append(fake)
        iters += 1
print("losses", len(G_losses), round(sum(G_losses) / len(G_losses), 4), round(float(np.mean(D_losses)), 4))
print("imgs", len(img_list), tuple(img_list[-1].shape), r(img_list[-1]))
grid = torch.cat([img for img in img_list[-1][:4]], dim=2)
grid = (grid - grid.min()) / (grid.max() - grid.min())
print("grid", tuple(grid.shape), r(grid.permute(1, 2, 0)), np.transpose(grid.numpy(), (1, 2, 0)).shape)
netG.eval()
with torch.no_grad():
    print("eval", r(netG(fixed_noise[:2]).mean(dim=(1, 2, 3))))
print("running", r(netG.main[1].running_mean, 4), r(netD.main[3].running_var, 4), netD.main[3].num_batches_tracked)
print("state", [k for k in netD.state_dict().keys()][:5])
print("adam state", sorted(optimizerG.state_dict()["state"][0].keys()), optimizerG.state_dict()["state"][0]["step"])
