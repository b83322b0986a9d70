"""Denoising and test-time tricks of restoration code: a DnCNN with BatchNorm learning the residual, FFDNet's
noise-level map concatenated after pixel_unshuffle, the x8 geometric self-ensemble (torch.rot90 with k and dims,
flip, transpose and their inverses), chopped forward with overlap, train/eval BatchNorm statistics, clip_grad_norm_
with its total norm, StepLR, and the errors rot90/flip raise."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class DnCNN(nn.Module):
    def __init__(self, ch=1, nf=8, depth=4):
        super().__init__()
        layers = [nn.Conv2d(ch, nf, 3, padding=1), nn.ReLU(inplace=True)]
        for _ in range(depth - 2):
            layers += [
                nn.Conv2d(nf, nf, 3, padding=1, bias=False),
                nn.BatchNorm2d(nf, eps=1e-4, momentum=0.95),
                nn.ReLU(inplace=True),
            ]
        layers.append(nn.Conv2d(nf, ch, 3, padding=1))
        self.dncnn = nn.Sequential(*layers)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.orthogonal_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return x - self.dncnn(x)


class FFDNet(nn.Module):
    def __init__(self, ch=1, nf=8):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(4 * ch + 1, nf, 3, padding=1), nn.ReLU(), nn.Conv2d(nf, 4 * ch, 3, padding=1)
        )

    def forward(self, x, sigma):
        h, w = x.shape[-2:]
        x = F.pad(x, (0, w % 2, 0, h % 2), mode="replicate")
        down = F.pixel_unshuffle(x, 2)
        nmap = sigma.view(-1, 1, 1, 1).expand(-1, 1, down.shape[2], down.shape[3])
        out = F.pixel_shuffle(self.body(torch.cat([down, nmap], 1)), 2)
        return out[..., :h, :w]


yy, xx = torch.meshgrid(torch.linspace(0, 1, 16), torch.linspace(0, 1, 16), indexing="ij")
clean = (0.5 + 0.4 * torch.sin(7 * xx) * torch.cos(5 * yy)).expand(4, 1, 16, 16).clone()
clean[1] = clean[1].flip(-1)
clean[2] = clean[2].transpose(-1, -2).clone()
gen = torch.Generator().manual_seed(3)
sigmas = torch.tensor([5.0, 15.0, 25.0, 50.0]) / 255.0
noisy = clean + torch.randn(clean.shape, generator=gen) * sigmas.view(-1, 1, 1, 1)

net = DnCNN()
w = net.dncnn[0].weight.view(8, -1)
print("orthogonal rows", torch.allclose(w @ w.t(), torch.eye(8), atol=1e-5))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
for step in range(4):
    out = net(noisy)
    loss = F.mse_loss(out, clean, reduction="sum") / (2 * noisy.shape[0])
    opt.zero_grad()
    loss.backward()
    total = nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.5, norm_type=2.0)
    opt.step()
    sched.step()
    print("step", step, round(loss.item(), 4), "grad norm", round(total.item(), 4), "lr", sched.get_last_lr()[0])
bn = net.dncnn[3]
print("bn", bn, bn.num_batches_tracked.item(), round(bn.running_var.mean().item(), 4))
net.eval()
with torch.no_grad():
    ev = net(noisy)
net.train()
with torch.no_grad():
    tr = net(noisy)
print("eval vs train differ", not torch.allclose(ev, tr), "bn counter", bn.num_batches_tracked.item())
net.eval()


def transforms8(x):
    outs = []
    for k in range(4):
        r = torch.rot90(x, k, dims=(-2, -1))
        outs += [r, r.flip(-1)]
    return outs


def inverse8(outs):
    back = []
    for i, o in enumerate(outs):
        k = i // 2
        if i % 2:
            o = o.flip(-1)
        back.append(torch.rot90(o, -k, dims=(-2, -1)))
    return back


aug = transforms8(noisy)
print("aug shapes", len(aug), tuple(aug[1].shape), torch.equal(inverse8(aug)[5], noisy))
print(
    "rot90 k=5 == k=1",
    torch.equal(torch.rot90(noisy, 5, (2, 3)), torch.rot90(noisy, 1, (2, 3))),
    "k=-1 == k=3",
    torch.equal(torch.rot90(noisy, -1, (2, 3)), torch.rot90(noisy, 3, (2, 3))),
    "dims swapped",
    torch.equal(torch.rot90(noisy, 1, (3, 2)), torch.rot90(noisy, -1, (2, 3))),
)
print(
    "rot90 small",
    torch.rot90(torch.arange(6).view(2, 3)).tolist(),
    torch.rot90(torch.arange(6).view(2, 3), 2, [1, 0]).tolist(),
)
with torch.no_grad():
    single = net(noisy)
    ens = torch.stack(inverse8([net(a) for a in aug])).mean(0)
psnr = lambda a: (
    (10 * torch.log10(1 / F.mse_loss(a, clean, reduction="none").mean((1, 2, 3)))).round(decimals=3).tolist()
)
print("psnr noisy", psnr(noisy), "single", psnr(single), "x8", psnr(ens))


def chop_forward(x, fn, tile=10, overlap=4):
    h, w = x.shape[-2:]
    top = [(0, tile), (h - tile, h)]
    left = [(0, tile), (w - tile, w)]
    out = torch.zeros_like(x)
    cnt = torch.zeros_like(x)
    for t0, t1 in top:
        for l0, l1 in left:
            out[..., t0:t1, l0:l1] += fn(x[..., t0:t1, l0:l1])
            cnt[..., t0:t1, l0:l1] += 1
    return out / cnt, cnt


with torch.no_grad():
    chopped, cnt = chop_forward(noisy, net)
print(
    "chop",
    cnt.unique().tolist(),
    round((chopped - single).abs().max().item(), 4) < 0.5,
    round(chopped.mean().item(), 4),
)

ff = FFDNet()
odd = noisy[..., :15, :13]
res = ff(odd, sigmas)
print(
    "ffdnet",
    tuple(res.shape),
    round(res.mean().item(), 4),
    tuple(F.pixel_unshuffle(F.pad(odd, (0, 1, 0, 1), mode="replicate"), 2).shape),
)
res.mean().backward()
print(
    "ffdnet grad", tuple(ff.body[0].weight.grad.shape), round(ff.body[0].weight.grad[:, -1].abs().sum().item(), 4) > 0
)

for bad in [
    lambda: torch.rot90(noisy, 1, (2, 2)),
    lambda: torch.rot90(noisy, 1, (2,)),
    lambda: torch.rot90(noisy, 1, (2, 5)),
    lambda: torch.rot90(torch.arange(3), 1),
    lambda: noisy.flip(4),
    lambda: noisy.flip(2, 2),
    lambda: nn.utils.clip_grad_norm_(net.parameters(), 1.0, norm_type="fro"),
]:
    try:
        r = bad()
        print("ok", tuple(r.shape))
    except Exception as e:
        print(type(e).__name__, e)
