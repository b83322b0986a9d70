"""Every GAN loss as papers' code writes it: non-saturating via softplus and via BCE-with-logits (pos_weight,
weight, reductions), hinge, least-squares, relativistic average, WGAN, label smoothing and flipped labels, and the
loss functions' shape, dtype and range errors."""

import warnings

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)

d_real = torch.randn(8, 1) + 1.0
d_fake = torch.randn(8, 1) - 0.5
d_fake_g = d_fake.clone().requires_grad_()


def r(t):
    return round(t.item(), 4)


# Non-saturating (StyleGAN) losses with softplus, and the same with BCE-with-logits.
lossD_sp = F.softplus(d_fake).mean() + F.softplus(-d_real).mean()
lossD_bce = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + F.binary_cross_entropy_with_logits(
    d_fake, torch.zeros_like(d_fake)
)
print("NS D", r(lossD_sp), r(lossD_bce))
print(
    "softplus beta/threshold",
    F.softplus(torch.tensor([-30.0, 0.0, 2.0, 30.0]), beta=2, threshold=5).round(decimals=4).tolist(),
)
print("logsigmoid", r(-F.logsigmoid(d_real).mean()), r(nn.LogSigmoid()(d_fake).sum()))
lossG = F.softplus(-d_fake_g).mean()
lossG.backward()
print("NS G", r(lossG), lossG.grad_fn.name(), d_fake_g.grad.view(-1)[:3].round(decimals=4).tolist())
print("saturating G", r(-F.softplus(d_fake).mean()), r(torch.log1p(-torch.sigmoid(d_fake)).mean()))

# BCE-with-logits options: pos_weight per class, weight, reductions, the module form.
logits = torch.randn(4, 3)
target = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.9, 0.1, 0.5]])
pw = torch.tensor([1.0, 2.0, 0.5])
print("pos_weight", r(F.binary_cross_entropy_with_logits(logits, target, pos_weight=pw)))
print("weight", r(F.binary_cross_entropy_with_logits(logits, target, weight=torch.tensor([0.5, 1.0, 2.0]))))
print(
    "none",
    F.binary_cross_entropy_with_logits(logits, target, reduction="none", pos_weight=pw).round(decimals=4)[0].tolist(),
)
print("sum", r(F.binary_cross_entropy_with_logits(logits, target, reduction="sum")))
crit = nn.BCEWithLogitsLoss(pos_weight=pw, reduction="mean")
print(crit, r(crit(logits, target)), sorted(crit.state_dict().keys()))
print(
    "BCELoss",
    r(nn.BCELoss()(torch.sigmoid(logits), target)),
    r(F.binary_cross_entropy(torch.sigmoid(logits), target, weight=pw)),
)

# Hinge (SAGAN/BigGAN), least squares (LSGAN), WGAN.
print("hinge D", r(F.relu(1.0 - d_real).mean() + F.relu(1.0 + d_fake).mean()), "hinge G", r(-d_fake.mean()))
print("hinge via clamp", r(torch.clamp(1 - d_real, min=0).mean()), r(torch.mean(F.relu(1 + d_fake))))
print("LSGAN D", r(0.5 * (F.mse_loss(d_real, torch.ones_like(d_real)) + F.mse_loss(d_fake, torch.zeros_like(d_fake)))))
print("LSGAN abc", r(0.5 * ((d_real - 1) ** 2).mean() + 0.5 * ((d_fake + 1) ** 2).mean()))
print("WGAN", r(d_fake.mean() - d_real.mean()))

# Relativistic average GAN (ESRGAN/RaGAN).
rf = d_real - d_fake.mean()
fr = d_fake - d_real.mean()
print(
    "RaGAN D",
    r(
        (
            F.binary_cross_entropy_with_logits(rf, torch.ones_like(rf))
            + F.binary_cross_entropy_with_logits(fr, torch.zeros_like(fr))
        )
        / 2
    ),
)
print("RaLS", r(torch.mean((rf - 1) ** 2) + torch.mean((fr + 1) ** 2)))

# One-sided label smoothing, noisy labels, flipped labels.
smooth = torch.full_like(d_real, 0.9)
print("smoothed", r(F.binary_cross_entropy_with_logits(d_real, smooth)))
flip = torch.rand(8, 1) < 0.25
labels = torch.where(flip, torch.zeros_like(d_real), torch.ones_like(d_real))
print("flipped", flip.sum().item(), r(F.binary_cross_entropy_with_logits(d_real, labels)), labels.dtype)
noisy = torch.empty(8, 1).uniform_(0.7, 1.2)
print("noisy range", bool((noisy >= 0.7).all()), bool((noisy < 1.2).all()))

# Accuracy of D, as logged.
acc = ((d_real > 0).float().mean() + (d_fake < 0).float().mean()) / 2
print("D acc", r(acc), "D(x)", r(torch.sigmoid(d_real).mean()), "D(G(z))", r(torch.sigmoid(d_fake).mean()))

# Errors.
try:
    F.binary_cross_entropy_with_logits(d_real, torch.ones(8))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.binary_cross_entropy_with_logits(d_real, torch.ones(8, 1, dtype=torch.long))
except Exception as e:
    print(type(e).__name__, str(e)[:80])
try:
    F.binary_cross_entropy(torch.sigmoid(d_real), torch.ones(8))
except Exception as e:
    print(type(e).__name__, e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("broadcast mse", tuple(F.mse_loss(d_real, torch.ones(8), reduction="none").shape))
print([(w.category.__name__, str(w.message)[:60]) for w in caught])
try:
    nn.BCEWithLogitsLoss(reduction="avg")(d_real, smooth)
except Exception as e:
    print(type(e).__name__, e)
