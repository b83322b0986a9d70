"""Gradient clipping and accumulation as training loops do them: clip_grad_norm_ with norm_type 2/1/inf, foreach on
and off, the returned total norm, error_if_nonfinite on a NaN gradient, clip_grad_value_, the nn.utils helpers
get_total_norm/clip_grads_with_norm_, and gradient accumulation over micro-batches matching one full-batch step
(with the loss divided by the accumulation steps), plus skipping parameters with no grad."""

import math

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def make_model():
    torch.manual_seed(2)
    return nn.Sequential(nn.Linear(6, 10), nn.GELU(), nn.Linear(10, 10), nn.GELU(), nn.Linear(10, 3))


X = torch.randn(24, 6) * 3
y = torch.randint(0, 3, (24,))


def grads_of(model):
    model.zero_grad()
    nn.functional.cross_entropy(model(X), y).backward()
    return [p.grad.clone() for p in model.parameters()]


m = make_model()
base = grads_of(m)
print("per-param norms:", [round(g.norm().item(), 4) for g in base])
for norm_type in (2.0, 1.0, math.inf, 3):
    for foreach in (False, True):
        for p, g in zip(m.parameters(), base):
            p.grad = g.clone()
        total = clip_grad_norm_(m.parameters(), max_norm=0.1, norm_type=norm_type, foreach=foreach)
        after = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad, norm_type)
                                                      for p in m.parameters()]), norm_type)
        print(f"norm_type={norm_type} foreach={foreach} total={total.item():.4f} after={after.item():.4f}",
              total.dtype, total.shape)

# already small gradients are untouched (clip coefficient clamped to 1)
for p, g in zip(m.parameters(), base):
    p.grad = g.clone()
total = clip_grad_norm_(m.parameters(), max_norm=100.0)
print("untouched:", all(torch.equal(p.grad, g) for p, g in zip(m.parameters(), base)), round(total.item(), 4))

# non-finite gradients
for p, g in zip(m.parameters(), base):
    p.grad = g.clone()
m[0].weight.grad[0, 0] = float("nan")
try:
    clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:90])
m[0].weight.grad[0, 0] = float("inf")
print("nan/inf total without error:", clip_grad_norm_(m.parameters(), 1.0).item())
print("grad after inf clip:", m[2].bias.grad[:3])

# clip_grad_value_
for p, g in zip(m.parameters(), base):
    p.grad = g.clone()
clip_grad_value_(m.parameters(), clip_value=0.05)
print("value clipped max:", max(p.grad.abs().max().item() for p in m.parameters()))
print("first row:", m[0].weight.grad[0])
for foreach in (False, True):
    t = nn.Parameter(torch.zeros(4))
    t.grad = torch.tensor([-2.0, -0.01, 0.02, 3.0])
    clip_grad_value_([t], 0.5, foreach=foreach)
    print("clip_grad_value_ foreach", foreach, t.grad)

# the split helpers
for p, g in zip(m.parameters(), base):
    p.grad = g.clone()
grads = [p.grad for p in m.parameters()]
total = torch.nn.utils.get_total_norm(grads, norm_type=2.0)
torch.nn.utils.clip_grads_with_norm_(m.parameters(), max_norm=0.15, total_norm=total)
print("get_total_norm:", round(total.item(), 4), "after:", round(torch.nn.utils.get_total_norm(grads).item(), 4))

# a parameter without grad is skipped; an empty list gives 0
frozen = nn.Parameter(torch.ones(3))
print("with frozen:", round(clip_grad_norm_(list(m.parameters()) + [frozen], 1.0).item(), 4), frozen.grad)
print("empty:", clip_grad_norm_([], 1.0))
print("single tensor:", round(clip_grad_norm_(m[4].weight, 0.1).item(), 4), round(m[4].weight.grad.norm().item(), 4))

# gradient accumulation: 4 micro-batches of 6 == one batch of 24
full = make_model()
opt_full = torch.optim.SGD(full.parameters(), lr=0.1, momentum=0.9)
acc = make_model()
opt_acc = torch.optim.SGD(acc.parameters(), lr=0.1, momentum=0.9)
accum = 4
for step in range(3):
    opt_full.zero_grad()
    loss_full = nn.functional.cross_entropy(full(X), y)
    loss_full.backward()
    n_full = clip_grad_norm_(full.parameters(), 0.2)
    opt_full.step()

    opt_acc.zero_grad()
    running = 0.0
    for xb, yb in zip(X.chunk(accum), y.chunk(accum)):
        loss = nn.functional.cross_entropy(acc(xb), yb) / accum
        loss.backward()
        running += loss.item()
    n_acc = clip_grad_norm_(acc.parameters(), 0.2)
    opt_acc.step()
    diff = max((a - b).abs().max().item() for a, b in zip(full.parameters(), acc.parameters()))
    print(f"step {step} full {loss_full.item():.4f} accum {running:.4f} norms {n_full.item():.4f} "
          f"{n_acc.item():.4f} close={diff < 1e-5}")
print("final head bias:", acc[4].bias.detach())

# forgetting zero_grad doubles the gradient
m2 = make_model()
nn.functional.cross_entropy(m2(X), y).backward()
g1 = m2[4].bias.grad.clone()
nn.functional.cross_entropy(m2(X), y).backward()
print("accumulated twice:", torch.allclose(m2[4].bias.grad, 2 * g1))

# complex parameters (a phase-retrieval model): the norm is the moduli's, real
zc = nn.Parameter(torch.zeros(3, dtype=torch.complex64))
zc.grad = torch.tensor([1 + 2j, 3 - 1j, -0.5j], dtype=torch.complex64)
for norm_type in (2.0, math.inf):
    zc.grad = torch.tensor([1 + 2j, 3 - 1j, -0.5j], dtype=torch.complex64)
    n = clip_grad_norm_([zc], 1.0, norm_type=norm_type)
    print("complex", norm_type, round(n.item(), 4), n.dtype, zc.grad)
