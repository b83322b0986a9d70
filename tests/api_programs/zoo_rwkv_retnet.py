"""RWKV and RetNet as their reference implementations write them: RWKV time mixing with token shift through
nn.ZeroPad2d, the WKV recurrence in a numerically stable loop against a parallel form, channel mixing with squared
ReLU; RetNet retention with per-head decays, the parallel decay mask, the recurrent state form and the chunkwise
equivalence, xPos-style rotation; gradients checked with gradcheck and a few training steps."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(6)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def npt(*shape, scale=1.0, dtype=np.float32):
    return torch.from_numpy((scale * rng.standard_normal(shape)).astype(dtype))


class RWKV_TimeMix(nn.Module):
    def __init__(self, n_embd, layer_id=0, n_layer=2):
        super().__init__()
        self.time_shift = nn.ZeroPad2d((0, 0, 1, -1))
        ratio_0_to_1 = layer_id / (n_layer - 1)
        ratio_1_to_almost0 = 1.0 - (layer_id / n_layer)
        x = torch.ones(1, 1, n_embd)
        for i in range(n_embd):
            x[0, 0, i] = i / n_embd
        decay_speed = torch.ones(n_embd)
        for h in range(n_embd):
            decay_speed[h] = -5 + 8 * (h / (n_embd - 1)) ** (0.7 + 1.3 * ratio_0_to_1)
        self.time_decay = nn.Parameter(decay_speed)
        zigzag = torch.tensor([(i + 1) % 3 - 1 for i in range(n_embd)]) * 0.5
        self.time_first = nn.Parameter(torch.ones(n_embd) * math.log(0.3) + zigzag)
        self.time_mix_k = nn.Parameter(torch.pow(x, ratio_1_to_almost0))
        self.time_mix_v = nn.Parameter(torch.pow(x, ratio_1_to_almost0) + 0.3 * ratio_0_to_1)
        self.time_mix_r = nn.Parameter(torch.pow(x, 0.5 * ratio_1_to_almost0))
        self.key = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(n_embd, n_embd, bias=False)
        self.receptance = nn.Linear(n_embd, n_embd, bias=False)
        self.output = nn.Linear(n_embd, n_embd, bias=False)

    def wkv(self, w, u, k, v):
        B, T, C = k.shape
        w = -torch.exp(w)
        aa = torch.zeros(B, C)
        bb = torch.zeros(B, C)
        pp = torch.full((B, C), -1e38)
        out = []
        for t in range(T):
            kk, vv = k[:, t], v[:, t]
            ww = u + kk
            p = torch.maximum(pp, ww)
            e1, e2 = torch.exp(pp - p), torch.exp(ww - p)
            out.append((e1 * aa + e2 * vv) / (e1 * bb + e2))
            ww = w + pp
            p = torch.maximum(ww, kk)
            e1, e2 = torch.exp(ww - p), torch.exp(kk - p)
            aa = e1 * aa + e2 * vv
            bb = e1 * bb + e2
            pp = p
        return torch.stack(out, dim=1)

    def forward(self, x):
        xx = self.time_shift(x)
        xk = x * self.time_mix_k + xx * (1 - self.time_mix_k)
        xv = x * self.time_mix_v + xx * (1 - self.time_mix_v)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        k, v = self.key(xk), self.value(xv)
        sr = torch.sigmoid(self.receptance(xr))
        return self.output(sr * self.wkv(self.time_decay, self.time_first, k, v))


def wkv_parallel(w, u, k, v):
    T = k.shape[1]
    t = torch.arange(T)
    dist = (t[:, None] - t[None, :] - 1).clamp(min=0).to(k.dtype)
    logits = -torch.exp(w) * dist[..., None] + k[:, None, :, :]
    logits = logits.masked_fill((t[None, :] >= t[:, None])[None, :, :, None], float("-inf"))
    diag = (u + k)[:, :, None, :]
    logits = torch.cat([logits, diag], dim=2)
    vals = torch.cat([v[:, None].expand(-1, T, -1, -1), v[:, :, None]], dim=2)
    return (torch.softmax(logits, dim=2) * vals).sum(2)


class RWKV_ChannelMix(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.time_shift = nn.ZeroPad2d((0, 0, 1, -1))
        self.time_mix_k = nn.Parameter(torch.full((1, 1, n_embd), 0.6))
        self.time_mix_r = nn.Parameter(torch.full((1, 1, n_embd), 0.4))
        self.key = nn.Linear(n_embd, 2 * n_embd, bias=False)
        self.receptance = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(2 * n_embd, n_embd, bias=False)

    def forward(self, x):
        xx = self.time_shift(x)
        xk = x * self.time_mix_k + xx * (1 - self.time_mix_k)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        k = torch.square(torch.relu(self.key(xk)))
        return torch.sigmoid(self.receptance(xr)) * self.value(k)


x = torch.arange(12, dtype=torch.float32).view(1, 4, 3)
print(nn.ZeroPad2d((0, 0, 1, -1)), nn.ZeroPad2d((0, 0, 1, -1))(x)[0].tolist())
tm = RWKV_TimeMix(6, layer_id=1)
print("decay", r(tm.time_decay, 6), "first", r(tm.time_first, 6), "mix_v", r(tm.time_mix_v, 6))
with torch.no_grad():
    for lin in (tm.key, tm.value, tm.receptance, tm.output):
        lin.weight.copy_(npt(6, 6, scale=0.4))
k, v = npt(2, 5, 6), npt(2, 5, 6)
seq = tm.wkv(tm.time_decay, tm.time_first, k, v)
print("wkv", tuple(seq.shape), r(seq, 6), "parallel agrees",
      torch.allclose(seq, wkv_parallel(tm.time_decay, tm.time_first, k, v), atol=1e-5))
wd, ud = tm.time_decay.detach().double().requires_grad_(), tm.time_first.detach().double().requires_grad_()
print("gradcheck wkv", torch.autograd.gradcheck(lambda a, b: wkv_parallel(a, b, k.double(), v.double()), (wd, ud)))


def retention_parallel(q, k, v, gammas):
    T = q.shape[-2]
    n = torch.arange(T)[:, None]
    m = torch.arange(T)[None, :]
    D = gammas.view(-1, 1, 1) ** (n - m).clamp(min=0) * (n >= m)
    return (q @ k.transpose(-1, -2) * D) @ v, D


def retention_recurrent(q, k, v, gammas):
    B, H, T, d = q.shape
    S = torch.zeros(B, H, d, v.shape[-1])
    outs = []
    for t in range(T):
        S = gammas.view(1, -1, 1, 1) * S + k[:, :, t, :, None] * v[:, :, t, None, :]
        outs.append((q[:, :, t, None, :] @ S).squeeze(-2))
    return torch.stack(outs, dim=2), S


def rotate_every_two(x):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def theta_shift(x, sin, cos):
    return (x * cos) + (rotate_every_two(x) * sin)


H, T, d = 2, 5, 4
gammas = 1 - torch.exp(torch.linspace(math.log(1 / 32), math.log(1 / 512), H))
print("gammas", r(gammas, 2))
angle = 1.0 / (10000 ** torch.linspace(0, 1, d // 2))
angle = angle.unsqueeze(-1).repeat(1, 2).flatten()
index = torch.arange(T).to(angle)
sin, cos = torch.sin(index[:, None] * angle[None, :]), torch.cos(index[:, None] * angle[None, :])
q, kk, vv = npt(2, H, T, d), npt(2, H, T, d), npt(2, H, T, d)
qr, kr = theta_shift(q, sin, cos), theta_shift(kk, sin, cos)
par, D = retention_parallel(qr, kr, vv, gammas)
rec, state = retention_recurrent(qr, kr, vv, gammas)
print("decay mask", r(D[0, 2], 5), "parallel == recurrent", torch.allclose(par, rec, atol=1e-4), tuple(state.shape))
print("rotation keeps norms", torch.allclose(qr.norm(dim=-1), q.norm(dim=-1), atol=1e-5))
print("retention", r(par[1, 1, -1], 4))
g = nn.GroupNorm(H, H * d, affine=False)
print("group norm heads", r(g(par.transpose(1, 2).reshape(2 * T, H * d)), 4))


class Block(nn.Module):
    def __init__(self, n_embd, layer_id):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
        self.att = RWKV_TimeMix(n_embd, layer_id)
        self.ffn = RWKV_ChannelMix(n_embd)

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.ffn(self.ln2(x))


model = nn.Sequential(nn.Embedding(7, 6), Block(6, 0), Block(6, 1), nn.LayerNorm(6), nn.Linear(6, 7, bias=False))
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.ndim == 2:
            p.copy_(npt(*p.shape, scale=0.4))
print("params", sum(p.numel() for p in model.parameters()),
      "no-decay", sorted({n.split(".")[-1] for n, p in model.named_parameters() if p.ndim != 2}))
tokens = torch.from_numpy(rng.integers(0, 7, size=(2, 6)))
opt = torch.optim.Adam(model.parameters(), lr=1e-2, betas=(0.9, 0.99), eps=1e-8)
for step in range(4):
    opt.zero_grad()
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 7), tokens[:, 1:].reshape(-1))
    loss.backward()
    if step == 0:
        print("grad decay", r(model[1].att.time_decay.grad, 3), "first", r(model[2].att.time_first.grad, 3))
    opt.step()
    print("step", step, round(loss.item(), 4))
