"""Optimizer hooks as logging and gradient-surgery code uses them: register_step_pre_hook/post_hook (a pre hook that
rescales gradients, a post hook that counts and logs lrs, hook removal through the handle), the global
register_optimizer_step_pre_hook/post_hook, state_dict pre/post hooks and load_state_dict pre/post hooks that
rewrite what is saved and loaded, and zero_grad on tensors that never got a grad."""

import re

import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

torch.manual_seed(0)
torch.set_printoptions(precision=4)

model = nn.Linear(4, 2)
X, y = torch.randn(10, 4), torch.randn(10, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
log = []


def halve_grads(optimizer, args, kwargs):
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None:
                p.grad.mul_(0.5)
    log.append(("pre", type(optimizer).__name__, len(args), args[0] is optimizer, sorted(kwargs)))


def after(optimizer, args, kwargs):
    log.append(("post", round(optimizer.param_groups[0]["lr"], 4)))


h_pre = opt.register_step_pre_hook(halve_grads)
h_post = opt.register_step_post_hook(after)
print("handle type:", type(h_pre).__name__, "ids differ:", h_pre.id != h_post.id)


def step_once():
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    opt.step()
    return round(loss.item(), 4)


print("losses with hooks:", [step_once() for _ in range(3)])
print("log:", log)
h_pre.remove()
log.clear()
print("after removing pre:", step_once(), log)
h_post.remove()
log.clear()
step_once()
print("after removing both:", log)

# a pre hook can return new (args, kwargs); returning something else is an error
def bad_pre(optimizer, args, kwargs):
    return 42


h = opt.register_step_pre_hook(bad_pre)
try:
    step_once()
except RuntimeError as e:
    print("RuntimeError:", re.sub(r" at 0x[0-9a-f]+", "", str(e)))
h.remove()

# global hooks fire for every optimizer
seen = []
g_pre = register_optimizer_step_pre_hook(lambda o, a, k: seen.append(("gpre", type(o).__name__)))
g_post = register_optimizer_step_post_hook(lambda o, a, k: seen.append(("gpost", type(o).__name__)))
adam = torch.optim.Adam(model.parameters(), lr=1e-2)
adam.register_step_post_hook(lambda o, a, k: seen.append(("local", type(o).__name__)))
nn.functional.mse_loss(model(X), y).backward()
adam.step()
opt.step()
print("global order:", seen)
g_pre.remove()
g_post.remove()
seen.clear()
adam.step()
print("after global removal:", seen)

# state_dict hooks: drop momentum buffers on save, record keys on load
opt2 = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
step = [0]


def sd_pre(optimizer):
    step[0] += 1


def sd_post(optimizer, state_dict):
    state_dict["saved_by"] = "sd_post"
    state_dict["state"] = {}
    return state_dict


opt2.register_state_dict_pre_hook(sd_pre)
opt2.register_state_dict_post_hook(sd_post)
nn.functional.mse_loss(model(X), y).backward()
opt2.step()
sd = opt2.state_dict()
print("state_dict pre calls:", step[0], "keys:", sorted(sd), "state:", sd["state"])
print("live state still has buffers:", all("momentum_buffer" in opt2.state[p] for p in model.parameters()))

loaded = []


def ld_pre(optimizer, state_dict):
    loaded.append(("pre", sorted(state_dict)))
    sd2 = dict(state_dict)
    sd2.pop("saved_by", None)
    sd2["param_groups"] = [dict(g, lr=0.05) for g in state_dict["param_groups"]]
    return sd2


def ld_post(optimizer):
    loaded.append(("post", optimizer.param_groups[0]["lr"]))


opt3 = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
opt3.register_load_state_dict_pre_hook(ld_pre)
opt3.register_load_state_dict_post_hook(ld_post)
opt3.load_state_dict(sd)
print("load hooks:", loaded)
print("lr after load:", opt3.param_groups[0]["lr"], "state empty:", len(opt3.state) == 0)

# prepend puts a hook first
order = []
opt3.register_state_dict_pre_hook(lambda o: order.append("a"))
opt3.register_state_dict_pre_hook(lambda o: order.append("b"), prepend=True)
opt3.state_dict()
print("prepend order:", order)

# zero_grad leaves never-touched grads as None, set_to_none=False zeros existing ones in place
p1, p2 = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
o = torch.optim.SGD([p1, p2], lr=0.1)
(p1 * 3).sum().backward()
g_ref = p1.grad
o.zero_grad(set_to_none=False)
print("zeroed in place:", p1.grad is g_ref, p1.grad, "never touched:", p2.grad)
print("final weight:", model.weight.detach())
