"""Gradient-based hyperparameter optimization (Maclaurin et al., Franceschi et al.): a learning rate, a per-feature
weight decay and a momentum, all in log/logit space, learned by differentiating the validation loss through an
unrolled training run; the hypergradient checked against central finite differences in float64, and a
hyper-training loop with gradient clipping."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

n, d = 40, 8
X = torch.randn(n, d)
w_true = torch.randn(d) * (torch.arange(d) < 4)
y = X @ w_true + 0.3 * torch.randn(n)
Xtr, ytr, Xva, yva = X[:24], y[:24], X[24:], y[24:]


def train(log_lr, log_wd, logit_mom, steps=15):
    lr, wd, mom = log_lr.exp(), log_wd.exp(), torch.sigmoid(logit_mom)
    w = torch.zeros(d, requires_grad=True)
    v = torch.zeros(d)
    for _ in range(steps):
        loss = F.mse_loss(Xtr @ w, ytr) + (wd * w.pow(2)).sum()
        (g,) = torch.autograd.grad(loss, w, create_graph=True)
        v = mom * v + g
        w = w - lr * v
    return w


def val_loss(h):
    w = train(h[0], h[1:1 + d], h[-1])
    return F.mse_loss(Xva @ w, yva)


h = torch.cat([torch.tensor([math.log(0.05)]), torch.full((d,), math.log(1e-2)), torch.tensor([0.0])])
h.requires_grad_()
loss = val_loss(h)
(hg,) = torch.autograd.grad(loss, h)
print("val loss", round(loss.item(), 4), "hypergrad lr", round(hg[0].item(), 4), "mom", round(hg[-1].item(), 4))
print("wd hypergrads", hg[1:1 + d].round(decimals=4).tolist())

# central finite differences on three coordinates
eps = 1e-5
for i in [0, 3, d + 1]:
    e = torch.zeros_like(h)
    e[i] = eps
    fd = (val_loss(h.detach() + e) - val_loss(h.detach() - e)).item() / (2 * eps)
    print(f"coord {i}: reverse {hg[i].item():.6f} finite-diff {fd:.6f} match {abs(fd - hg[i].item()) < 1e-6}")

# hyper-training: Adam on the hyperparameters with clipped hypergradients
hopt = torch.optim.Adam([h], lr=0.1)
for it in range(6):
    hopt.zero_grad()
    loss = val_loss(h)
    loss.backward()
    total = nn.utils.clip_grad_norm_([h], max_norm=1.0, norm_type=2.0)
    hopt.step()
    print(f"hyper it {it} val {loss.item():.4f} grad-norm {total.item():.4f} lr {h[0].exp().item():.4f} "
          f"mom {torch.sigmoid(h[-1]).item():.4f}")
wd = h[1:1 + d].detach().exp()
print("learned wd (true-zero features last)", wd.round(decimals=4).tolist())
print("final weights", train(h[0], h[1:1 + d], h[-1]).detach().round(decimals=3).tolist())

# clip_grad_norm_ variants and errors
g = torch.tensor([3.0, -4.0], requires_grad=True)
g.grad = torch.tensor([3.0, -4.0])
print("inf norm", nn.utils.clip_grad_norm_([g], 1.0, norm_type="inf").item(), g.grad.tolist())
g.grad = torch.tensor([float("nan"), 1.0])
try:
    nn.utils.clip_grad_norm_([g], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", e)
print("get_total_norm", nn.utils.get_total_norm([torch.tensor([3.0, 4.0]), torch.tensor([12.0])]).item())
