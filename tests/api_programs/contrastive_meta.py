"""Contrastive and meta-learning: SimCLR NT-Xent (normalize, bool eye mask, masked_fill), CLIP loss with a
learnable clamped temperature, MAML inner loops through torch.func.functional_call and autograd.grad
(create_graph=True), per-sample gradients with vmap(grad), ensembles with stack_module_state."""

import copy
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap, stack_module_state

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def init(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


def nt_xent(z1, z2, temperature=0.5):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.t() / temperature
    mask = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    sim = sim.masked_fill(mask, float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


def nt_xent_explicit(z1, z2, temperature=0.5):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2]), p=2, dim=-1)
    sim = F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=2)
    pos = torch.cat([torch.diag(sim, n), torch.diag(sim, -n)])
    neg_mask = ~torch.eye(2 * n, dtype=bool)
    num = torch.exp(pos / temperature)
    den = (neg_mask * torch.exp(sim / temperature)).sum(dim=1)
    return -torch.log(num / den).mean()


enc = init(nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4)))
x = T(5, 6)
v1, v2 = x + 0.1 * T(5, 6), x * (1 + 0.1 * T(5, 6))
z1, z2 = enc(v1), enc(v2)
l1, l2 = nt_xent(z1, z2), nt_xent_explicit(z1, z2)
print("ntxent", round(l1.item(), 4), round(l2.item(), 4))
l1.backward()
print("enc_grad", r(enc[0].weight.grad), r(enc[1].running_mean), enc[1].num_batches_tracked.item())


class CLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.img = nn.Linear(6, 4, bias=False)
        self.txt = nn.Embedding(10, 4)
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def forward(self, images, tokens):
        im = self.img(images)
        tx = self.txt(tokens).mean(dim=1)
        im = im / im.norm(dim=1, keepdim=True)
        tx = tx / tx.norm(dim=-1, keepdim=True)
        logit_scale = self.logit_scale.exp()
        logits_per_image = logit_scale * im @ tx.t()
        return logits_per_image, logits_per_image.t()


clip = CLIP()
with torch.no_grad():
    clip.img.weight.copy_(T(4, 6))
    clip.txt.weight.copy_(T(10, 4))
print("logit_scale", round(clip.logit_scale.item(), 4), clip.logit_scale.shape, clip.logit_scale.dim())
copt = torch.optim.SGD(clip.parameters(), lr=0.5)
imgs, toks = T(4, 6), torch.from_numpy(rng.integers(0, 10, (4, 3)))
for i in range(3):
    lpi, lpt = clip(imgs, toks)
    labels = torch.arange(len(imgs))
    loss = (F.cross_entropy(lpi, labels) + F.cross_entropy(lpt, labels)) / 2
    copt.zero_grad()
    loss.backward()
    copt.step()
    with torch.no_grad():
        clip.logit_scale.clamp_(0, math.log(100))
    print("clip", i, round(loss.item(), 4), round(clip.logit_scale.item(), 4))
print("clip_acc", (lpi.argmax(dim=-1) == labels).float().mean().item(), r(clip.txt.weight.grad[toks[0]]))

# MAML on sine regression
net = init(nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1)), 0.5)
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-2)


def task(seed):
    g = np.random.default_rng(seed)
    a, ph = g.uniform(0.5, 2), g.uniform(0, math.pi)
    xs = torch.from_numpy(g.uniform(-3, 3, (10, 1)).astype(np.float32))
    return xs, a * torch.sin(xs + ph)


inner_lr = 0.05
for it in range(3):
    meta_opt.zero_grad()
    outer = 0.0
    for tk in range(2):
        xs, ys = task(10 * it + tk)
        params = dict(net.named_parameters())
        for _ in range(2):
            loss_in = F.mse_loss(functional_call(net, params, (xs[:5],)), ys[:5])
            grads = torch.autograd.grad(loss_in, list(params.values()), create_graph=True)
            params = {k: p - inner_lr * g for (k, p), g in zip(params.items(), grads)}
        outer = outer + F.mse_loss(functional_call(net, params, (xs[5:],)), ys[5:])
    outer = outer / 2
    outer.backward()
    meta_opt.step()
    print("maml", it, round(outer.item(), 4), round(net[0].weight.grad.norm().item(), 4))

# first-order MAML style clone: deepcopy + inner SGD
fast = copy.deepcopy(net)
fopt = torch.optim.SGD(fast.parameters(), lr=inner_lr)
xs, ys = task(99)
for _ in range(2):
    fopt.zero_grad()
    F.mse_loss(fast(xs), ys).backward()
    fopt.step()
print("fomaml", r(fast[2].weight - net[2].weight))

# per-sample gradients
model = init(nn.Linear(3, 2))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def loss_one(p, b, xi, yi):
    out = functional_call(model, (p, b), (xi.unsqueeze(0),))
    return F.cross_entropy(out, yi.unsqueeze(0))


xb, yb = T(4, 3), torch.tensor([0, 1, 1, 0])
psg = vmap(grad(loss_one), in_dims=(None, None, 0, 0))(params, buffers, xb, yb)
print("per_sample", tuple(psg["weight"].shape), r(psg["weight"][1]), r(psg["bias"].mean(0)))
model.zero_grad()
F.cross_entropy(model(xb), yb).backward()
print("mean_matches", torch.allclose(psg["weight"].mean(0), model.weight.grad, atol=1e-6))
clipped = psg["weight"] / torch.clamp(psg["weight"].flatten(1).norm(dim=1) / 0.5, min=1.0)[:, None, None]
print("dp_clip", r(clipped.flatten(1).norm(dim=1)))

ens = [init(nn.Linear(3, 2)) for _ in range(3)]
sp, sb = stack_module_state(ens)
base = copy.deepcopy(ens[0]).to("meta")


def fmodel(p, b, xx):
    return functional_call(base, (p, b), (xx,))


out = vmap(fmodel, in_dims=(0, 0, None))(sp, sb, xb)
print("ensemble", tuple(out.shape), torch.allclose(out[2], ens[2](xb), atol=1e-6), sp["weight"].requires_grad)
