"""The normalization papers after batch norm, each written out and checked against its torch.nn layer: layer norm
(Ba et al. 2016), instance norm, group norm (Wu & He 2018), RMSNorm, local response norm (AlexNet), weight
normalization (Salimans & Kingma 2016) old and new style, and spectral normalization (Miyato et al. 2018) with a
fixed power-iteration start; plus a highway network (Srivastava et al. 2015) trained a few steps."""

import warnings

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations, parametrize

rng = np.random.default_rng(2016)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def close(a, b, tol=1e-5):
    return round((a - b).abs().max().item(), 4), torch.allclose(a, b, atol=tol)


x = arr(3, 4, 6, 6, scale=2.0) + 1.0
g = torch.from_numpy(rng.uniform(0.5, 1.5, 4).astype(np.float32))
b = torch.from_numpy(rng.uniform(-0.5, 0.5, 4).astype(np.float32))

# layer norm over (C, H, W): statistics per sample
ln = nn.LayerNorm([4, 6, 6], elementwise_affine=False)
mu = x.mean(dim=(1, 2, 3), keepdim=True)
var = x.var(dim=(1, 2, 3), keepdim=True, unbiased=False)
print("layer_norm", close(ln(x), (x - mu) / torch.sqrt(var + 1e-5)), ln)
ln_last = nn.LayerNorm(6, bias=False)
print("ln_bias_false", ln_last, ln_last.bias, [n for n, _ in ln_last.named_parameters()])

# instance norm: per sample, per channel
inorm = nn.InstanceNorm2d(4, affine=True)
with torch.no_grad():
    inorm.weight.copy_(g), inorm.bias.copy_(b)
mu = x.mean(dim=(2, 3), keepdim=True)
var = x.var(dim=(2, 3), keepdim=True, unbiased=False)
mine = (x - mu) / torch.sqrt(var + 1e-5) * g.view(1, 4, 1, 1) + b.view(1, 4, 1, 1)
print("instance_norm", close(inorm(x), mine), inorm)
tracked = nn.InstanceNorm1d(4, track_running_stats=True)
tracked(arr(2, 4, 10))
print("instance_running", r(tracked.running_mean), r(tracked.running_var), tracked.num_batches_tracked)

# group norm: channels split in groups
for groups in (1, 2, 4):
    gn = nn.GroupNorm(groups, 4)
    with torch.no_grad():
        gn.weight.copy_(g), gn.bias.copy_(b)
    xg = x.view(3, groups, -1)
    mine = (xg - xg.mean(-1, keepdim=True)) / torch.sqrt(xg.var(-1, keepdim=True, unbiased=False) + 1e-5)
    mine = mine.view_as(x) * g.view(1, 4, 1, 1) + b.view(1, 4, 1, 1)
    print("group_norm", groups, close(gn(x), mine), close(F.group_norm(x, groups, g, b), mine))
print(nn.GroupNorm(2, 4))
try:
    nn.GroupNorm(3, 4)
except ValueError as e:
    print("ValueError", e)

# RMSNorm
rms = nn.RMSNorm(6, eps=1e-6)
with torch.no_grad():
    rms.weight.copy_(torch.linspace(0.5, 1.5, 6))
h = arr(2, 3, 6)
mine = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * torch.linspace(0.5, 1.5, 6)
print("rms_norm", close(rms(h), mine), rms, r(F.rms_norm(h, (6,)), 3))

# local response normalization (AlexNet, section 3.3)
lrn = nn.LocalResponseNorm(size=3, alpha=1e-2, beta=0.75, k=2.0)
sq = F.pad(x.pow(2).unsqueeze(1), (0, 0, 0, 0, 1, 1)).squeeze(1)
window = sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]
print("lrn", close(lrn(x), x / (2.0 + 1e-2 / 3 * window).pow(0.75)), lrn)

# weight normalization, w = g * v / ||v||
lin = nn.Linear(5, 3)
with torch.no_grad():
    lin.weight.copy_(arr(3, 5)), lin.bias.zero_()
