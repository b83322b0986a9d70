"""A diffusion UNet as guided-diffusion/diffusers write it: sinusoidal timestep embeddings, ResBlocks with
scale-shift (AdaGN) conditioning, zero-initialized output convs, self-attention over spatial tokens with
scaled_dot_product_attention, down/upsampling with skip concatenation, gradient checkpointing, v-prediction training
with min-SNR weights, and the module bookkeeping (repr fragments, parameter counts, state_dict keys) people print."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def zero_module(module):
    for p in module.parameters():
        p.detach().zero_()
    return module


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        embedding = torch.cat([embedding, torch.zeros_like(embedding[:, :1])], dim=-1)
    return embedding


class ResBlock(nn.Module):
    def __init__(self, cin, cout, emb_dim, use_checkpoint=False):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.in_layers = nn.Sequential(nn.GroupNorm(4, cin), nn.SiLU(), nn.Conv2d(cin, cout, 3, padding=1))
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(emb_dim, 2 * cout))
        self.out_norm = nn.GroupNorm(4, cout)
        self.out_layers = nn.Sequential(nn.SiLU(), nn.Dropout(p=0.0), zero_module(nn.Conv2d(cout, cout, 3, padding=1)))
        self.skip = nn.Identity() if cin == cout else nn.Conv2d(cin, cout, 1)

    def _forward(self, x, emb):
        h = self.in_layers(x)
        scale, shift = self.emb_layers(emb)[..., None, None].chunk(2, dim=1)
        h = self.out_norm(h) * (1 + scale) + shift
        return self.skip(x) + self.out_layers(h)

    def forward(self, x, emb):
        if self.use_checkpoint and self.training:
            return checkpoint(self._forward, x, emb, use_reentrant=False)
        return self._forward(x, emb)


class AttentionBlock(nn.Module):
    def __init__(self, c, heads=2):
        super().__init__()
        self.heads = heads
        self.norm = nn.GroupNorm(4, c)
        self.qkv = nn.Conv1d(c, 3 * c, 1)
        self.proj = zero_module(nn.Conv1d(c, c, 1))

    def forward(self, x):
        b, c, *spatial = x.shape
        h = self.qkv(self.norm(x).reshape(b, c, -1))
        q, k, v = h.reshape(b, 3, self.heads, c // self.heads, -1).permute(1, 0, 2, 4, 3).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v)
        a = a.permute(0, 1, 3, 2).reshape(b, c, -1)
        return x + self.proj(a).reshape(b, c, *spatial)


class UNet(nn.Module):
    def __init__(self, cin=2, ch=8, emb_dim=16, use_checkpoint=False):
        super().__init__()
        self.ch = ch
        self.time_embed = nn.Sequential(nn.Linear(ch, emb_dim), nn.SiLU(), nn.Linear(emb_dim, emb_dim))
        self.inp = nn.Conv2d(cin, ch, 3, padding=1)
        self.down1 = ResBlock(ch, ch, emb_dim, use_checkpoint)
        self.downsample = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.down2 = ResBlock(ch, 2 * ch, emb_dim, use_checkpoint)
        self.mid_attn = AttentionBlock(2 * ch)
        self.mid = ResBlock(2 * ch, 2 * ch, emb_dim, use_checkpoint)
        self.up2 = ResBlock(4 * ch, ch, emb_dim, use_checkpoint)
        self.upsample = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(ch, ch, 3, padding=1))
        self.up1 = ResBlock(2 * ch, ch, emb_dim, use_checkpoint)
        self.out = nn.Sequential(nn.GroupNorm(4, ch), nn.SiLU(), zero_module(nn.Conv2d(ch, cin, 3, padding=1)))

    def forward(self, x, t):
        emb = self.time_embed(timestep_embedding(t, self.ch))
        h1 = self.down1(self.inp(x), emb)
        h2 = self.down2(self.downsample(h1), emb)
        m = self.mid(self.mid_attn(h2), emb)
        u2 = self.up2(torch.cat([m, h2], dim=1), emb)
        u1 = self.up1(torch.cat([self.upsample(u2), h1], dim=1), emb)
        return self.out(u1)


def det_init_(module, scale=0.2):
    with torch.no_grad():
        for k, (name, p) in enumerate(module.named_parameters()):
            if p.abs().sum() == 0 and "out" in name or "proj" in name:
                continue  # keep zero-initialized layers at zero
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.23 + 0.01 * k) + k).view_as(p))


print("temb", timestep_embedding(torch.tensor([0, 10, 999]), 5))
unet = UNet()
det_init_(unet)
n_params = sum(p.numel() for p in unet.parameters())
n_zero = sum(p.numel() for n, p in unet.named_parameters() if (p == 0).all())
print("params", n_params, "zero-init", n_zero, "trainable", sum(p.requires_grad for p in unet.parameters()))
print(unet.mid_attn)
print("keys", [k for k in unet.state_dict().keys() if k.startswith("down1.")][:6])

x0 = torch.sin(torch.arange(2 * 2 * 8 * 8, dtype=torch.float32).view(2, 2, 8, 8) * 0.13)
t = torch.tensor([50, 700])
out = unet(x0, t)
print("out", out.shape, "all zero (zero-init head)", bool((out == 0).all()))

T = 1000
betas = torch.linspace(1e-4, 0.02, T, dtype=torch.float64)
ac = torch.cumprod(1 - betas, 0).float()
noise = torch.cos(torch.arange(x0.numel(), dtype=torch.float32).view_as(x0) * 0.71)
a = ac[t].sqrt().view(-1, 1, 1, 1)
s = (1 - ac[t]).sqrt().view(-1, 1, 1, 1)
xt = a * x0 + s * noise
v_target = a * noise - s * x0
snr = ac[t] / (1 - ac[t])
w = torch.clamp(snr, max=5.0) / (snr + 1)
opt = torch.optim.AdamW(unet.parameters(), lr=2e-3, weight_decay=0.0)
for step in range(6):
    pred = unet(xt, t)
    loss = (w * F.mse_loss(pred, v_target, reduction="none").mean(dim=(1, 2, 3))).mean()
    opt.zero_grad()
    loss.backward()
    if step == 0:
        grads = {n: p.grad for n, p in unet.named_parameters()}
        print("first-step grads: out conv", round(grads["out.2.weight"].norm().item(), 4), "in conv",
              grads["inp.weight"].abs().sum().item(), "(zero head blocks the rest)")
    opt.step()
    print("step", step, round(loss.item(), 5))
print("out conv now nonzero", bool(unet.out[2].weight.abs().sum() > 0))

# gradient checkpointing gives the same gradients
ck = UNet(use_checkpoint=True)
ck.load_state_dict(unet.state_dict())
ck.zero_grad()
unet.zero_grad()
l1 = F.mse_loss(unet(xt, t), v_target)
l2 = F.mse_loss(ck(xt, t), v_target)
l1.backward()
l2.backward()
same = all(torch.allclose(p.grad, q.grad, atol=1e-6) for p, q in zip(unet.parameters(), ck.parameters())
           if p.grad is not None)
print("checkpoint loss", round(l1.item(), 5), round(l2.item(), 5), "grads equal", same)
print("mid grad_fn", type(ck.mid(ck.mid_attn(torch.zeros(1, 16, 4, 4)), torch.zeros(1, 16)).grad_fn).__name__)

# sampling one DDIM step with the trained net (v -> eps, x0)
unet.eval()
with torch.no_grad():
    v_pred = unet(xt, t)
    x0_pred = a * xt - s * v_pred
    eps_pred = s * xt + a * v_pred
    t_prev = t - 50
    ap = ac[t_prev].sqrt().view(-1, 1, 1, 1)
    sp = (1 - ac[t_prev]).sqrt().view(-1, 1, 1, 1)
    x_prev = ap * x0_pred + sp * eps_pred
print("x0 err", r((x0_pred - x0).pow(2).mean(dim=(1, 2, 3)), 4), "x_prev", r(x_prev[1, 0, 0], 4))
