"""A HiFi-GAN-style vocoder in miniature: ConvTranspose1d upsampling with weight_norm parametrizations (and their
removal), multi-receptive-field residual blocks with leaky ReLU, a multi-period discriminator reshaping audio to 2-D
after reflect padding, multi-resolution STFT loss (spectral convergence + log magnitude), and one GAN step."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrizations, parametrize

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
LRELU = 0.1


def init_weights(m, std=0.01):
    if isinstance(m, (nn.Conv1d, nn.ConvTranspose1d)):
        m.weight.data.normal_(0.0, std)


class ResBlock(nn.Module):
    def __init__(self, ch, k, dilations):
        super().__init__()
        self.convs = nn.ModuleList(
            parametrizations.weight_norm(nn.Conv1d(ch, ch, k, dilation=d, padding=(k * d - d) // 2)) for d in dilations
        )
        self.convs.apply(init_weights)

    def forward(self, x):
        for c in self.convs:
            x = x + c(F.leaky_relu(x, LRELU))
        return x


class Generator(nn.Module):
    def __init__(self, n_mels=8, ch=16, rates=(4, 2), kernels=(3, 5)):
        super().__init__()
        self.pre = parametrizations.weight_norm(nn.Conv1d(n_mels, ch, 7, padding=3))
        self.ups = nn.ModuleList()
        self.mrf = nn.ModuleList()
        for i, r in enumerate(rates):
            cin, cout = ch // 2**i, ch // 2 ** (i + 1)
            self.ups.append(parametrizations.weight_norm(nn.ConvTranspose1d(cin, cout, 2 * r, r, padding=r // 2)))
            self.mrf.append(nn.ModuleList(ResBlock(cout, k, (1, 3)) for k in kernels))
        self.post = parametrizations.weight_norm(nn.Conv1d(ch // 2 ** len(rates), 1, 7, padding=3))
        self.ups.apply(init_weights)

    def forward(self, mel):
        x = self.pre(mel)
        for up, blocks in zip(self.ups, self.mrf):
            x = up(F.leaky_relu(x, LRELU))
            x = sum(b(x) for b in blocks) / len(blocks)
        return torch.tanh(self.post(F.leaky_relu(x)))


class PeriodDisc(nn.Module):
    def __init__(self, period):
        super().__init__()
        self.period = period
        self.convs = nn.ModuleList([
            nn.Conv2d(1, 4, (5, 1), (3, 1), padding=(2, 0)),
            nn.Conv2d(4, 8, (5, 1), (3, 1), padding=(2, 0)),
        ])
        self.post = nn.Conv2d(8, 1, (3, 1), padding=(1, 0))

    def forward(self, x):
        fmaps = []
        b, c, t = x.shape
        if t % self.period:
            x = F.pad(x, (0, self.period - t % self.period), "reflect")
            t = x.shape[-1]
        x = x.view(b, c, t // self.period, self.period)
        for conv in self.convs:
            x = F.leaky_relu(conv(x), LRELU)
            fmaps.append(x)
        x = self.post(x)
        fmaps.append(x)
        return torch.flatten(x, 1, -1), fmaps


def stft_mag(x, n_fft, hop, win):
    s = torch.stft(x, n_fft, hop, win, torch.hann_window(win), return_complex=True)
    return s.abs().clamp_min(1e-3)


def mr_stft_loss(y_hat, y, resolutions=((64, 16, 64), (128, 32, 96), (32, 8, 32))):
    sc_total = mag_total = 0.0
    for n_fft, hop, win in resolutions:
        a, b = stft_mag(y_hat, n_fft, hop, win), stft_mag(y, n_fft, hop, win)
        sc = torch.norm(b - a, p="fro") / torch.norm(b, p="fro")
        mag = F.l1_loss(torch.log(a), torch.log(b))
        sc_total, mag_total = sc_total + sc, mag_total + mag
    return sc_total / len(resolutions), mag_total / len(resolutions)


gen = Generator()
print(gen.pre)
print("parametrized", parametrize.is_parametrized(gen.pre), list(gen.pre.parametrizations.weight.original0.shape),
      list(gen.pre.parametrizations.weight.original1.shape))
g0 = gen.ups[0].parametrizations.weight.original0
print("weight_g dim0 norms", g0.flatten()[:4])
names = [n for n, _ in gen.named_parameters()]
print("params", len(names), sum(p.numel() for p in gen.parameters()), names[:3])

mel = torch.randn(2, 8, 10)
audio = gen(mel)
print("audio", tuple(audio.shape), round(audio.std().item(), 6), audio[0, 0, :4])
ct = nn.ConvTranspose1d(2, 1, 4, stride=2, padding=1, output_padding=1)
print("output_padding", tuple(ct(torch.randn(1, 2, 5)).shape), ct)

mpd = nn.ModuleList(PeriodDisc(p) for p in (2, 3, 5))
y = torch.sin(torch.linspace(0, 40, 80)).view(1, 1, -1).repeat(2, 1, 1) * 0.5
for d in mpd:
    score, fm = d(y)
    print("period", d.period, tuple(score.shape), [tuple(f.shape) for f in fm])

sc, mg = mr_stft_loss(audio.squeeze(1), y.squeeze(1))
print("mr-stft", round(sc.item(), 4), round(mg.item(), 4))

opt_g = torch.optim.AdamW(gen.parameters(), lr=2e-3, betas=(0.8, 0.99))
opt_d = torch.optim.AdamW(mpd.parameters(), lr=2e-3, betas=(0.8, 0.99))
for step in range(3):
    y_hat = gen(mel)
    d_loss = 0.0
    for d in mpd:
        real, _ = d(y)
        fake, _ = d(y_hat.detach())
        d_loss = d_loss + torch.mean((1 - real) ** 2) + torch.mean(fake**2)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_adv = fm_loss = 0.0
    for d in mpd:
        fake, fm_f = d(y_hat)
        _, fm_r = d(y)
        g_adv = g_adv + torch.mean((1 - fake) ** 2)
        fm_loss = fm_loss + sum(F.l1_loss(a, b.detach()) for a, b in zip(fm_f, fm_r))
    sc, mg = mr_stft_loss(y_hat.squeeze(1), y.squeeze(1))
    g_loss = g_adv + 2 * fm_loss + 45 * (sc + mg)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    # the generator loss after AdamW steps amplifies float32 rounding (BLAS builds differ in the 3rd decimal)
    print("step", step, "d", round(d_loss.item(), 4), "g/100", round(g_loss.item() / 100, 1), "sc", round(sc.item(), 4))

with torch.no_grad():
    before = gen(mel)
for m in gen.modules():
    if parametrize.is_parametrized(m):
        parametrize.remove_parametrizations(m, "weight")
with torch.no_grad():
    after = gen(mel)
print("removed", parametrize.is_parametrized(gen.pre), type(gen.pre.weight).__name__,
      torch.allclose(before, after, atol=1e-6), len(list(gen.parameters())))
sd = gen.state_dict()
print("state_dict keys", len(sd), list(sd)[:2])
