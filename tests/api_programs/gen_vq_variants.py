"""Vector quantization variants as codec/tokenizer repos write them: straight-through estimators (x + (q - x).detach()),
codebook EMA with Laplace smoothing via scatter_add_ and one_hot einsum, k-means init, residual VQ, finite scalar
quantization (FSQ) with round-with-STE, lookup-free quantization with entropy terms, Gumbel-softmax relaxed codes,
cosine-similarity codebooks with l2-normalize, and code usage statistics."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det(*shape, a=0.7, b=0.0):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * a + b).view(shape)


class EMAVectorQuantizer(nn.Module):
    def __init__(self, num_codes, dim, decay=0.8, eps=1e-5, beta=0.25):
        super().__init__()
        self.num_codes, self.decay, self.eps, self.beta = num_codes, decay, eps, beta
        self.register_buffer("embed", det(num_codes, dim, a=1.3, b=0.5))
        self.register_buffer("cluster_size", torch.zeros(num_codes))
        self.register_buffer("embed_avg", self.embed.clone())
        self.register_buffer("initted", torch.tensor(False))

    @torch.no_grad()
    def kmeans_init(self, flat, iters=5):
        means = flat[torch.linspace(0, flat.shape[0] - 1, self.num_codes).long()].clone()
        for _ in range(iters):
            buckets = torch.cdist(flat, means).argmin(-1)
            bins = torch.bincount(buckets, minlength=self.num_codes)
            zero = bins == 0
            new = torch.zeros_like(means).scatter_add_(0, buckets.unsqueeze(1).expand(-1, flat.shape[1]), flat)
            new = new / bins.clamp(min=1).unsqueeze(1)
            means = torch.where(zero.unsqueeze(1), means, new)
        self.embed.copy_(means)
        self.embed_avg.copy_(means * bins.unsqueeze(1))
        self.cluster_size.copy_(bins.float())
        self.initted.fill_(True)

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        if self.training and not self.initted:
            self.kmeans_init(flat)
        dist = flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.embed.t() + self.embed.pow(2).sum(1)[None]
        idx = (-dist).max(dim=1).indices
        onehot = F.one_hot(idx, self.num_codes).type(flat.dtype)
        q = F.embedding(idx, self.embed).view_as(x)
        if self.training:
            with torch.no_grad():
                self.cluster_size.mul_(self.decay).add_(onehot.sum(0), alpha=1 - self.decay)
                embed_sum = torch.einsum("nd,nk->kd", flat, onehot)
                self.embed_avg.lerp_(embed_sum, 1 - self.decay)
                n = self.cluster_size.sum()
                smoothed = (self.cluster_size + self.eps) / (n + self.num_codes * self.eps) * n
                self.embed.copy_(self.embed_avg / smoothed.unsqueeze(1))
        commit = self.beta * F.mse_loss(x, q.detach())
        q = x + (q - x).detach()
        return q, idx.view(x.shape[:-1]), commit


vq = EMAVectorQuantizer(8, 4)
x = det(2, 10, 4, a=0.31) * 2 + det(2, 10, 4, a=0.07, b=1.0)
x.requires_grad_(True)
q, idx, commit = vq(x)
print("initted", vq.initted.item(), "cluster", vq.cluster_size, "idx", idx[0].tolist())
(q.sum() * 2 + commit).backward()
print("straight-through grad", r(x.grad[0, 0], 4), "commit", round(commit.item(), 4))
for step in range(4):
    q, idx, commit = vq(x.detach() + 0.05 * step)
probs = torch.bincount(idx.flatten(), minlength=8).float() / idx.numel()
perplexity = torch.exp(-(probs * torch.log(probs + 1e-10)).sum())
print("embed[0]", r(vq.embed[0], 4), "usage", r(probs, 8), "perplexity", round(perplexity.item(), 4))
print("dead codes", (vq.cluster_size < 0.1).nonzero().flatten().tolist())
vq.eval()
q_eval, idx_eval, _ = vq(x.detach())
print("eval no update", torch.equal(idx_eval, vq(x.detach())[1]), q_eval.requires_grad)


# residual VQ: quantize the residual with successive codebooks
def residual_vq(x, codebooks):
    residual, out, codes = x, torch.zeros_like(x), []
    for cb in codebooks:
        d = torch.cdist(residual.reshape(-1, x.shape[-1]), cb)
        i = d.argmin(-1)
        qi = cb[i].view_as(x)
        out = out + qi
        residual = residual - qi
        codes.append(i.view(x.shape[:-1]))
    return out, torch.stack(codes, -1)


books = [det(16, 4, a=0.9, b=k) * (0.5 ** k) * 2 for k in range(3)]
xr = x.detach()[0]
errs = []
for depth in range(1, 4):
    out, codes = residual_vq(xr, books[:depth])
    errs.append(round(F.mse_loss(out, xr).item(), 4))
print("rvq mse by depth", errs, "codes", codes.shape, codes[0].tolist(), codes.dtype)


# FSQ: bound each dim with tanh, round with a straight-through estimator
def round_ste(z):
    return z + (z.round() - z).detach()


levels = torch.tensor([8, 5, 5, 5])
half_l = (levels - 1) * (1 + 1e-3) / 2
offset = torch.where(levels % 2 == 0, 0.5, 0.0)
shift = (offset / half_l).atanh()
z = det(6, 4, a=0.83) * 3
z.requires_grad_(True)
bounded = (z + shift).tanh() * half_l - offset
codes = round_ste(bounded) / (levels // 2)
basis = torch.cumprod(torch.tensor([1] + levels[:-1].tolist()), dim=0)
zhat = (codes * (levels // 2) + levels // 2).round().long()
index = (zhat * basis).sum(-1)
print("fsq codes", codes[0], "index", index.tolist(), "codebook size", int(levels.prod()))
codes.sum().backward()
print("fsq grad", r(z.grad[0], 4))


# lookup-free quantization: sign bits with an entropy penalty
zl = det(12, 5, a=0.57)
q_lfq = torch.where(zl > 0, torch.ones_like(zl), -torch.ones_like(zl))
bits = (q_lfq > 0).long()
token = (bits * (2 ** torch.arange(5))).sum(-1)
all_codes = (((torch.arange(32)[:, None] >> torch.arange(5)) & 1) * 2 - 1).float()
logits = 2 * zl @ all_codes.t()
prob = logits.softmax(-1)
per_sample_entropy = -(prob * prob.clamp_min(1e-5).log()).sum(-1).mean()
avg = prob.mean(0)
codebook_entropy = -(avg * avg.clamp_min(1e-5).log()).sum()
print("lfq tokens", token.tolist(), "entropy", round(per_sample_entropy.item(), 4), round(codebook_entropy.item(), 4))
print("argmax==token", torch.equal(logits.argmax(-1), token))

# Gumbel-softmax codes: hard one-hot in forward, soft gradient in backward (seed-independent facts only)
lg = det(5, 8, a=0.4).requires_grad_(True)
y_hard = F.gumbel_softmax(lg, tau=0.5, hard=True)
print("gumbel hard rows sum", y_hard.sum(-1).tolist(), "one nonzero", (y_hard != 0).sum(-1).tolist(),
      y_hard.requires_grad)
y_soft = F.gumbel_softmax(lg, tau=1.0)
print("gumbel soft sums", torch.allclose(y_soft.sum(-1), torch.ones(5)), bool(((y_soft > 0) & (y_soft < 1)).all()))

# cosine-similarity codebook (ViT-VQGAN): l2-normalized lookups
cb = F.normalize(det(8, 4, a=1.1), dim=-1)
xn = F.normalize(x.detach().reshape(-1, 4), dim=-1, eps=1e-6)
sim = xn @ cb.t()
best = sim.argmax(-1)
print("cos codes", best[:10].tolist(), "max sim", r(sim.max(-1).values, 5))
print("norms", r(cb.norm(dim=-1), 3), "F.cosine_similarity", r(F.cosine_similarity(xn[:3], cb[best[:3]]), 3))
