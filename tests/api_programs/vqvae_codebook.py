"""VQ-VAE: codebook lookup via cdist/argmin, straight-through estimator, commitment loss, perplexity,
EMA codebook updates with index_add_/bincount, dead-code restarts and codebook usage statistics."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class VectorQuantizer(nn.Module):
    def __init__(self, num_codes, dim, beta=0.25):
        super().__init__()
        self.num_codes, self.dim, self.beta = num_codes, dim, beta
        self.embedding = nn.Embedding(num_codes, dim)
        self.embedding.weight.data.uniform_(-1.0 / num_codes, 1.0 / num_codes)

    def forward(self, z):
        z = z.permute(0, 2, 3, 1).contiguous()
        flat = z.view(-1, self.dim)
        d = (torch.sum(flat ** 2, dim=1, keepdim=True) + torch.sum(self.embedding.weight ** 2, dim=1)
             - 2 * torch.matmul(flat, self.embedding.weight.t()))
        idx = torch.argmin(d, dim=1).unsqueeze(1)
        enc = torch.zeros(idx.shape[0], self.num_codes, device=z.device)
        enc.scatter_(1, idx, 1)
        zq = torch.matmul(enc, self.embedding.weight).view(z.shape)
        loss = F.mse_loss(zq.detach(), z) * self.beta + F.mse_loss(zq, z.detach())
        zq = z + (zq - z).detach()
        avg = torch.mean(enc, dim=0)
        perplexity = torch.exp(-torch.sum(avg * torch.log(avg + 1e-10)))
        return loss, zq.permute(0, 3, 1, 2).contiguous(), perplexity, idx.squeeze(1)


class EMAQuantizer(nn.Module):
    def __init__(self, num_codes, dim, decay=0.9, eps=1e-5):
        super().__init__()
        self.decay, self.eps = decay, eps
        self.register_buffer("codebook", T(num_codes, dim))
        self.register_buffer("cluster_size", torch.zeros(num_codes))
        self.register_buffer("embed_avg", self.codebook.clone())

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        dist = torch.cdist(flat, self.codebook, p=2.0)
        idx = dist.argmin(dim=-1)
        q = F.embedding(idx, self.codebook).view_as(x)
        if self.training:
            with torch.no_grad():
                onehot = F.one_hot(idx, self.codebook.shape[0]).type(flat.dtype)
                counts = torch.bincount(idx, minlength=self.codebook.shape[0]).to(flat.dtype)
                assert torch.equal(counts, onehot.sum(0))
                self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
                embed_sum = torch.zeros_like(self.embed_avg).index_add_(0, idx, flat)
                self.embed_avg.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                size = (self.cluster_size + self.eps) / (n + self.codebook.shape[0] * self.eps) * n
                self.codebook.copy_(self.embed_avg / size.unsqueeze(1))
        commit = F.mse_loss(x, q.detach())
        return x + (q - x).detach(), idx, commit


enc = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.ReLU(), nn.Conv2d(8, 4, 3, 1, 1))
dec = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, 2, 1), nn.ReLU(), nn.Conv2d(8, 1, 3, 1, 1))
vq = VectorQuantizer(6, 4)
with torch.no_grad():
    for m in (enc, dec):
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.3)
    vq.embedding.weight.copy_(T(6, 4) * 0.5)
print(vq)
print("embedding init range", vq.embedding.weight.shape, vq.embedding.weight.dtype)

x = T(2, 1, 8, 8)
params = list(enc.parameters()) + list(dec.parameters()) + list(vq.parameters())
opt = torch.optim.Adam(params, lr=2e-3)
for step in range(3):
    z = enc(x)
    vq_loss, zq, ppl, idx = vq(z)
    recon = dec(zq)
    rec_loss = F.mse_loss(recon, x)
    loss = rec_loss + vq_loss
    opt.zero_grad()
    loss.backward()
    print("step", step, round(rec_loss.item(), 4), round(vq_loss.item(), 4), round(ppl.item(), 4),
          idx[:8].tolist(), torch.unique(idx).numel())
    opt.step()

# straight-through: gradient into the encoder output equals the gradient at the quantized value
z = enc(x).detach().requires_grad_(True)
_, zq, _, _ = vq(z)
w = T(*zq.shape)
(zq * w).sum().backward()
print("st grad equals upstream", torch.allclose(z.grad, w), z.grad.shape)
print("zq grad_fn", type(zq.grad_fn).__name__ if zq.grad_fn is not None else None)

# EMA quantizer on channels-last latents
ema = EMAQuantizer(5, 3)
lat = T(2, 4, 4, 3)
for it in range(4):
    q, idx, commit = ema(lat + 0.1 * it)
    print("ema", it, idx[:6].tolist(), r(ema.cluster_size, 5), round(commit.item(), 4))
print("codebook", r(ema.codebook[2:]), ema.codebook.requires_grad)
counts = torch.bincount(idx, minlength=5)
dead = (ema.cluster_size < 0.5).nonzero(as_tuple=True)[0]
print("counts", counts.tolist(), "dead", dead.tolist(), counts.dtype)
if dead.numel() > 0:
    flat = lat.reshape(-1, 3)
    pick = torch.from_numpy(rng.integers(0, flat.shape[0], dead.numel()))
    with torch.no_grad():
        ema.codebook[dead] = flat[pick]
    print("restarted", r(ema.codebook[dead]))
ema.eval()
q2, idx2, _ = ema(lat)
print("eval keeps buffers", r(ema.cluster_size, 5), idx2.shape, q2.shape)
sd = ema.state_dict()
print("state", list(sd.keys()), [tuple(v.shape) for v in sd.values()])

# codebook distances: cdist vs expanded formula and usage entropy
a, b = T(7, 3), T(4, 3)
d1 = torch.cdist(a, b)
d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1).sqrt()
print("cdist", torch.allclose(d1, d2, atol=1e-5), r(d1), r(torch.cdist(a, b, p=1)))
probs = torch.bincount(d1.argmin(1), minlength=4).float() / 7
ent = torch.special.entr(probs).sum()
print("usage", probs.tolist(), round(ent.item(), 4), round(torch.exp(ent).item(), 4))
dist = torch.distributions.Categorical(probs=probs)
print("entropy agrees", round(dist.entropy().item(), 4))
print("topk codes", d1.topk(2, dim=1, largest=False).indices[:3].tolist())
up = dec[0]
print("decoder output_size", tuple(up(zq.detach(), output_size=[9, 9]).shape), tuple(up(zq.detach()).shape))
try:
    up(zq.detach(), output_size=(10, 7))
except ValueError as e:
    print("ValueError", e)
try:
    torch.cdist(a, T(4, 2))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.bincount(torch.tensor([1, -1]))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    F.embedding(torch.tensor([7]), ema.codebook)
except IndexError as e:
    print("IndexError", e)
