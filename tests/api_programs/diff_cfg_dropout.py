"""Classifier-free guidance training and sampling: label dropout with torch.where/bernoulli on a seeded generator,
a null class token, guidance as lerp and as uncond + w (cond - uncond), CFG-rescale (Lin et al.) with per-sample
std, guidance intervals, negative prompts, batch doubling with repeat_interleave and chunk, and dynamic weight
schedules."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def s(t):
    return round(t.detach().double().sum().item(), 4)


NUM_CLASSES, NULL = 5, 5


class TinyDenoiser(nn.Module):
    def __init__(self, ch=3, hidden=16):
        super().__init__()
        self.emb = nn.Embedding(NUM_CLASSES + 1, hidden)
        self.inp = nn.Conv2d(ch, hidden, 3, padding=1)
        self.out = nn.Conv2d(hidden, ch, 3, padding=1)

    def forward(self, x, t, y):
        h = self.inp(x) + self.emb(y)[:, :, None, None] + t.float().view(-1, 1, 1, 1) / 1000
        return self.out(F.silu(h))


def drop_labels(y, p, generator=None):
    drop = torch.rand(y.shape, generator=generator) < p
    return torch.where(drop, torch.full_like(y, NULL), y), drop


g = torch.Generator().manual_seed(1234)
y = torch.arange(16) % NUM_CLASSES
y_d, dropped = drop_labels(y, 0.25, g)
print("dropped:", dropped.sum().item(), y_d.tolist())
keep = torch.bernoulli(torch.full((16,), 0.75), generator=torch.Generator().manual_seed(7)).bool()
y_b = y.masked_fill(~keep, NULL)
print("bernoulli keep:", keep.dtype, int(keep.sum()), y_b.tolist())
print("where scalar other:", torch.where(keep, y, NULL).tolist() == y_b.tolist(), torch.where(keep, y, NULL).dtype)
try:
    torch.bernoulli(torch.full((4,), 1.5))
except Exception as e:
    print(type(e).__name__, e)

model = TinyDenoiser()
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(0.15 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.41 + k).view_as(p))

x = torch.randn(2, 3, 6, 6)
t = torch.tensor([500, 20])
cls = torch.tensor([1, 3])
with torch.no_grad():
    x_in = torch.cat([x, x])
    t_in = t.repeat(2)
    y_in = torch.cat([cls, torch.full_like(cls, NULL)])
    eps_c, eps_u = model(x_in, t_in, y_in).chunk(2)
    for w in [0.0, 1.0, 4.0]:
        guided = eps_u + w * (eps_c - eps_u)
        lerped = torch.lerp(eps_u, eps_c, w)
        print(f"w={w}", s(guided), torch.allclose(guided, lerped, atol=1e-6))
    wt = torch.tensor([1.5, 6.0]).view(-1, 1, 1, 1)
    per_sample = torch.lerp(eps_u, eps_c, wt)
    print("per-sample weights:", r(per_sample.flatten(1).sum(1)))

    # CFG rescale: match the std of the guided prediction to the conditional one
    guided = eps_u + 7.5 * (eps_c - eps_u)
    std_c = eps_c.std(dim=list(range(1, eps_c.ndim)), keepdim=True)
    std_g = guided.std(dim=list(range(1, guided.ndim)), keepdim=True)
    rescaled = guided * (std_c / std_g)
    phi = 0.7
    final = phi * rescaled + (1 - phi) * guided
    print("stds:", r(std_c), r(std_g), "rescaled std:", r(rescaled.std(dim=(1, 2, 3))), s(final))
    print("std correction=0:", r(guided.std(dim=(1, 2, 3), correction=0)), r(torch.std_mean(guided, dim=(1, 2, 3))[1]))

    # guidance only inside an interval of sigmas (Kynkaanniemi et al.)
    sigmas = torch.tensor([80.0, 10.0, 1.0, 0.28, 0.05])
    w_of = torch.where((sigmas > 0.28) & (sigmas <= 17.0), torch.tensor(3.0), torch.tensor(1.0))
    print("interval weights:", w_of.tolist())
    ramp = 1 + 3.0 * (1 - torch.cos(math.pi * torch.linspace(0, 1, 5))) / 2
    print("cosine ramp:", r(ramp))

    # negative prompts + repeat_interleave for several images per prompt
    n_img = 3
    y_pos = cls.repeat_interleave(n_img)
    y_neg = torch.tensor([4]).expand_as(y_pos)
    x_many = x.repeat_interleave(n_img, dim=0)
    print("batch:", y_pos.tolist(), y_neg.tolist(), tuple(x_many.shape), torch.equal(x_many[3], x[1]))
    e_pos, e_neg = model(
        torch.cat([x_many] * 2), torch.cat([t.repeat_interleave(n_img)] * 2), torch.cat([y_pos, y_neg])
    ).chunk(2)
    print("neg guided:", s(e_neg + 5.0 * (e_pos - e_neg)))
    print(
        "repeat_interleave tensor repeats:",
        torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([2, 3])).tolist(),
    )

try:
    torch.lerp(eps_u, eps_c.long(), 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([2, 3, 1]))
except Exception as e:
    print(type(e).__name__, e)

# one training step with the dropped labels
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x0 = torch.randn(16, 3, 6, 6)
noise = torch.randn_like(x0)
tt = torch.randint(0, 1000, (16,))
loss = F.mse_loss(model(x0 + noise, tt, y_d), noise)
loss.backward()
print("null-row grad nonzero:", model.emb.weight.grad[NULL].abs().sum().item() > 0, "loss", round(loss.item(), 4))
opt.step()
print("step ok:", round(model.emb.weight[NULL].sum().item(), 4))