w0 = lin.weight.detach().clone()
wn = parametrizations.weight_norm(lin)
print("wn_params", [n for n, _ in wn.named_parameters()], parametrize.is_parametrized(wn, "weight"))
print("wn_g", r(wn.parametrizations.weight.original0.flatten(), 3), r(w0.norm(dim=1), 3))
inp = arr(4, 5)
out = wn(inp)
out.pow(2).sum().backward()
g0 = wn.parametrizations.weight.original0
v0 = wn.parametrizations.weight.original1
print("wn_grads", r(g0.grad), r(v0.grad), g0.shape, v0.shape)
print("wn_grad_orth", round((v0.grad * v0).sum(1).abs().max().item(), 4))
parametrize.remove_parametrizations(wn, "weight")
print("wn_removed", close(wn.weight, w0), type(wn.weight).__name__)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    old = nn.utils.weight_norm(nn.Linear(5, 3), dim=None)
print("old_wn", sorted(n for n, _ in old.named_parameters()), old.weight_g.shape)
nn.utils.remove_weight_norm(old)
print("old_removed", sorted(n for n, _ in old.named_parameters()))

# spectral normalization with a fixed start for the power iteration
conv = nn.Linear(6, 4, bias=False)
W = arr(4, 6)
with torch.no_grad():
    conv.weight.copy_(W)
sn = parametrizations.spectral_norm(conv, n_power_iterations=3)
p = sn.parametrizations.weight[0]
with torch.no_grad():
    p._u.copy_(F.normalize(torch.ones(4), dim=0))
    p._v.copy_(F.normalize(torch.ones(6), dim=0))
print("sn_buffers", sorted(n for n, _ in sn.named_buffers()), p.n_power_iterations, p.eps)
sigma_true = torch.linalg.matrix_norm(W, ord=2)
for it in range(3):
    sn.train()
    wsn = sn.weight
    sigma_est = (W / wsn).mean()
    print("sn_step", it, round(sigma_est.item(), 4), round(sigma_true.item(), 4))
sn.eval()
print("sn_eval_norm", round(torch.linalg.matrix_norm(sn.weight.detach(), ord=2).item(), 3))
y = sn(arr(2, 6))
y.sum().backward()
print("sn_grad", r(sn.parametrizations.weight.original.grad))


# highway network: y = H(x) T(x) + x (1 - T(x)), carry bias initialised negative
class Highway(nn.Module):
    def __init__(self, d, layers=2, carry_bias=-2.0):
        super().__init__()
        self.h = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.t = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        with torch.no_grad():
            for i, (hl, tl) in enumerate(zip(self.h, self.t)):
                hl.weight.copy_(
                    torch.from_numpy(np.random.default_rng(i).standard_normal((d, d)).astype(np.float32) * 0.3)
                )
                tl.weight.copy_(
                    torch.from_numpy(np.random.default_rng(9 + i).standard_normal((d, d)).astype(np.float32) * 0.3)
                )
                hl.bias.zero_()
                tl.bias.fill_(carry_bias)

    def forward(self, x):
        gates = []
        for hl, tl in zip(self.h, self.t):
            t = torch.sigmoid(tl(x))
            gates.append(t.mean().item())
            x = F.relu(hl(x)) * t + x * (1 - t)
        return x, gates


hw = Highway(6)
head = nn.Linear(6, 1)
with torch.no_grad():
    head.weight.fill_(0.2), head.bias.zero_()
opt = torch.optim.SGD([*hw.parameters(), *head.parameters()], lr=0.1, momentum=0.9, nesterov=True)
xs = arr(16, 6)
ys = xs.sum(1, keepdim=True).tanh()
for step in range(5):
    feats, gates = hw(xs)
    loss = F.smooth_l1_loss(head(feats), ys, beta=0.5)
    opt.zero_grad()
    loss.backward()
    gn_ = nn.utils.clip_grad_norm_(hw.parameters(), max_norm=1.0)
    opt.step()
    print("highway", step, round(loss.item(), 4), [round(v, 4) for v in gates], round(gn_.item(), 4))
for bad in (lambda: nn.LayerNorm(5)(arr(2, 4)), lambda: F.layer_norm(arr(2, 4), (4,), weight=torch.ones(3))):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", str(e).split("\n")[0])
