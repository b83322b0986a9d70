"""CS231n assignment 3, GANs and self-supervised learning: vanilla (BCE-with-logits) and least-squares GAN losses
written by hand against F.binary_cross_entropy_with_logits, a small DCGAN generator/discriminator (Unflatten,
ConvTranspose2d, BatchNorm, LeakyReLU) trained a few alternating steps, and SimCLR's NT-Xent loss three ways."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(2314)


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def init_(module, scale=0.2):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy((scale * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
    return module


def sample_noise(batch_size, dim, seed=None):
    """The assignment's helper: uniform in [-1, 1)."""
    if seed is not None:
        torch.manual_seed(seed)
    return 2 * torch.rand(batch_size, dim) - 1


a, b = sample_noise(3, 4, seed=231), sample_noise(3, 4, seed=231)
print("noise", tuple(a.shape), a.dtype, torch.equal(a, b), bool((a >= -1).all() and (a < 1).all()))


def bce_loss(input, target):
    neg_abs = -input.abs()
    return (input.clamp(min=0) - input * target + (1 + neg_abs.exp()).log()).mean()


def discriminator_loss(logits_real, logits_fake):
    return (F.binary_cross_entropy_with_logits(logits_real, torch.ones_like(logits_real))
            + F.binary_cross_entropy_with_logits(logits_fake, torch.zeros_like(logits_fake)))


def generator_loss(logits_fake):
    return F.binary_cross_entropy_with_logits(logits_fake, torch.ones_like(logits_fake))


def ls_discriminator_loss(scores_real, scores_fake):
    return 0.5 * ((scores_real - 1) ** 2).mean() + 0.5 * (scores_fake ** 2).mean()


def ls_generator_loss(scores_fake):
    return 0.5 * ((scores_fake - 1) ** 2).mean()


lr_ = torch.from_numpy(rng.standard_normal(6).astype(np.float32))
lf = torch.from_numpy(rng.standard_normal(6).astype(np.float32))
print("bce", round(bce_loss(lr_, torch.ones(6)).item(), 4),
      round(F.binary_cross_entropy_with_logits(lr_, torch.ones(6)).item(), 4),
      round(F.binary_cross_entropy(torch.sigmoid(lr_), torch.ones(6)).item(), 4))
print("d/g losses", round(discriminator_loss(lr_, lf).item(), 4), round(generator_loss(lf).item(), 4),
      round(ls_discriminator_loss(lr_, lf).item(), 4), round(ls_generator_loss(lf).item(), 4))
big = torch.tensor([-200.0, 0.0, 200.0])
print("stable", r(F.binary_cross_entropy_with_logits(big, torch.ones(3), reduction="none")),
      r(F.binary_cross_entropy(torch.sigmoid(big), torch.ones(3), reduction="none")))
pw = F.binary_cross_entropy_with_logits(lr_, torch.ones(6), pos_weight=torch.tensor([3.0]), reduction="sum")
print("pos_weight", round(pw.item(), 4), nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0])))
try:
    F.binary_cross_entropy_with_logits(lr_, torch.ones(5))
except ValueError as e:
    print("bce shape", type(e).__name__, e)
try:
    F.binary_cross_entropy(lr_, torch.ones(6))
except RuntimeError as e:
    print("bce not probs", type(e).__name__, e)

NOISE = 8


def build_dc_generator(noise_dim=NOISE):
    return nn.Sequential(
        nn.Linear(noise_dim, 32), nn.ReLU(), nn.BatchNorm1d(32),
        nn.Linear(32, 4 * 2 * 2), nn.ReLU(), nn.BatchNorm1d(16),
        nn.Unflatten(1, (4, 2, 2)),
        nn.ConvTranspose2d(4, 3, kernel_size=4, stride=2, padding=1), nn.ReLU(), nn.BatchNorm2d(3),
        nn.ConvTranspose2d(3, 1, kernel_size=4, stride=2, padding=1), nn.Tanh(),
        nn.Flatten(),
    )


def build_dc_classifier():
    return nn.Sequential(
        nn.Unflatten(1, (1, 8, 8)),
        nn.Conv2d(1, 4, kernel_size=3), nn.LeakyReLU(0.01), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(4 * 3 * 3, 8), nn.LeakyReLU(0.01), nn.Linear(8, 1),
    )


