"""Regression and probabilistic losses: Poisson and Gaussian NLL, KL divergence (log targets, batchmean), Huber and
SmoothL1 with their beta/delta, cross-entropy with probabilities, label smoothing, weights and ignore_index,
BCE with pos_weight; values for each reduction, gradients, and a heteroscedastic regressor trained on them."""

import warnings
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def show(name, make, *inputs):
    """The loss for each reduction, and the gradient of the summed loss w.r.t. the first input."""
    xs = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    outs = {red: make(red)(*xs) for red in ("none", "mean", "sum")}
    outs["sum"].backward()
    print(name, r(outs["none"], 4), round(outs["mean"].item(), 4), round(outs["sum"].item(), 4))
    print(name + "_grad", r(xs[0].grad, 4), outs["none"].shape, outs["mean"].dtype)


pred, tgt = T(4, 3), T(4, 3)
tgt[0, 0] = pred[0, 0] + 0.05  # one residual inside every threshold
for beta in (1.0, 0.5, 0.0):
    show(f"smoothl1_b{beta}", lambda red: nn.SmoothL1Loss(reduction=red, beta=beta), pred, tgt)
for delta in (1.0, 0.3, 2.5):
    show(f"huber_d{delta}", lambda red: nn.HuberLoss(reduction=red, delta=delta), pred, tgt)
print("huber_repr", nn.HuberLoss(delta=0.5), nn.SmoothL1Loss(beta=0.2))
show("l1", lambda red: nn.L1Loss(reduction=red), pred, tgt)
show("mse", lambda red: nn.MSELoss(reduction=red), pred, tgt)

# Poisson NLL: log_input True/False, full Stirling term
rate_log = T(5) * 0.5
counts = torch.tensor([0.0, 1.0, 3.0, 2.0, 7.0])
show("poisson_log", lambda red: nn.PoissonNLLLoss(reduction=red), rate_log, counts)
show("poisson_full", lambda red: nn.PoissonNLLLoss(full=True, reduction=red), rate_log, counts)
show("poisson_rate", lambda red: nn.PoissonNLLLoss(log_input=False, eps=1e-6, reduction=red), rate_log.exp(), counts)
print("poisson_fn", round(F.poisson_nll_loss(rate_log, counts, log_input=True, full=True).item(), 4))

# Gaussian NLL: per-element, per-row (broadcast last dim), scalar variance
mu, y = T(4, 2), T(4, 2)
var = T(4, 2).exp()
show("gauss", lambda red: nn.GaussianNLLLoss(reduction=red), mu, y, var)
show("gauss_full_row", lambda red: nn.GaussianNLLLoss(full=True, eps=1e-3, reduction=red), mu, y, var[:, :1])
print("gauss_float_var", round(F.gaussian_nll_loss(mu, y, 0.5).item(), 4))
for bad_var in (var[:3], -var):
    try:
        F.gaussian_nll_loss(mu, y, bad_var)
    except ValueError as e:
        print("gauss_err", type(e).__name__, str(e))

# KL divergence: input is log-probabilities; target probabilities or log-probabilities
logp = F.log_softmax(T(3, 4), dim=1)
q = F.softmax(T(3, 4), dim=1)
for red in ("batchmean", "sum", "none"):
    kl = F.kl_div(logp, q, reduction=red)
    kl_log = F.kl_div(logp, q.log(), reduction=red, log_target=True)
    print("kl", red, r(kl, 4), torch.allclose(kl, kl_log, atol=1e-6))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    kl_mean = nn.KLDivLoss(reduction="mean")(logp, q)
print("kl_mean", round(kl_mean.item(), 4), len(w) > 0, [x.category.__name__ for x in w][:1])
qz = q.clone()
qz[0, 1] = 0.0
lp = logp.clone().requires_grad_(True)
F.kl_div(lp, qz, reduction="batchmean").backward()
print("kl_zero_target", r(lp.grad), r(F.kl_div(lp, qz, reduction="none")[0], 4))

