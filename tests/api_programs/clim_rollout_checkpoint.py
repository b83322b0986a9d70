"""Autoregressive forecast rollouts: a residual ConvNet stepper unrolled over lead times with teacher forcing and
scheduled sampling, gradient checkpointing (reentrant and not), truncated backprop by detach, and rollout losses."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Stepper(nn.Module):
    def __init__(self, c=3, h=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(c, h, 3, padding=1, padding_mode="circular"),
            nn.GELU(),
            nn.Dropout(0.0),
            nn.Conv2d(h, c, 3, padding=1, padding_mode="circular"),
        )

    def forward(self, x):
        return x + 0.1 * self.net(x)


def rollout(model, x0, truth, steps, ckpt=None, teacher=0.0, gen=None, detach_every=0):
    x, preds = x0, []
    for k in range(steps):
        if ckpt is None:
            x = model(x)
        else:
            x = checkpoint(model, x, use_reentrant=ckpt)
        preds.append(x)
        if teacher > 0 and torch.rand((), generator=gen).item() < teacher:
            x = truth[:, k]
        if detach_every and (k + 1) % detach_every == 0:
            x = x.detach()
    return torch.stack(preds, dim=1)


torch.manual_seed(0)
torch.set_printoptions(precision=4)
model = Stepper()
B, S = 2, 4
truth = torch.randn(B, S + 1, 3, 6, 8).cumsum(1) * 0.1
x0 = truth[:, 0]
target = truth[:, 1:]
weights = torch.linspace(1.0, 0.5, S).view(1, S, 1, 1, 1)
grads = {}
for mode in (None, True, False):
    model.zero_grad()
    x_in = x0.clone().requires_grad_(mode is True)
    pred = rollout(model, x_in, target, S, ckpt=mode)
    loss = (weights * (pred - target) ** 2).mean()
    loss.backward()
    grads[mode] = torch.cat([p.grad.flatten() for p in model.parameters()])
    print("mode", mode, tuple(pred.shape), round(loss.item(), 5), pred.requires_grad, pred.grad_fn.name())
print(
    "ckpt grads equal",
    torch.allclose(grads[None], grads[True], atol=1e-6),
    torch.allclose(grads[None], grads[False], atol=1e-6),
)

per_lead = ((pred - target) ** 2).mean(dim=(0, 2, 3, 4))
print("per lead mse", per_lead.detach())

gen = torch.Generator().manual_seed(3)
model.zero_grad()
pred_tf = rollout(model, x0, target, S, teacher=0.5, gen=gen)
F.mse_loss(pred_tf, target).backward()
print("teacher forced", round(F.mse_loss(pred_tf, target).item(), 5), round(model.net[0].weight.grad.norm().item(), 5))

model.zero_grad()
pred_tb = rollout(model, x0, target, S, detach_every=2)
loss_tb = F.mse_loss(pred_tb, target, reduction="sum")
loss_tb.backward()
print(
    "truncated",
    round(loss_tb.item(), 4),
    pred_tb[:, 2].grad_fn is not None,
    round(model.net[3].bias.grad.abs().sum().item(), 5),
)

seq = nn.Sequential(*[Stepper() for _ in range(4)])
xin = x0.clone().requires_grad_()
out = checkpoint_sequential(seq, 2, xin, use_reentrant=False)
out.sum().backward()
print("ckpt sequential", tuple(out.shape), round(xin.grad.sum().item(), 4))
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    y = checkpoint(model, torch.randn(1, 3, 6, 8), use_reentrant=True)
print("reentrant no-grad input", y.requires_grad, [str(w.message)[:80] for w in ws])
with torch.no_grad():
    y = checkpoint(model, x0, use_reentrant=False)
print("under no_grad", y.requires_grad)


def twice(a, scale=2.0):
    return model(a) * scale


try:
    checkpoint(twice, x0, scale=3.0, use_reentrant=True)
except ValueError as e:
    print(type(e).__name__, e)
print("kwargs non-reentrant", round(checkpoint(twice, x0, scale=3.0, use_reentrant=False).sum().item(), 4))
model.eval()
with torch.inference_mode():
    fc = rollout(model, x0, target, 8)
print("inference rollout", tuple(fc.shape), fc.is_inference(), round(fc[:, -1].std().item(), 4))
try:
    fc.requires_grad_()
except RuntimeError as e:
    print(type(e).__name__, e)
p = rollout(model, x0, target, 2)
p.sum().backward(retain_graph=True)
p.sum().backward()
try:
    p2 = rollout(model, x0, target, 2)
    l = p2.sum()
    l.backward()
    l.backward()
except RuntimeError as e:
    print(type(e).__name__, str(e).split(".")[0])
