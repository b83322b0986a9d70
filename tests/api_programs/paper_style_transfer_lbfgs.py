"""Neural style transfer (Gatys et al. 2016) as in the papers' reference code: a small fixed conv feature extractor
with forward hooks collecting activations, Gram matrices by bmm, content/style/total-variation losses, the image
optimized with L-BFGS (strong Wolfe line search) and a closure, then Adam on the same problem for comparison; plus
Johnson et al.'s instance-norm transform net and AdaIN (Huang & Belongie 2017)."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2016)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


features = nn.Sequential(
    nn.Conv2d(3, 6, 3, padding=1),
    nn.ReLU(inplace=True),
    nn.Conv2d(6, 6, 3, padding=1),
    nn.ReLU(inplace=True),
    nn.AvgPool2d(2),
    nn.Conv2d(6, 8, 3, padding=1),
    nn.ReLU(inplace=True),
)
with torch.no_grad():
    for i, p in enumerate(features.parameters()):
        p.copy_(torch.from_numpy(np.random.default_rng(40 + i).uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
features.requires_grad_(False).eval()
print("frozen", all(not p.requires_grad for p in features.parameters()), features[4])

acts = {}
handles = [features[i].register_forward_hook(lambda m, inp, out, i=i: acts.__setitem__(i, out)) for i in (1, 3, 6)]
mean = torch.tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)


def extract(img):
    acts.clear()
    features((img - mean) / std)
    return dict(acts)


def gram(f):
    b, c, h, w = f.size()
    flat = f.view(b, c, h * w)
    return torch.bmm(flat, flat.transpose(1, 2)) / (c * h * w)


def tv_loss(img):
    return (img[..., 1:, :] - img[..., :-1, :]).abs().mean() + (img[..., :, 1:] - img[..., :, :-1]).abs().mean()


content = torch.from_numpy(rng.uniform(0, 1, (1, 3, 12, 12)).astype(np.float32))
style = torch.from_numpy(rng.uniform(0, 1, (1, 3, 12, 12)).astype(np.float32))
c_feats = {k: v.detach() for k, v in extract(content).items()}
s_grams = {k: gram(v).detach() for k, v in extract(style).items()}
print("feat_shapes", {k: tuple(v.shape) for k, v in c_feats.items()}, tuple(s_grams[6].shape))
g = s_grams[1][0]
print(
    "gram_sym", torch.allclose(g, g.T), round(torch.linalg.eigvalsh(g.double()).min().item(), 4) >= 0, r(g.diagonal())
)
print(
    "gram_einsum",
    torch.allclose(torch.einsum("bchw,bdhw->bcd", acts[1], acts[1]) / (6 * 144), gram(acts[1]), atol=1e-6),
)


def total_loss(img):
    f = extract(img)
    lc = F.mse_loss(f[3], c_feats[3])
    ls = sum(F.mse_loss(gram(f[k]), s_grams[k]) for k in (1, 3, 6))
    return lc, ls, lc + 1e3 * ls + 1e-2 * tv_loss(img)


img = content.clone().requires_grad_(True)
opt = torch.optim.LBFGS([img], lr=1.0, max_iter=5, history_size=4, line_search_fn="strong_wolfe")
print("lbfgs", sorted(opt.defaults.items()))
for outer in range(3):
    calls = [0]

    def closure():
        opt.zero_grad()
        calls[0] += 1
        lc, ls, loss = total_loss(img)
        loss.backward()
        return loss

    loss = opt.step(closure)
    with torch.no_grad():
        img.clamp_(0, 1)
    print("lbfgs_step", outer, round(loss.item(), 4), calls[0] > 0, round(img.grad.norm().item(), 4) >= 0)
st = opt.state[opt._params[0]]
print("lbfgs_state", sorted(k for k in st if not k.startswith("_")), st["n_iter"], len(st["old_dirs"]))
lc, ls, final = total_loss(img)
print("lbfgs_final", round(lc.item(), 4), round(ls.item() * 1e3, 4), round(final.item(), 3))

img2 = content.clone().requires_grad_(True)
adam = torch.optim.Adam([img2], lr=0.02)
for step in range(5):
    lc, ls, loss = total_loss(img2)
    adam.zero_grad()
    loss.backward()
    adam.step()
print("adam_final", round(loss.item(), 4), r(img2, 3))
for h in handles:
    h.remove()
extract(content)
print("hooks_removed", len(acts), len(features[1]._forward_hooks))


# AdaIN: match channel mean/std of content features to style features
def adain(cf, sf, eps=1e-5):
    b, c = cf.shape[:2]
    c_mean, c_std = cf.mean((2, 3), keepdim=True), (cf.var((2, 3), keepdim=True) + eps).sqrt()
    s_mean, s_std = sf.mean((2, 3), keepdim=True), (sf.var((2, 3), keepdim=True) + eps).sqrt()
    return (cf - c_mean) / c_std * s_std + s_mean


cf, sf = arr(2, 4, 5, 5), arr(2, 4, 6, 6, scale=3.0) + 2
t = adain(cf, sf)
print("adain", r(t.mean((2, 3))), r(sf.mean((2, 3))), r(t.std((2, 3))), r(sf.std((2, 3))))
inorm = F.instance_norm(cf, eps=1e-5)
print(
    "adain_vs_instance_norm",
    torch.allclose(adain(cf, cf), cf, atol=1e-4),
    round(inorm.std((2, 3), unbiased=False).mean().item(), 4),
)

# transform net block (Johnson et al.): reflection pad, conv, instance norm, residuals, upsample
block = nn.Sequential(
    nn.ReflectionPad2d(1),
    nn.Conv2d(3, 4, 3),
    nn.InstanceNorm2d(4, affine=True),
    nn.ReLU(),
    nn.Upsample(scale_factor=2, mode="nearest"),
    nn.ReflectionPad2d(1),
    nn.Conv2d(4, 3, 3),
    nn.Tanh(),
)
with torch.no_grad():
    for i, p in enumerate(block.parameters()):
        p.copy_(torch.from_numpy(np.random.default_rng(70 + i).uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
y = block(content)
print("transform", y.shape, r(y), y.grad_fn.name())
pad = nn.ReflectionPad2d((1, 2, 0, 1))
print("reflect", pad(torch.arange(9.0).view(1, 1, 3, 3))[0, 0].tolist())
try:
    nn.ReflectionPad2d(3)(torch.zeros(1, 1, 3, 3))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    gram(torch.zeros(2, 3, 4))
except ValueError as e:
    print("ValueError", e)