# cross entropy variants
logits = T(5, 4)
labels = torch.tensor([0, 3, 1, -100, 2])
w = torch.tensor([1.0, 2.0, 0.5, 1.5])
show("ce_ignore", lambda red: nn.CrossEntropyLoss(reduction=red), logits, labels)
show("ce_weight_ls", lambda red: nn.CrossEntropyLoss(weight=w, label_smoothing=0.1, reduction=red), logits, labels)
soft = F.softmax(T(5, 4) * 2, dim=1)
show("ce_probs", lambda red: nn.CrossEntropyLoss(label_smoothing=0.2, reduction=red), logits, soft)
print("ce_all_ignored", F.cross_entropy(logits[:2], torch.tensor([-100, -100])).item())
seg = T(2, 3, 4, 4)
mask = torch.tensor(rng.integers(0, 3, (2, 4, 4)))
mask[0, 0, :2] = 255
ce_none = F.cross_entropy(seg, mask, ignore_index=255, reduction="none")
print("ce_2d", round(F.cross_entropy(seg, mask, ignore_index=255).item(), 4), ce_none.shape, r(ce_none[0, 0], 4))
print("nll_2d", round(F.nll_loss(F.log_softmax(seg, 1), mask, ignore_index=255, weight=w[:3]).item(), 4))

# binary: pos_weight per class, weight per element
bl = T(4, 3)
by = (T(4, 3) > 0).float()
pw = torch.tensor([1.0, 3.0, 0.5])
show("bce_logits_pw", lambda red: nn.BCEWithLogitsLoss(pos_weight=pw, reduction=red), bl, by)
show("bce", lambda red: nn.BCELoss(weight=torch.tensor([1.0, 2.0, 1.0]), reduction=red), torch.sigmoid(bl), by)
try:
    F.binary_cross_entropy(bl, by)
except RuntimeError as e:
    print("bce_range", type(e).__name__, str(e))
try:
    F.binary_cross_entropy_with_logits(bl, by[:3])
except ValueError as e:
    print("bce_shape", type(e).__name__, str(e))

for bad in (
    lambda: F.mse_loss(labels, labels),
    lambda: F.smooth_l1_loss(by.bool(), by.bool()),
    lambda: F.kl_div(logp, labels[:3, None].expand(3, 4)),
    lambda: F.smooth_l1_loss(pred, tgt, beta=-0.5),
    lambda: F.huber_loss(pred, tgt, delta=0.0),
):
    try:
        bad()
    except RuntimeError as e:
        print("dtype_err", type(e).__name__, str(e))
print("mse_promoted", F.mse_loss(labels.clamp(min=0), labels.double().clamp(min=0) + 0.5).dtype)


# focal loss built from the pieces
def focal(x, y, gamma=2.0, alpha=0.25):
    p = torch.sigmoid(x)
    ce = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    pt = p * y + (1 - p) * (1 - y)
    return ((alpha * y + (1 - alpha) * (1 - y)) * (1 - pt) ** gamma * ce).mean()


xb = bl.clone().requires_grad_(True)
fl = focal(xb, by)
fl.backward()
print("focal", round(fl.item(), 4), r(xb.grad, 4))


# a heteroscedastic regressor: mean and log-variance heads trained with GaussianNLLLoss
class Het(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 16), nn.Tanh())
        self.mean = nn.Linear(16, 1)
        self.logvar = nn.Linear(16, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h), self.logvar(h).clamp(-6, 4).exp()


net = Het()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(T(*p.shape) * 0.5)
xs = torch.linspace(-2, 2, 32).unsqueeze(1)
ys = torch.sin(2 * xs) + 0.1 * (1 + xs.abs()) * T(32, 1)
opt = torch.optim.Adam(net.parameters(), lr=0.02)
crit = nn.GaussianNLLLoss()
for step in range(30):
    m, v = net(xs)
    loss = crit(m, ys, v)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print("het", step, round(loss.item(), 4), round(v.mean().item(), 4))
print("OK")
