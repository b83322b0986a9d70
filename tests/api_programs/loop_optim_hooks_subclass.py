"""Optimizer and scheduler extension points a training framework relies on: a custom Optimizer subclass with
per-parameter state and a closure, step pre/post hooks (instance and global), state-dict and load-state-dict
hooks, zero_grad(set_to_none=False), a custom LRScheduler with a closed form stepped by epoch (and its
deprecation warning), and an LR-finder that sweeps the lr exponentially and restores the initial state."""

import copy
import io
import warnings

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

torch.manual_seed(71)
torch.set_printoptions(precision=4)


class SignMomentum(Optimizer):
    """signSGD with momentum (a Lion-like update): the state holds one buffer per parameter."""

    def __init__(self, params, lr=1e-2, beta=0.9, weight_decay=0.0):
        if lr <= 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, beta=beta, weight_decay=weight_decay))

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
                st = self.state[p]
                if not st:
                    st["step"] = 0
                    st["buf"] = torch.zeros_like(p)
                st["step"] += 1
                buf = st["buf"]
                buf.mul_(group["beta"]).add_(p.grad, alpha=1 - group["beta"])
                if group["weight_decay"]:
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(buf.sign(), alpha=-group["lr"])
        return loss


model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = SignMomentum([{"params": model[0].parameters(), "weight_decay": 0.1}, {"params": model[2].parameters()}],
                   lr=0.02)
print(opt)
X = torch.randn(24, 3)
Y = X[:, :1] * 2 - X[:, 1:2]
events = []
h_pre = opt.register_step_pre_hook(lambda o, args, kwargs: events.append(("pre", len(args), sorted(kwargs))))
h_post = opt.register_step_post_hook(lambda o, args, kwargs: events.append(("post",)))
g_pre = register_optimizer_step_pre_hook(lambda o, args, kwargs: events.append(("global_pre", type(o).__name__)))
g_post = register_optimizer_step_post_hook(lambda o, args, kwargs: events.append(("global_post",)))


def closure():
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), Y)
    loss.backward()
    return loss


for step in range(4):
    loss = opt.step(closure)
    print("step", step, round(loss.item(), 4))
print(events[:4], len(events))
h_pre.remove()
h_post.remove()
g_pre.remove()
g_post.remove()
events.clear()
opt.step(closure)
print("after removal", events)
st = opt.state[model[0].weight]
print("state", sorted(st), st["step"], st["buf"][0])

# zero_grad keeping tensors
opt.zero_grad(set_to_none=False)
print("zeroed grads kept", model[0].weight.grad is not None, model[0].weight.grad.abs().sum().item())
opt.zero_grad()
print("set to none", model[0].weight.grad)

# state-dict hooks: add and strip a version tag
def sd_post(o, sd):
    sd["version"] = 2
    return sd


def load_pre(o, sd):
    print("  load pre sees version", sd.get("version"))
    sd = dict(sd)
    sd.pop("version", None)
    return sd


opt.register_state_dict_post_hook(sd_post)
opt.register_load_state_dict_pre_hook(load_pre)
opt.register_load_state_dict_post_hook(lambda o: print("  load post", len(o.state)))
sd = opt.state_dict()
print("state dict keys", sorted(sd), sd["state"][0]["step"], sd["param_groups"][0]["weight_decay"])
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
m2 = copy.deepcopy(model)
o2 = SignMomentum([{"params": m2[0].parameters(), "weight_decay": 0.1}, {"params": m2[2].parameters()}], lr=0.02)
o2.register_load_state_dict_pre_hook(load_pre)
o2.register_load_state_dict_post_hook(lambda o: print("  load post", len(o.state)))
o2.load_state_dict(torch.load(buf, weights_only=True))
print("restored buf", torch.equal(o2.state[m2[0].weight]["buf"], opt.state[model[0].weight]["buf"]),
      type(o2.state[m2[0].weight]["step"]).__name__)


class WarmupInverseSqrt(LRScheduler):
    """The Transformer's inverse-square-root schedule after a linear warmup."""

    def __init__(self, optimizer, warmup, last_epoch=-1):
        self.warmup = warmup
        super().__init__(optimizer, last_epoch)

    def _factor(self, e):
        e = max(e, 1)
        return min(e / self.warmup, (self.warmup / e) ** 0.5)

    def get_lr(self):
        return [base * self._factor(self.last_epoch) for base in self.base_lrs]

    def _get_closed_form_lr(self):
        return self.get_lr()


o3 = torch.optim.SGD(model.parameters(), lr=1.0)
sch = WarmupInverseSqrt(o3, warmup=4)
lrs = []
for _ in range(8):
    o3.step()
    sch.step()
    lrs.append(round(sch.get_last_lr()[0], 4))
print("inverse sqrt", lrs)
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    sch.step(16)
print("jump to 16", round(sch.get_last_lr()[0], 4), sch.last_epoch, [str(r.message)[:50] for r in rec])
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    sch.get_lr()
print("get_lr outside step warns", [str(r.message)[:60] for r in rec])
print("scheduler state", sorted(sch.state_dict()))

# an LR finder: exponential sweep, stop when the loss diverges, restore the model and optimizer
finder_model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
o4 = torch.optim.SGD(finder_model.parameters(), lr=1e-4, momentum=0.9)
saved_model = copy.deepcopy(finder_model.state_dict())
saved_opt = copy.deepcopy(o4.state_dict())
sweep = torch.optim.lr_scheduler.ExponentialLR(o4, gamma=2.0)
best, history = float("inf"), []
for it in range(20):
    o4.zero_grad()
    loss = nn.functional.mse_loss(finder_model(X), Y)
    loss.backward()
    o4.step()
    lr = o4.param_groups[0]["lr"]
    history.append((lr, round(loss.item(), 4)))
    best = min(best, loss.item())
    if loss.item() > 4 * best or not torch.isfinite(loss):
        break
    sweep.step()
print("sweep", [(f"{lr:.1e}", l) for lr, l in history[:3]], "...", len(history), f"{history[-1][0]:.1e}")
steepest = min(range(1, len(history)), key=lambda i: history[i][1] - history[i - 1][1])
print("steepest drop at lr", f"{history[steepest][0]:.1e}")
finder_model.load_state_dict(saved_model)
o4.load_state_dict(saved_opt)
print("restored", o4.param_groups[0]["lr"], len(o4.state), torch.equal(finder_model[0].weight, saved_model["0.weight"]))
