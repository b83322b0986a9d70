"""torch.compile recipes from tutorials and training repos: compiling the optimizer step alone, an EMA update
with torch._foreach ops, gradient accumulation through a compiled model, a step counter buffer updated in
place, forward hooks on a compiled model's submodules, a compiled loss with Python float arguments, more
batch shapes than torch._dynamo.config.cache_size_limit, is_compiling() branches, and torch.compile of
the same model twice (compiling an OptimizedModule)."""

import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.simplefilter("ignore")
rng = np.random.default_rng(21)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=4):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init_(m, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    return m


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 16), nn.SiLU(), nn.Linear(16, 16), nn.GELU())
        self.out = nn.Linear(16, 2)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        if self.training:
            self.steps += 1
        return self.out(self.body(x))


X, Y = T(24, 5), T(24, 2)

# 1) compile the optimizer step on its own (PyTorch's "compiling the optimizer" recipe)
model = init_(Regressor(), 1)
twin = init_(Regressor(), 1)
opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.1)
opt_t = torch.optim.AdamW(twin.parameters(), lr=0.02, weight_decay=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
sched_t = torch.optim.lr_scheduler.CosineAnnealingLR(opt_t, T_max=6)


@torch.compile(fullgraph=False)
def opt_step():
    opt.step()


ema = [p.detach().clone() for p in model.parameters()]


@torch.compile
def ema_update(decay: float):
    with torch.no_grad():
        params = [p.detach() for p in model.parameters()]
        torch._foreach_mul_(ema, decay)
        torch._foreach_add_(ema, params, alpha=1 - decay)


for step in range(6):
    xb, yb = X[step * 4:(step + 1) * 4], Y[step * 4:(step + 1) * 4]
    for m, o in ((model, None), (twin, opt_t)):
        loss = F.smooth_l1_loss(m(xb), yb, beta=0.5)
        loss.backward()
        if o is None:
            opt_step()
            opt.zero_grad()
            ema_update(0.9)
        else:
            o.step()
            o.zero_grad()
    sched.step()
    sched_t.step()
    print("step", step, round(loss.item(), 4), round(opt.param_groups[0]["lr"], 5), model.steps.item())
print("opt_match", all(torch.allclose(a, b, atol=1e-5) for a, b in zip(model.parameters(), twin.parameters())))
print("ema", r(ema[0]), r(ema[-1]))

# 2) gradient accumulation through a compiled model, with forward hooks on its submodules
acc_model = init_(Regressor(), 2)
compiled = torch.compile(acc_model)
acts = []
handle = acc_model.body[1].register_forward_hook(lambda mod, inp, out: acts.append(tuple(out.shape)))
opt2 = torch.optim.SGD(compiled.parameters(), lr=0.05, momentum=0.9, nesterov=True)
accum = 3
for i in range(6):
    xb, yb = X[i * 4:(i + 1) * 4], Y[i * 4:(i + 1) * 4]
    loss = F.mse_loss(compiled(xb), yb) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        gn = torch.nn.utils.clip_grad_norm_(compiled.parameters(), 1.0)
        opt2.step()
        opt2.zero_grad(set_to_none=True)
        print("update", i, round(gn.item(), 4), r(acc_model.out.bias))
handle.remove()
print("hook_calls", len(acts), acts[0], "steps_buffer", acc_model.steps.item(), compiled.steps.item())
print("buffers", [n for n, _ in compiled.named_buffers()])

# eager twin of the accumulation run
ref = init_(Regressor(), 2)
opt_r = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9, nesterov=True)
for i in range(6):
    (F.mse_loss(ref(X[i * 4:(i + 1) * 4]), Y[i * 4:(i + 1) * 4]) / accum).backward()
    if (i + 1) % accum == 0:
        torch.nn.utils.clip_grad_norm_(ref.parameters(), 1.0)
        opt_r.step()
        opt_r.zero_grad(set_to_none=True)
print("accum_match", torch.allclose(ref.out.weight, acc_model.out.weight, atol=1e-5))


# 3) a compiled loss with Python float arguments and more shapes than the cache holds
@torch.compile
def focal_loss(logits, target, gamma: float, alpha: float):
    ce = F.cross_entropy(logits, target, reduction="none")
    pt = torch.exp(-ce)
    return (alpha * (1 - pt) ** gamma * ce).mean()


torch._dynamo.config.cache_size_limit = 2
vals = []
for n, gamma in zip((3, 5, 7, 4, 6, 3), (2.0, 2.0, 1.5, 1.0, 2.0, 0.5)):
    logits, target = T(n, 4), torch.from_numpy(rng.integers(0, 4, n))
    got = focal_loss(logits, target, gamma, 0.25)
    ce = F.cross_entropy(logits, target, reduction="none")
    want = (0.25 * (1 - torch.exp(-ce)) ** gamma * ce).mean()
    vals.append(round(got.item(), 4))
    assert torch.allclose(got, want, atol=1e-6)
print("focal", vals)
torch._dynamo.config.cache_size_limit = 8


# 4) is_compiling() picks the compiled branch; compiling an already compiled module
@torch.compile
def scaled(x):
    if torch.compiler.is_compiling():
        return x * 2
    return x * 3


print("is_compiling_branch", [scaled(torch.ones(2)).tolist() for _ in range(3)], torch.compiler.is_compiling())
again = torch.compile(compiled)
acc_model.eval()
with torch.no_grad():
    a, b = again(X[:3]), acc_model(X[:3])
print("recompiled", callable(again), torch.allclose(a, b), r(a))
print("steps_frozen_in_eval", acc_model.steps.item())
