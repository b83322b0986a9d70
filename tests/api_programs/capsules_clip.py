"""Capsule networks with dynamic routing (squash, softmax over routing logits, einsum, margin loss, masked
reconstruction) and a CLIP-style contrastive model with a learnable logit_scale clamped via exp/clamp."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(13)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def squash(s, dim=-1, eps=1e-8):
    sq = (s ** 2).sum(dim=dim, keepdim=True)
    return sq / (1 + sq) * s / torch.sqrt(sq + eps)


class PrimaryCaps(nn.Module):
    def __init__(self, cin, caps, dim, k=3, stride=2):
        super().__init__()
        self.dim = dim
        self.conv = nn.Conv2d(cin, caps * dim, k, stride)

    def forward(self, x):
        out = self.conv(x)
        b = out.size(0)
        out = out.view(b, -1, self.dim, out.size(-2), out.size(-1)).permute(0, 1, 3, 4, 2).reshape(b, -1, self.dim)
        return squash(out)


class DigitCaps(nn.Module):
    def __init__(self, n_in, d_in, n_out, d_out, iters=3):
        super().__init__()
        self.iters = iters
        self.W = nn.Parameter(0.1 * T(1, n_in, n_out, d_out, d_in))

    def forward(self, u):
        u_hat = torch.matmul(self.W, u[:, :, None, :, None]).squeeze(-1)  # (b, n_in, n_out, d_out)
        u_hat_d = u_hat.detach()
        b_ij = torch.zeros(*u_hat.shape[:3], device=u.device)
        for it in range(self.iters):
            c = F.softmax(b_ij, dim=2)
            if it == self.iters - 1:
                s = torch.einsum("bij,bijk->bjk", c, u_hat)
                v = squash(s)
            else:
                s = (c.unsqueeze(-1) * u_hat_d).sum(dim=1)
                v = squash(s)
                b_ij = b_ij + torch.einsum("bijk,bjk->bij", u_hat_d, v)
        return v, c


def margin_loss(v, y, m_pos=0.9, m_neg=0.1, lam=0.5):
    lengths = v.norm(dim=-1)
    t = F.one_hot(y, v.size(1)).float()
    loss = t * F.relu(m_pos - lengths).pow(2) + lam * (1 - t) * F.relu(lengths - m_neg).pow(2)
    return loss.sum(dim=1).mean()


prim = PrimaryCaps(1, 2, 4)
digit = DigitCaps(2 * 3 * 3, 4, 3, 6)
decoder = nn.Sequential(nn.Linear(3 * 6, 16), nn.ReLU(inplace=True), nn.Linear(16, 49), nn.Sigmoid())
with torch.no_grad():
    for p in list(prim.parameters()) + list(decoder.parameters()):
        p.copy_(T(*p.shape) * 0.4)
x = torch.sigmoid(T(4, 1, 7, 7))
y = torch.tensor([0, 2, 1, 2])
print("squash norm < 1", bool((squash(T(5, 4) * 10).norm(dim=-1) < 1).all()), r(squash(torch.tensor([[3.0, 4.0]]))))
u = prim(x)
v, c = digit(u)
print("caps", tuple(u.shape), tuple(v.shape), r(v.norm(dim=-1)))
print("coupling sums", r(c.sum(dim=2)), r(c[0, 0]))
params = list(prim.parameters()) + list(digit.parameters()) + list(decoder.parameters())
opt = torch.optim.Adam(params, lr=1e-2)
for step in range(3):
    v, _ = digit(prim(x))
    mask = F.one_hot(y, 3).unsqueeze(-1).to(v.dtype)
    recon = decoder((v * mask).flatten(1))
    rl = F.mse_loss(recon, x.view(4, -1), reduction="sum") / 4
    ml = margin_loss(v, y)
    loss = ml + 0.0005 * rl
    opt.zero_grad()
    loss.backward()
    opt.step()
    pred = v.norm(dim=-1).argmax(1)
    print("caps step", step, round(ml.item(), 4), round(rl.item(), 4), pred.tolist(),
          round(digit.W.grad.norm().item(), 4))
sel = v[torch.arange(4), y]
alt = torch.gather(v, 1, y.view(4, 1, 1).expand(4, 1, 6)).squeeze(1)
print("select capsule", torch.equal(sel, alt), tuple(sel.shape))


class CLIP(nn.Module):
    def __init__(self, img_dim, txt_vocab, embed):
        super().__init__()
        self.visual = nn.Sequential(nn.Linear(img_dim, 16), nn.GELU(), nn.Linear(16, embed, bias=False))
        self.token_embedding = nn.Embedding(txt_vocab, 16)
        self.text_projection = nn.Parameter(torch.empty(16, embed))
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def encode_text(self, tokens):
        x = self.token_embedding(tokens)
        x = x.cumsum(dim=1) / torch.arange(1, x.shape[1] + 1).view(1, -1, 1)  # a causal mean as the text tower
        eot = tokens.argmax(dim=-1)
        return x[torch.arange(x.shape[0]), eot] @ self.text_projection

    def forward(self, image, text):
        img = self.visual(image)
        txt = self.encode_text(text)
        img = img / img.norm(dim=1, keepdim=True)
        txt = txt / txt.norm(dim=1, keepdim=True)
        logit_scale = self.logit_scale.exp()
        logits_per_image = logit_scale * img @ txt.t()
        return logits_per_image, logits_per_image.t()


clip = CLIP(10, 12, 8)
with torch.no_grad():
    for n, p in clip.named_parameters():
        if n != "logit_scale":
            p.copy_(T(*p.shape) * 0.3)
print("logit_scale", round(clip.logit_scale.item(), 4), clip.logit_scale.shape, clip.logit_scale.dim())
imgs = T(5, 10)
toks = torch.from_numpy(rng.integers(1, 11, (5, 6)))
toks[torch.arange(5), torch.tensor([5, 3, 4, 2, 5])] = 11
opt = torch.optim.AdamW(clip.parameters(), lr=0.05, weight_decay=0.2)
labels = torch.arange(5)
for step in range(3):
    lpi, lpt = clip(imgs, toks)
    loss = (F.cross_entropy(lpi, labels) + F.cross_entropy(lpt, labels, label_smoothing=0.1)) / 2
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        clip.logit_scale.clamp_(0, np.log(100))
    acc = (lpi.argmax(-1) == labels).float().mean()
    print("clip", step, round(loss.item(), 4), round(clip.logit_scale.exp().item(), 4), acc.item(),
          round(clip.logit_scale.grad.item(), 4))
with torch.no_grad():
    clip.logit_scale.fill_(10.0)
    clip.logit_scale.clamp_(max=4.6052)
print("clamped", round(clip.logit_scale.item(), 4), round(clip.logit_scale.exp().clamp(max=100).item(), 4))
fi = F.normalize(clip.visual(imgs), dim=-1)
ft = F.normalize(clip.encode_text(toks), dim=-1)
sim = (100.0 * fi @ ft.T).softmax(dim=-1)
vals, idx = sim[0].topk(3)
print("zero-shot", r(vals, 3), idx.tolist(), r(sim.sum(-1), 5))
print("cos", r(F.cosine_similarity(fi[:, None], ft[None], dim=-1)[0]), r(torch.diagonal(fi @ ft.T)))
try:
    F.cross_entropy(lpi, labels[:4])
except ValueError as e:
    print("ValueError", e)
try:
    clip.token_embedding(torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.einsum("bij,bjk->bik", T(2, 3, 4), T(2, 5, 6))
except RuntimeError as e:
    print("RuntimeError", e)
