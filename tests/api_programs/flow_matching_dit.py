"""Rectified flow / flow matching with a small diffusion transformer (adaLN-zero modulation, sinusoidal
timestep embeddings, patchify/unpatchify), classifier-free guidance, Euler and Heun samplers, logit-normal t."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(11)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class TimestepEmbedder(nn.Module):
    def __init__(self, hidden, freq=16):
        super().__init__()
        self.freq = freq
        self.mlp = nn.Sequential(nn.Linear(freq, hidden, bias=True), nn.SiLU(), nn.Linear(hidden, hidden, bias=True))

    @staticmethod
    def timestep_embedding(t, dim, max_period=10000):
        half = dim // 2
        freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
        args = t[:, None].float() * freqs[None]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        if dim % 2:
            emb = torch.cat([emb, torch.zeros_like(emb[:, :1])], dim=-1)
        return emb

    def forward(self, t):
        return self.mlp(self.timestep_embedding(t, self.freq))


class LabelEmbedder(nn.Module):
    def __init__(self, num_classes, hidden):
        super().__init__()
        self.table = nn.Embedding(num_classes + 1, hidden)
        self.num_classes = num_classes

    def forward(self, labels, drop_ids=None):
        if drop_ids is not None:
            labels = torch.where(drop_ids, self.num_classes, labels)
        return self.table(labels)


class DiTBlock(nn.Module):
    def __init__(self, hidden, heads, mlp_ratio=2.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(hidden, elementwise_affine=False, eps=1e-6)
        self.attn = nn.MultiheadAttention(hidden, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(hidden, elementwise_affine=False, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(hidden, int(hidden * mlp_ratio)), nn.GELU(approximate="tanh"),
                                 nn.Linear(int(hidden * mlp_ratio), hidden))
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden, 6 * hidden, bias=True))

    def forward(self, x, c):
        sh_msa, sc_msa, g_msa, sh_mlp, sc_mlp, g_mlp = self.adaLN_modulation(c).chunk(6, dim=1)
        h = modulate(self.norm1(x), sh_msa, sc_msa)
        x = x + g_msa.unsqueeze(1) * self.attn(h, h, h, need_weights=False)[0]
        x = x + g_mlp.unsqueeze(1) * self.mlp(modulate(self.norm2(x), sh_mlp, sc_mlp))
        return x


class TinyDiT(nn.Module):
    def __init__(self, ch=2, size=8, patch=4, hidden=16, heads=2, depth=2, classes=3):
        super().__init__()
        self.ch, self.p = ch, patch
        self.x_embedder = nn.Conv2d(ch, hidden, patch, stride=patch)
        n = (size // patch) ** 2
        self.pos_embed = nn.Parameter(torch.zeros(1, n, hidden), requires_grad=False)
        self.t_embedder = TimestepEmbedder(hidden)
        self.y_embedder = LabelEmbedder(classes, hidden)
        self.blocks = nn.ModuleList([DiTBlock(hidden, heads) for _ in range(depth)])
        self.norm_final = nn.LayerNorm(hidden, elementwise_affine=False, eps=1e-6)
        self.linear = nn.Linear(hidden, patch * patch * ch)
        self.adaLN_final = nn.Sequential(nn.SiLU(), nn.Linear(hidden, 2 * hidden))

    def unpatchify(self, x):
        c, p = self.ch, self.p
        h = w = int(x.shape[1] ** 0.5)
        x = x.reshape(shape=(x.shape[0], h, w, p, p, c))
        x = torch.einsum("nhwpqc->nchpwq", x)
        return x.reshape(shape=(x.shape[0], c, h * p, h * p))

    def forward(self, x, t, y):
        x = self.x_embedder(x).flatten(2).transpose(1, 2) + self.pos_embed
        c = self.t_embedder(t) + self.y_embedder(y)
        for blk in self.blocks:
            x = blk(x, c)
        shift, scale = self.adaLN_final(c).chunk(2, dim=1)
        x = self.linear(modulate(self.norm_final(x), shift, scale))
        return self.unpatchify(x)

    def forward_with_cfg(self, x, t, y, cfg_scale):
        half = x[: len(x) // 2]
        combined = torch.cat([half, half], dim=0)
        out = self.forward(combined, t, y)
        cond, uncond = torch.split(out, len(out) // 2, dim=0)
        guided = uncond + cfg_scale * (cond - uncond)
        return torch.cat([guided, guided], dim=0)


model = TinyDiT()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.requires_grad:
            p.copy_(T(*p.shape) * 0.2)
    grid = torch.arange(4, dtype=torch.float32)
    model.pos_embed.copy_(TimestepEmbedder.timestep_embedding(grid, 16).unsqueeze(0))
zeroed = TinyDiT()
for blk in zeroed.blocks:
    nn.init.constant_(blk.adaLN_modulation[-1].weight, 0)
    nn.init.constant_(blk.adaLN_modulation[-1].bias, 0)
print("adaLN-zero block is identity", all(
    torch.equal(b(xx := T(2, 4, 16), T(2, 16)), xx) for b in zeroed.blocks))
print("params", sum(p.numel() for p in model.parameters() if p.requires_grad),
      sum(p.numel() for p in model.parameters()), model.pos_embed.requires_grad)
print("temb", r(TimestepEmbedder.timestep_embedding(torch.tensor([0.0, 0.5]), 7)[1], 7))

x1 = T(4, 2, 8, 8)
y = torch.tensor([0, 1, 2, 1])
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3, weight_decay=0.01)
for step in range(3):
    x0 = T(*x1.shape)
    t = torch.sigmoid(T(4))  # logit-normal timestep sampling
    texp = t.view(-1, *([1] * (x1.dim() - 1)))
    xt = (1 - texp) * x0 + texp * x1
    drop = torch.from_numpy(rng.random(4) < 0.25)
    v = model(xt, t, torch.where(drop, 3, y))
    loss = ((v - (x1 - x0)) ** 2).mean(dim=list(range(1, x1.ndim)))
    opt.zero_grad()
    loss.mean().backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, norm_type=2.0)
    opt.step()
    print("step", step, r(loss, 4), round(gn.item(), 4), drop.tolist())


@torch.no_grad()
def sample(model, z, y, steps, method="euler", cfg=None):
    dt = 1.0 / steps
    ts = torch.linspace(0, 1, steps + 1)
    for i in range(steps):
        tc = ts[i].expand(z.shape[0])
        f = (lambda zz, tt: model.forward_with_cfg(zz, tt, y, cfg)) if cfg else (lambda zz, tt: model(zz, tt, y))
        v = f(z, tc)
        if method == "heun" and i < steps - 1:
            z_pred = z + dt * v
            v2 = f(z_pred, ts[i + 1].expand(z.shape[0]))
            z = z + dt * 0.5 * (v + v2)
        else:
            z = z + dt * v
    return z


model.eval()
z0 = T(2, 2, 8, 8)
ye = torch.tensor([1, 2])
e = sample(model, z0.clone(), ye, 4)
h = sample(model, z0.clone(), ye, 4, "heun")
print("euler", r(e), round(e.std().item(), 4))
print("heun", r(h), round((e - h).abs().max().item(), 4))
g = sample(model, torch.cat([z0[:1], z0[:1]]), torch.tensor([1, 3]), 2, cfg=1.5)
print("cfg", tuple(g.shape), r(g), torch.equal(g[0], g[1]))
# straightness of the learned flow: variance of velocity along the trajectory
with torch.no_grad():
    vs = torch.stack([model(z0, torch.full((2,), float(s)), ye) for s in (0.0, 0.5, 1.0)])
print("straightness", round(vs.var(dim=0, unbiased=False).mean().item(), 4), vs.shape)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    v_bf = model(z0, torch.full((2,), 0.5), ye)
    tok = model.x_embedder(z0).flatten(2).transpose(1, 2)
    att = F.scaled_dot_product_attention(tok[:, None], tok[:, None], tok[:, None])
    sim = torch.einsum("bnd,bmd->bnm", tok, tok)
    dist = torch.cdist(tok, tok)
    grid = F.grid_sample(z0, torch.zeros(2, 1, 1, 2), align_corners=False)
v_fp = model(z0, torch.full((2,), 0.5), ye).detach()
print("autocast", v_bf.dtype, tok.dtype, att.dtype, sim.dtype, dist.dtype, grid.dtype,
      round((v_bf.float() - v_fp).abs().mean().item(), 1))
print("bf16 attention", r(att.float(), 4), r(dist.float(), 3))
patches = F.unfold(x1[:1], kernel_size=4, stride=4)
print("unfold patches", tuple(patches.shape), torch.allclose(
    model.x_embedder(x1[:1]).flatten(2), model.x_embedder.weight.flatten(1) @ patches + model.x_embedder.bias[:, None],
    atol=1e-5))
try:
    model.unpatchify(T(1, 3, 32))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    model.x_embedder(T(2, 3, 8, 8))
except RuntimeError as e:
    print("RuntimeError", e)
