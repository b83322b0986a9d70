"""Gradient accumulation and clipping as training loops write them: accumulated micro-batches equal one large
batch, clip_grad_norm_ over norm types with foreach on and off, its returned total norm and the clip coefficient,
get_total_norm with clip_grads_with_norm_, clip_grad_value_, error_if_nonfinite on inf/nan gradients, mixed
dtypes, parameters without gradients, and a loop that skips steps with non-finite gradients."""

import math

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm

torch.manual_seed(5)
torch.set_printoptions(precision=4)


def make():
    torch.manual_seed(6)
    return nn.Sequential(nn.Linear(6, 8), nn.GELU(), nn.Linear(8, 2))


X = torch.randn(16, 6)
Y = torch.randn(16, 2)

# one batch of 16 vs four accumulated micro-batches of 4 (loss divided by the number of steps)
big = make()
nn.functional.mse_loss(big(X), Y).backward()
acc = make()
accum = 4
for i in range(accum):
    xb, yb = X[i * 4:(i + 1) * 4], Y[i * 4:(i + 1) * 4]
    (nn.functional.mse_loss(acc(xb), yb) / accum).backward()
print("accumulated == full batch", all(torch.allclose(a.grad, b.grad, atol=1e-6)
                                       for a, b in zip(big.parameters(), acc.parameters())))
print("grad[0] row", [round(v, 4) for v in acc[0].weight.grad[0].tolist()])

# clip_grad_norm_ over norm types, foreach True/False give the same
for norm_type in [2.0, 1.0, float("inf"), 3]:
    res = []
    for foreach in (False, True):
        m = make()
        nn.functional.mse_loss(m(X), Y).backward()
        total = clip_grad_norm_(m.parameters(), max_norm=0.1, norm_type=norm_type, foreach=foreach)
        after = get_total_norm([p.grad for p in m.parameters()], norm_type=norm_type)
        res.append((round(total.item(), 4), round(after.item(), 4)))
    print("norm", norm_type, res, total.dtype, total.shape)

# the returned norm is the norm before clipping; below max_norm nothing changes
m = make()
nn.functional.mse_loss(m(X), Y).backward()
g0 = [p.grad.clone() for p in m.parameters()]
total = clip_grad_norm_(m.parameters(), max_norm=100.0)
print("unclipped", round(total.item(), 4), all(torch.equal(a, p.grad) for a, p in zip(g0, m.parameters())))
manual = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in g0]))
print("manual norm", round(manual.item(), 4))
coef = 0.5 / (total.item() + 1e-6)
clip_grad_norm_(m.parameters(), max_norm=0.5)
print("coef applied", all(torch.allclose(p.grad, g * coef) for g, p in zip(g0, m.parameters())))

# the two-step API: a norm computed once, applied to several groups
m = make()
nn.functional.mse_loss(m(X), Y).backward()
grads = [p.grad for p in m.parameters()]
tn = get_total_norm(grads, norm_type=2.0, error_if_nonfinite=False, foreach=None)
clip_grads_with_norm_(m.parameters(), max_norm=0.25, total_norm=tn)
print("two-step", round(tn.item(), 4), round(get_total_norm(grads).item(), 4))

# a single tensor, an empty list, a parameter without grad
w = nn.Parameter(torch.ones(3))
w.grad = torch.tensor([3.0, 4.0, 0.0])
print("single", clip_grad_norm_(w, 1.0), w.grad)
print("empty", clip_grad_norm_([], 1.0))
a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
a.grad = torch.tensor([6.0, 8.0])
print("skips None grad", clip_grad_norm_([a, b], 5.0), a.grad, b.grad)

# clip_grad_value_
m = make()
nn.functional.mse_loss(m(X), Y).backward()
clip_grad_value_(m.parameters(), clip_value=0.05)
print("max |grad|", max(p.grad.abs().max().item() for p in m.parameters()))
v = nn.Parameter(torch.zeros(4))
v.grad = torch.tensor([-1.0, 0.02, 0.5, float("nan")])
clip_grad_value_([v], 0.1, foreach=True)
print("value clipped", v.grad)

# mixed dtypes: the total norm is computed per dtype and combined
p32 = nn.Parameter(torch.zeros(2))
p64 = nn.Parameter(torch.zeros(2, dtype=torch.float64))
p32.grad = torch.tensor([3.0, 0.0])
p64.grad = torch.tensor([0.0, 4.0], dtype=torch.float64)
t = clip_grad_norm_([p32, p64], 1.0)
print("mixed", t.item(), t.dtype, p32.grad, p64.grad)

# non-finite gradients
bad = nn.Parameter(torch.zeros(2))
bad.grad = torch.tensor([float("inf"), 1.0])
print("inf total", clip_grad_norm_([bad], 1.0).item(), bad.grad)
bad.grad = torch.tensor([float("nan"), 1.0])
try:
    clip_grad_norm_([bad], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    get_total_norm([torch.tensor([float("inf")])], error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    get_total_norm([torch.tensor([1.0]), torch.tensor([3, 4])])
except RuntimeError as e:
    print("RuntimeError", e)

# a loop that skips optimizer steps when the clipped norm is not finite
m = make()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
skipped = 0
for step in range(6):
    opt.zero_grad()
    loss = nn.functional.mse_loss(m(X), Y)
    loss.backward()
    if step == 2:
        m[0].weight.grad[0, 0] = float("nan")
    norm = clip_grad_norm_(m.parameters(), 1.0)
    if not math.isfinite(norm.item()):
        skipped += 1
        print("step", step, "skipped, norm", norm.item())
        continue
    opt.step()
    print("step", step, round(loss.item(), 4), round(norm.item(), 4))
print("skipped", skipped, "finite weights", all(torch.isfinite(p).all().item() for p in m.parameters()))
