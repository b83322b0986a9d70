"""Optimizers and schedulers across a checkpoint: every built-in optimizer's state after a few steps, its
state_dict round trip through torch.save/torch.load(weights_only=True) into a fresh optimizer that then continues
identically; per-group hyperparameters, maximize, Tensor lr; ReduceLROnPlateau (mode max, min_lr, cooldown),
SequentialLR and ChainedScheduler resumed mid-schedule; step hooks; a custom Optimizer subclass; and the errors."""

import io
import numpy as np
import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S

rng = np.random.default_rng(19)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


W0, X, Y = T(3, 4) * 0.5, T(16, 4), T(16, 3)


def make_model():
    m = nn.Linear(4, 3)
    with torch.no_grad():
        m.weight.copy_(W0)
        m.bias.fill_(0.1)
    return m


def step(model, opt, n=1):
    for _ in range(n):
        def closure():
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(X), Y)
            loss.backward()
            return loss

        loss = opt.step(closure)
    return loss


def roundtrip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


CASES = [
    ("SGD", lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=1e-2)),
    ("SGD_nesterov", lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, maximize=False)),
    ("Adam_amsgrad", lambda p: optim.Adam(p, lr=0.05, amsgrad=True, weight_decay=0.01)),
    ("AdamW", lambda p: optim.AdamW(p, lr=torch.tensor(0.05), weight_decay=0.1)),
    ("Adamax", lambda p: optim.Adamax(p, lr=0.05)),
    ("NAdam", lambda p: optim.NAdam(p, lr=0.05, momentum_decay=4e-3)),
    ("NAdam_decoupled", lambda p: optim.NAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", lambda p: optim.RAdam(p, lr=0.05)),
    ("RMSprop", lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
    ("Adadelta", lambda p: optim.Adadelta(p, lr=1.0, rho=0.8)),
    ("Rprop", lambda p: optim.Rprop(p, lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-4, 1.0))),
    ("ASGD", lambda p: optim.ASGD(p, lr=0.05, t0=2)),
]
for name, make in CASES:
    a, b = make_model(), make_model()
    oa = make(a.parameters())
    step(a, oa, 3)
    sd = roundtrip(oa.state_dict())
    st = sd["state"][0]
    print(name, sorted(st), [round(v.item(), 4) if v.dim() == 0 else tuple(v.shape) for v in st.values()][:4])
    with torch.no_grad():
        b.weight.copy_(a.weight)
        b.bias.copy_(a.bias)
    ob = make(b.parameters())
    ob.load_state_dict(sd)
    la, lb = step(a, oa, 2), step(b, ob, 2)
    print(name + "_resume", round(la.item(), 4), torch.equal(a.weight, b.weight), r(a.weight))

# per-group hyperparameters and maximize
m = make_model()
o = optim.Adam([{"params": [m.weight], "lr": 0.01}, {"params": [m.bias], "lr": 0.1, "betas": (0.5, 0.9)}],
               maximize=True)
step(m, o, 2)
print("groups", [(g["lr"], g["betas"], g["maximize"]) for g in o.param_groups], r(m.bias, 3))
sd = o.state_dict()
print("group_sd", [sorted(g)[:5] for g in sd["param_groups"]][0], [g["params"] for g in sd["param_groups"]])
o2 = optim.Adam([{"params": [m.weight]}], lr=0.01)
try:
    o2.load_state_dict(sd)
except ValueError as e:
    print("load_err", type(e).__name__, str(e))
o3 = optim.Adam([{"params": [m.bias]}, {"params": [m.weight]}], lr=0.01)
try:
    o3.load_state_dict(sd)
except ValueError as e:
    print("load_err2", type(e).__name__, str(e))