G, D = init_(build_dc_generator()), init_(build_dc_classifier())
print(G[6], G[7], D[2])
print("sizes", sum(p.numel() for p in G.parameters()), sum(p.numel() for p in D.parameters()),
      tuple(G(torch.zeros(2, NOISE)).shape))
G_solver = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
D_solver = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
real = torch.from_numpy(rng.uniform(-1, 1, (6, 64)).astype(np.float32))
noises = torch.from_numpy(rng.uniform(-1, 1, (5, 6, NOISE)).astype(np.float32))
for it in range(5):
    D_solver.zero_grad()
    logits_real = D(real)
    fake = G(noises[it]).detach()
    d_total = discriminator_loss(logits_real, D(fake))
    d_total.backward()
    D_solver.step()
    G_solver.zero_grad()
    g_loss = generator_loss(D(G(noises[it])))
    g_loss.backward()
    G_solver.step()
    print("iter", it, round(d_total.item(), 4), round(g_loss.item(), 4), r(G[2].running_mean, 2),
          G[2].num_batches_tracked.item())
G.eval()
with torch.no_grad():
    imgs = G(noises[0]).view(-1, 1, 8, 8)
print("samples", tuple(imgs.shape), r(imgs), bool(imgs.abs().max() <= 1), imgs.requires_grad)


# SimCLR's NT-Xent loss: a naive loop, a partly vectorized form, and one with cross_entropy.
def sim(z_i, z_j):
    return torch.dot(z_i, z_j) / (torch.linalg.norm(z_i) * torch.linalg.norm(z_j))


def simclr_loss_naive(out_left, out_right, tau):
    N = out_left.shape[0]
    out = torch.cat([out_left, out_right], dim=0)
    total = 0
    for k in range(N):
        z_k, z_k_N = out[k], out[k + N]
        den_k = sum(torch.exp(sim(z_k, out[i]) / tau) for i in range(2 * N) if i != k)
        den_kN = sum(torch.exp(sim(z_k_N, out[i]) / tau) for i in range(2 * N) if i != k + N)
        num = torch.exp(sim(z_k, z_k_N) / tau)
        total += -torch.log(num / den_k) - torch.log(num / den_kN)
    return total / (2 * N)


def simclr_loss_vectorized(out_left, out_right, tau):
    N = out_left.shape[0]
    out = F.normalize(torch.cat([out_left, out_right], dim=0), dim=1)
    exponential = (out @ out.t() / tau).exp()
    mask = ~torch.eye(2 * N, dtype=torch.bool)
    denom = exponential.masked_select(mask).view(2 * N, -1).sum(dim=1, keepdim=True)
    pos = torch.exp(F.cosine_similarity(out_left, out_right, dim=1) / tau)
    numerator = torch.cat([pos, pos], dim=0).unsqueeze(1)
    return -torch.log(numerator / denom).mean()


def simclr_loss_ce(out_left, out_right, tau):
    N = out_left.shape[0]
    out = F.normalize(torch.cat([out_left, out_right]), dim=1)
    logits = (out @ out.T / tau).fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(N, 2 * N), torch.arange(N)])
    return F.cross_entropy(logits, targets)


left = torch.from_numpy(rng.standard_normal((4, 5)))
right = left + 0.3 * torch.from_numpy(rng.standard_normal((4, 5)))
vals = [f(left, right, 0.5) for f in (simclr_loss_naive, simclr_loss_vectorized, simclr_loss_ce)]
print("nt-xent", [round(v.item(), 4) for v in vals], vals[0].dtype, [v.grad_fn is None for v in vals])
lg = left.clone().requires_grad_()
simclr_loss_vectorized(lg, right, 0.5).backward()
lg2 = left.clone().requires_grad_()
simclr_loss_ce(lg2, right, 0.5).backward()
print("nt-xent grads agree", torch.allclose(lg.grad, lg2.grad), r(lg.grad))
e = torch.eye(3, dtype=torch.bool)
print("eye bool", e.dtype, (~e).sum().item(), torch.ones(3, 3).masked_select(~e).shape)
try:
    torch.ones(3, 3).fill_diagonal_(1.0, wrap=True).masked_select(torch.eye(3))
except RuntimeError as err:
    print("masked_select float mask", type(err).__name__, err)
