"""SN-GAN's discriminator (Miyato et al. 2018) with the original hook-based nn.utils.spectral_norm as its reference
code uses it (weight_orig, weight_u/weight_v buffers, state_dict metadata, removal), orthogonal RNN weights
(Lezcano-Casado & Martinez-Rubio 2019) through parametrizations.orthogonal with each orthogonal_map, and folding
BatchNorm into convolutions for deployment (fuse_conv_bn_eval) as the inference papers do."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations, parametrize
from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

rng = np.random.default_rng(2018)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def fill_(m, seed, scale=0.3):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return m


# --- hook-based spectral norm ---
conv = fill_(nn.Conv2d(2, 4, 3, padding=1), 1)
W = conv.weight.detach().clone()
sn_conv = nn.utils.spectral_norm(conv, n_power_iterations=1)
with torch.no_grad():
    sn_conv.weight_u.copy_(F.normalize(torch.ones(4), dim=0))
    sn_conv.weight_v.copy_(F.normalize(torch.ones(18), dim=0))
print("sn_names", sorted(n for n, _ in sn_conv.named_parameters()), sorted(n for n, _ in sn_conv.named_buffers()))
print(
    "sn_attr", type(sn_conv.weight).__name__, isinstance(sn_conv.weight, nn.Parameter), len(sn_conv._forward_pre_hooks)
)
sd = sn_conv.state_dict()
print("sn_state", sorted(sd.keys()), sd._metadata[""])
sigma_true = torch.linalg.matrix_norm(W.view(4, -1), ord=2).item()
x = arr(2, 2, 5, 5)
for it in range(4):
    y = sn_conv(x)
    sigma = (W / sn_conv.weight).mean().item()
    print("sn_iter", it, round(sigma, 4), round(sigma_true, 4), r(sn_conv.weight_u))
y.sum().backward()
print("sn_grad", r(sn_conv.weight_orig.grad), sn_conv.weight_u.requires_grad)
sn_conv.eval()
u_before = sn_conv.weight_u.clone()
sn_conv(x)
print("sn_eval_frozen", torch.equal(u_before, sn_conv.weight_u))
fresh = nn.utils.spectral_norm(fill_(nn.Conv2d(2, 4, 3, padding=1), 1))
print("sn_load", fresh.load_state_dict(sn_conv.state_dict()), torch.equal(fresh.weight_u, sn_conv.weight_u))
nn.utils.remove_spectral_norm(sn_conv)
print("sn_removed", sorted(n for n, _ in sn_conv.named_parameters()), len(sn_conv._forward_pre_hooks))
lin_sn = nn.utils.spectral_norm(nn.Linear(3, 5), name="weight", dim=0)
tconv_sn = nn.utils.spectral_norm(nn.ConvTranspose2d(3, 2, 3))
print("sn_shapes", lin_sn.weight_u.shape, lin_sn.weight_v.shape, tconv_sn.weight_u.shape, tconv_sn.weight_v.shape)
try:
    nn.utils.spectral_norm(lin_sn)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    nn.utils.remove_spectral_norm(nn.Linear(2, 2))
except ValueError as e:
    print("ValueError", e)

# --- orthogonal RNN weights ---
for omap in ("matrix_exp", "cayley", "householder"):
    rnn = fill_(nn.RNN(3, 4, batch_first=True), 5)
    parametrizations.orthogonal(rnn, "weight_hh_l0", orthogonal_map=omap)
    q = rnn.weight_hh_l0
    eye_err = (q @ q.T - torch.eye(4)).abs().max().item()
    opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
    seq = arr(2, 6, 3)
    for step in range(3):
        out, h = rnn(seq)
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    q = rnn.weight_hh_l0
    print(
        "orthogonal",
        omap,
        eye_err < 1e-5,
        (q @ q.T - torch.eye(4)).abs().max().item() < 1e-4,
        round(loss.item(), 4),
        sorted(n for n, _ in rnn.named_parameters())[:2],
    )
for omap in ("cayley", "householder"):
    plain = parametrizations.orthogonal(fill_(nn.Linear(3, 4), 6), orthogonal_map=omap, use_trivialization=False)
    q = plain.weight
    print(
        "no_trivialization",
        omap,
        sorted(n for n, _ in plain.named_buffers()),
        torch.allclose(q.T @ q, torch.eye(3), atol=1e-5),
        r(plain.parametrizations.weight.original, 3),
    )
    try:
        plain.weight = torch.eye(4, 3)
        print("assigned", r(plain.weight.diagonal(), 3))
    except NotImplementedError as e:
        print("NotImplementedError", e)
orth = parametrizations.orthogonal(nn.Linear(5, 3))
w = orth.weight
print("orth_rect", w.shape, torch.allclose(w @ w.T, torch.eye(3), atol=1e-5), parametrize.is_parametrized(orth))
with parametrize.cached():
    a, b = orth.weight, orth.weight
    print("cached", a is b)
print("uncached", orth.weight is orth.weight)
try:
    parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
except ValueError as e:
    print("ValueError", e)

# --- BatchNorm folding ---
block = nn.Sequential(fill_(nn.Conv2d(3, 4, 3, bias=False), 8), nn.BatchNorm2d(4))
block.train()
for _ in range(3):
    block(arr(4, 3, 6, 6, scale=2.0))
block.eval()
fused = fuse_conv_bn_eval(block[0], block[1])
x = arr(2, 3, 6, 6)
print("fused_conv", fused.bias is not None, round((fused(x) - block(x)).abs().max().item(), 4), r(fused.bias))
lin, bn1 = fill_(nn.Linear(5, 3), 9), nn.BatchNorm1d(3)
bn1.train()
bn1(lin(arr(8, 5)))
bn1.eval(), lin.eval()
fl = fuse_linear_bn_eval(lin, bn1)
z = arr(4, 5)
print("fused_linear", round((fl(z) - bn1(lin(z))).abs().max().item(), 4), fl.weight.requires_grad)
try:
    fuse_conv_bn_eval(block[0].train(), block[1])
except AssertionError as e:
    print("AssertionError", e)
try:
    fuse_linear_bn_eval(nn.Linear(5, 4), nn.BatchNorm1d(3).eval())
except AssertionError as e:
    print("AssertionError", e)