for bad in (lambda: optim.Adam(m.parameters(), lr=-1.0), lambda: optim.SGD(m.parameters(), lr=0.1, nesterov=True),
            lambda: optim.Adam(m.parameters(), betas=(1.5, 0.9)), lambda: optim.SGD([], lr=0.1),
            lambda: optim.SGD(m.weight, lr=0.1),
            lambda: optim.Adam(m.parameters(), lr=torch.tensor(0.01), foreach=True),
            lambda: optim.SGD(m.parameters(), lr=torch.tensor([0.1, 0.2])),
            lambda: optim.SGD(m.parameters(), lr=0.1).add_param_group([m.weight])):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print("ctor_err", type(e).__name__, str(e))

# step hooks
calls = []
o = optim.SGD(m.parameters(), lr=0.1)
hp = o.register_step_pre_hook(lambda opt, args, kwargs: calls.append("pre"))
hq = o.register_step_post_hook(lambda opt, args, kwargs: calls.append("post"))
step(m, o, 2)
hp.remove()
step(m, o, 1)
print("hooks", calls)

# schedulers resumed mid-way
def sched_run(make_s, n_before, n_after, metrics=None):
    p = nn.Parameter(torch.zeros(2))
    o = optim.SGD([p], lr=0.1, momentum=0.9)
    s = make_s(o)
    lrs = []
    for i in range(n_before):
        o.step()
        s.step(*([metrics[i]] if metrics else []))
        lrs.append(round(o.param_groups[0]["lr"], 6))
    sd_o, sd_s = roundtrip(o.state_dict()), s.state_dict()
    p2 = nn.Parameter(torch.zeros(2))
    o2 = optim.SGD([p2], lr=0.1, momentum=0.9)
    s2 = make_s(o2)
    o2.load_state_dict(sd_o)
    s2.load_state_dict(sd_s)
    for i in range(n_before, n_before + n_after):
        o2.step()
        s2.step(*([metrics[i]] if metrics else []))
        lrs.append(round(o2.param_groups[0]["lr"], 6))
    return lrs, s2


metric = [0.5, 0.6, 0.6, 0.6, 0.59, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]
lrs, s = sched_run(lambda o: S.ReduceLROnPlateau(o, mode="max", factor=0.3, patience=1, cooldown=2, min_lr=0.005,
                                                  threshold=0.05, threshold_mode="abs"), 5, 7, metric)
print("plateau", lrs, s.best, s.num_bad_epochs, s.cooldown_counter, s.last_epoch)
print("plateau_sd", sorted(s.state_dict()))
lrs, s = sched_run(lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.2, 1.0, total_iters=3), S.StepLR(o, 2, 0.5),
                                                 S.ConstantLR(o, 0.1, total_iters=2)], milestones=[3, 7]), 5, 6)
print("sequential", lrs, s.last_epoch, [type(x).__name__ for x in s._schedulers])
lrs, s = sched_run(lambda o: S.ChainedScheduler([S.ExponentialLR(o, 0.9), S.MultiStepLR(o, [2, 6], 0.5)]), 4, 5)
print("chained", lrs, [round(v, 6) for v in s.get_last_lr()])
lrs, s = sched_run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01), 4, 6)
print("warm_restarts", lrs, s.T_cur, s.T_i)
lrs, s = sched_run(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9), 3, 5)
print("cyclic", lrs)
try:
    S.SequentialLR(optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), [], milestones=[])
except ValueError as e:
    print("seq_err", type(e).__name__, str(e))


class SignSGD(optim.Optimizer):
    def __init__(self, params, lr=0.01, decay=0.0):
        super().__init__(params, dict(lr=lr, decay=decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                state["n"] = state.get("n", 0) + 1
                p.mul_(1 - group["decay"]).add_(p.grad.sign(), alpha=-group["lr"])
        return loss


m = make_model()
o = SignSGD(m.parameters(), lr=0.05, decay=0.01)
loss = step(m, o, 3)
print("custom", round(loss.item(), 4), r(m.weight), o.state[m.weight]["n"], o.defaults)
print("custom_repr", repr(o).splitlines()[:4])
sched = S.StepLR(o, 1, gamma=0.5)
step(m, o, 1)
sched.step()
print("custom_sched", o.param_groups[0]["lr"], o.param_groups[0]["initial_lr"])
print("OK")
