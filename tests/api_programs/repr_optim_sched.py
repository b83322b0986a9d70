"""Optimizers and LR schedulers as training scripts print them: the repr of every optimizer after two steps
and its state_dict (step counters, moments), param groups added later, each scheduler's state_dict and
last lr after three epochs, SequentialLR/ChainedScheduler nesting, ReduceLROnPlateau's counters, SWALR and
AveragedModel, and a checkpoint dict printed key by key."""

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler as S
from torch.optim.swa_utils import SWALR, AveragedModel

torch.manual_seed(0)
torch.set_printoptions(precision=4)
m = nn.Linear(2, 1)


def step(o):
    o.zero_grad()
    m(torch.randn(3, 2)).pow(2).mean().backward()
    o.step()


configs = [(optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)), (optim.Adam, dict(amsgrad=True)),
           (optim.AdamW, {}), (optim.RMSprop, dict(centered=True, momentum=0.5)), (optim.Adagrad, dict(lr_decay=0.1)),
           (optim.Adadelta, {}), (optim.Adamax, {}), (optim.NAdam, dict(decoupled_weight_decay=True)),
           (optim.RAdam, {}), (optim.ASGD, {}), (optim.Rprop, {}), (optim.SGD, dict(lr=0.1))]
for cls, kw in configs:
    o = cls(m.parameters(), **kw)
    step(o)
    step(o)
    print(o)
    print(o.state_dict())
lb = optim.LBFGS(m.parameters(), history_size=3, max_iter=4)
lb.step(lambda: m(torch.ones(1, 2)).sum())
print(lb)
st = lb.state_dict()["state"][0]
print(sorted(st), st["func_evals"], st["n_iter"], st["d"], len(st["al"]))

o = optim.SGD([{"params": m.weight, "lr": 0.5}], lr=0.1)
o.add_param_group({"params": m.bias, "weight_decay": 1e-4})
print(o, sorted(o.param_groups[1]))

o = optim.AdamW(m.parameters(), lr=1e-3)
scheds = [S.StepLR(o, 3), S.MultiStepLR(o, [2, 4], 0.5), S.ExponentialLR(o, 0.9), S.CosineAnnealingLR(o, 5, 1e-5),
          S.LinearLR(o, 0.5, total_iters=3), S.ConstantLR(o, 0.3, 2), S.PolynomialLR(o, 4, 2.0),
          S.CosineAnnealingWarmRestarts(o, 2, 2), S.CyclicLR(o, 1e-4, 1e-2, step_size_up=2),
          S.OneCycleLR(o, 0.01, total_steps=10)]
for s in scheds:
    for _ in range(3):
        o.step()
        s.step()
    print(type(s).__name__, s.state_dict(), s.get_last_lr(), s.last_epoch)
lam = S.LambdaLR(o, lambda e: 0.95 ** e)
o.step()
lam.step()
print({k: v for k, v in lam.state_dict().items() if k != "lr_lambdas"}, lam.state_dict()["lr_lambdas"])

o2 = optim.SGD(m.parameters(), lr=0.1)
seq = S.SequentialLR(o2, [S.LinearLR(o2, 0.1, total_iters=2), S.ExponentialLR(o2, 0.5)], milestones=[2])
for epoch in range(5):
    o2.step()
    seq.step()
    print(epoch, seq.get_last_lr(), [s._step_count for s in seq._schedulers], [s.last_epoch for s in seq._schedulers])
print(seq.state_dict())
ch = S.ChainedScheduler([S.ExponentialLR(o2, 0.9), S.StepLR(o2, 2)])
for _ in range(3):
    o2.step()
    ch.step()
print(ch.state_dict())
rp = S.ReduceLROnPlateau(o2, "max", patience=0, cooldown=1)
for v in [1, 0.5, 0.4, 0.3, 0.2]:
    rp.step(v)
    print(v, rp.num_bad_epochs, rp.cooldown_counter, rp.best, rp.get_last_lr())
print(rp.state_dict())

swa = SWALR(o2, swa_lr=0.05, anneal_epochs=2)
for _ in range(2):
    o2.step()
    swa.step()
print(swa.state_dict())
am = AveragedModel(m)
print(am)
am.update_parameters(m)
print(am.n_averaged, list(am.state_dict().keys()))

ckpt = {"epoch": 3, "model": m.state_dict(), "optimizer": o2.state_dict(), "scheduler": rp.state_dict(),
        "best": torch.tensor(0.25)}
for k, v in ckpt.items():
    print(f"{k}: {v}")
