"""Reptile as its reference code writes it: a deep-copied learner trained by SGD on one task, the meta-update as a
step toward the adapted weights (flat vectors through parameters_to_vector/vector_to_parameters, per-tensor lerp_,
state_dict interpolation and the _foreach ops), a batched variant averaging task deltas, and the utilities' errors."""

import copy

import torch
from torch.nn.utils import parameters_to_vector, vector_to_parameters

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def make_task(gen):
    w = torch.randn(3, 1, generator=gen)
    b = torch.randn(1, generator=gen)
    x = torch.randn(24, 3, generator=gen)
    return x, torch.tanh(x @ w + b)


def inner_train(model, x, y, steps=5, lr=0.05, batch=8):
    learner = copy.deepcopy(model)
    opt = torch.optim.SGD(learner.parameters(), lr=lr, momentum=0.5)
    for s in range(steps):
        idx = torch.arange(s * batch, (s + 1) * batch) % x.shape[0]
        loss = F.mse_loss(learner(x[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return learner, loss.item()


model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
gen = torch.Generator().manual_seed(7)
vec = parameters_to_vector(model.parameters())
print("flat params", tuple(vec.shape), vec.dtype, vec.requires_grad, vec.grad_fn.name())

# serial Reptile with flat vectors
outer_lr = 0.5
for it in range(4):
    x, y = make_task(gen)
    learner, last = inner_train(model, x, y)
    before = parameters_to_vector(model.parameters()).detach()
    after = parameters_to_vector(learner.parameters()).detach()
    with torch.no_grad():
        vector_to_parameters(before + outer_lr * (after - before), model.parameters())
    print(f"it {it} inner loss {last:.4f} step norm {(after - before).norm().item():.4f}")

# the same update as per-tensor lerp_ and through state_dicts
x, y = make_task(gen)
learner, _ = inner_train(model, x, y)
m1, m2 = copy.deepcopy(model), copy.deepcopy(model)
with torch.no_grad():
    for p, q in zip(m1.parameters(), learner.parameters()):
        p.lerp_(q, outer_lr)
sd, sd_new = m2.state_dict(), learner.state_dict()
m2.load_state_dict({k: torch.lerp(v, sd_new[k], outer_lr) for k, v in sd.items()})
print("lerp_ == state_dict lerp", all(torch.allclose(a, b) for a, b in zip(m1.parameters(), m2.parameters())))

# _foreach variants of the same update
m3 = copy.deepcopy(model)
ps, qs = list(m3.parameters()), [q.detach() for q in learner.parameters()]
with torch.no_grad():
    deltas = torch._foreach_sub(qs, ps)
    torch._foreach_add_(ps, deltas, alpha=outer_lr)
print("foreach == lerp_", all(torch.allclose(a, b) for a, b in zip(m1.parameters(), m3.parameters())))
norms = torch._foreach_norm(deltas)
print("per-tensor delta norms", [round(n.item(), 4) for n in norms])

# batched Reptile: the average of several tasks' deltas, with a linearly decayed outer step
for it in range(3):
    base = parameters_to_vector(model.parameters()).detach()
    ds = torch.stack([parameters_to_vector(inner_train(model, *make_task(gen))[0].parameters()).detach() - base
                      for _ in range(3)])
    frac = 1 - it / 3
    with torch.no_grad():
        vector_to_parameters(base + frac * outer_lr * ds.mean(0), model.parameters())
    print(f"batched it {it} mean delta {ds.mean(0).norm().item():.4f} spread {ds.std(0).mean().item():.4f}")

# evaluation: fine-tune on a fresh task from the meta-init and from a random init
x, y = make_task(gen)
tuned, loss_meta = inner_train(model, x, y, steps=10)
torch.manual_seed(1)
tuned_r, loss_rand = inner_train(nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1)), x, y, steps=10)
print("final-step loss meta-init", round(loss_meta, 4), "random init", round(loss_rand, 4))

# misuse
for bad in [lambda: vector_to_parameters(torch.zeros(5), model.parameters()),
            lambda: vector_to_parameters([1.0], model.parameters()),
            lambda: parameters_to_vector([torch.zeros(2), torch.zeros(2, dtype=torch.float64)]).dtype,
            lambda: torch.lerp(torch.zeros(3), torch.ones(4), 0.5),
            lambda: torch._foreach_add_([torch.zeros(2)], [torch.zeros(2), torch.zeros(2)])]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
