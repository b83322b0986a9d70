"""Masked autoencoders: patchify by reshape/einsum and by unfold, 2-D sin-cos position embeddings, random masking
with argsort/gather on numpy-given noise, ids_restore unshuffle with mask tokens, a masked per-patch-normalized MSE,
BEiT-style block masking with bool indexing, unpatchify round trips and the gradient reaching only visible patches."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def patchify(imgs, p):
    n, c, h, w = imgs.shape
    hh, ww = h // p, w // p
    x = imgs.reshape(shape=(n, c, hh, p, ww, p))
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(shape=(n, hh * ww, p ** 2 * c))


def unpatchify(x, p, c=3):
    h = w = int(x.shape[1] ** 0.5)
    assert h * w == x.shape[1]
    x = x.reshape(shape=(x.shape[0], h, w, p, p, c))
    x = torch.einsum("nhwpqc->nchpwq", x)
    return x.reshape(shape=(x.shape[0], c, h * p, h * p))


def get_1d_sincos(embed_dim, pos):
    omega = np.arange(embed_dim // 2, dtype=np.float64) / (embed_dim / 2.0)
    omega = 1.0 / 10000 ** omega
    out = np.einsum("m,d->md", pos.reshape(-1), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def get_2d_sincos(embed_dim, grid_size, cls_token=False):
    grid = np.meshgrid(np.arange(grid_size, dtype=np.float32), np.arange(grid_size, dtype=np.float32))
    grid = np.stack(grid, axis=0).reshape([2, 1, grid_size, grid_size])
    emb = np.concatenate([get_1d_sincos(embed_dim // 2, grid[0]), get_1d_sincos(embed_dim // 2, grid[1])], axis=1)
    if cls_token:
        emb = np.concatenate([np.zeros([1, embed_dim]), emb], axis=0)
    return emb


def random_masking(x, mask_ratio, noise):
    N, L, D = x.shape
    len_keep = int(L * (1 - mask_ratio))
    ids_shuffle = torch.argsort(noise, dim=1)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep]
    x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, D))
    mask = torch.ones([N, L], device=x.device)
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, dim=1, index=ids_restore)
    return x_masked, mask, ids_restore


class TinyMAE(nn.Module):
    def __init__(self, p=4, c=3, grid=2, dim=8, dec_dim=4):
        super().__init__()
        self.p = p
        self.patch_embed = nn.Conv2d(c, dim, kernel_size=p, stride=p)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, grid * grid + 1, dim), requires_grad=False)
        self.enc = nn.TransformerEncoderLayer(dim, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
        self.norm = nn.LayerNorm(dim)
        self.decoder_embed = nn.Linear(dim, dec_dim)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, dec_dim))
        self.decoder_pos_embed = nn.Parameter(torch.zeros(1, grid * grid + 1, dec_dim), requires_grad=False)
        self.dec = nn.TransformerEncoderLayer(dec_dim, 1, 8, dropout=0.0, batch_first=True, activation="gelu")
        self.decoder_pred = nn.Linear(dec_dim, p * p * c)
        self.pos_embed.data.copy_(torch.from_numpy(get_2d_sincos(dim, grid, True)).float().unsqueeze(0))
        self.decoder_pos_embed.data.copy_(torch.from_numpy(get_2d_sincos(dec_dim, grid, True)).float().unsqueeze(0))
        with torch.no_grad():
            for n, prm in self.named_parameters():
                if prm.requires_grad:
                    prm.copy_(T(*prm.shape) * 0.3)

    def forward(self, imgs, noise, mask_ratio=0.75):
        x = self.patch_embed(imgs).flatten(2).transpose(1, 2)
        x = x + self.pos_embed[:, 1:, :]
        x, mask, ids_restore = random_masking(x, mask_ratio, noise)
        cls = (self.cls_token + self.pos_embed[:, :1, :]).expand(x.shape[0], -1, -1)
        x = self.norm(self.enc(torch.cat((cls, x), dim=1)))
        x = self.decoder_embed(x)
        mask_tokens = self.mask_token.repeat(x.shape[0], ids_restore.shape[1] + 1 - x.shape[1], 1)
        x_ = torch.cat([x[:, 1:, :], mask_tokens], dim=1)
        x_ = torch.gather(x_, dim=1, index=ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))
        x = torch.cat([x[:, :1, :], x_], dim=1) + self.decoder_pos_embed
        pred = self.decoder_pred(self.dec(x))[:, 1:, :]
        target = patchify(imgs, self.p)
        mean, var = target.mean(dim=-1, keepdim=True), target.var(dim=-1, keepdim=True)
        target = (target - mean) / (var + 1.0e-6) ** 0.5
        loss = ((pred - target) ** 2).mean(dim=-1)
        loss = (loss * mask).sum() / mask.sum()
        return loss, pred, mask


imgs = torch.from_numpy(rng.uniform(0, 1, (2, 3, 8, 8)).astype(np.float32))
pt = patchify(imgs, 4)
uf = F.unfold(imgs, kernel_size=4, stride=4).transpose(1, 2)
print("patchify", tuple(pt.shape), tuple(uf.shape), torch.equal(unpatchify(pt, 4), imgs))
print("unfold order", torch.allclose(uf.reshape(2, 4, 3, 16).permute(0, 1, 3, 2).reshape(2, 4, 48), pt))
back = F.fold(uf.transpose(1, 2), output_size=(8, 8), kernel_size=4, stride=4)
print("fold", torch.equal(back, imgs), tuple(imgs.unfold(2, 4, 4).unfold(3, 4, 4).shape))
pos = get_2d_sincos(8, 2, cls_token=True)
print("pos", pos.shape, np.round(pos[1:3, :4], 4).tolist())
noise = torch.from_numpy(rng.uniform(size=(2, 4)).astype(np.float32))
x = torch.arange(2 * 4 * 3, dtype=torch.float32).reshape(2, 4, 3)
xm, mask, ids_restore = random_masking(x, 0.5, noise)
print("noise", r(noise, 8), "restore", ids_restore.tolist(), "mask", mask.tolist())
print("kept", xm[..., 0].tolist(), mask.dtype, mask.sum(1).tolist())
print("unshuffle", torch.equal(torch.argsort(ids_restore, 1), torch.argsort(noise, 1)),
      torch.sort(noise, dim=1).indices.tolist(), noise.argsort(dim=1, descending=True).tolist())

model = TinyMAE()
trainable = [p for p in model.parameters() if p.requires_grad]
print("params", sum(p.numel() for p in model.parameters()), sum(p.numel() for p in trainable))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3, betas=(0.9, 0.95),
                        weight_decay=0.05)
for step in range(3):
    noise = torch.from_numpy(rng.uniform(size=(2, 4)).astype(np.float32))
    loss, pred, mask = model(imgs, noise, mask_ratio=0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), tuple(pred.shape), mask.tolist())
g = model.patch_embed.weight.grad
print("grad", tuple(g.shape), round(g.norm().item(), 4), model.pos_embed.grad, model.mask_token.grad.abs().sum() > 0)
rec = unpatchify(pred, 4)
vis = imgs * (1 - mask.unsqueeze(-1).repeat(1, 1, 48).reshape(2, 2, 2, 4, 4, 3).permute(0, 5, 1, 3, 2, 4)
              .reshape(2, 3, 8, 8))
print("rec", tuple(rec.shape), r(rec[0, 0, 0]), round(vis.sum().item(), 4))

# BEiT-style block mask with bool indexing and nonzero
grid = torch.zeros(4, 4, dtype=torch.bool)
grid[1:3, 0:2] = True
grid[3, 3] = True
tokens = T(1, 16, 5)
m = grid.flatten().unsqueeze(0)
print("block", m.sum().item(), torch.nonzero(grid).tolist(), tuple(tokens[m].shape), tuple(tokens[~m].shape))
mt = torch.zeros(5)
filled = torch.where(m.unsqueeze(-1), mt, tokens)
print("filled", round(filled.sum().item(), 4), r(tokens[m].sum(0)), torch.masked_select(tokens[0, :, 0], m[0]).shape)
w = m.float() / m.sum(dim=1, keepdim=True)
print("weights", r(w[0], 16))
try:
    patchify(torch.zeros(1, 3, 9, 8), 4)
except RuntimeError as e:
    print("patchify err", type(e).__name__, e)
try:
    torch.gather(x, 1, ids_restore)
except RuntimeError as e:
    print("gather err", type(e).__name__, e)
try:
    F.unfold(imgs[0, 0], kernel_size=4)
except (RuntimeError, IndexError) as e:
    print("unfold err", type(e).__name__, str(e)[:110])
q, k = T(2, 4, 8), T(2, 4, 8)
with torch.autocast("cpu", dtype=torch.bfloat16):
    attn = torch.einsum("bqd,bkd->bqk", q, k)
    gate = torch.einsum("bqd,bqd->bqd", q, k)
    print("autocast", attn.dtype, gate.dtype, (q[0, 0] @ k[0, 0]).dtype, torch.mv(q[0], k[0, 0]).dtype,
          torch.linalg.vecdot(q, k).dtype, r(attn.float()[0, 0], 4))
acc = before = torch.eye(3)
acc @= torch.full((3, 2), 2.0)
print("imatmul", tuple(acc.shape), tuple(before.shape), acc is before)
