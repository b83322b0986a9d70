"""SGD as research code configures it: a backbone/head split into param groups with per-group lr, momentum,
dampening, nesterov and weight_decay, a bias group without decay, add_param_group for a late-unfrozen layer,
zero_grad(set_to_none=False) keeping zero tensors, maximize, and foreach=True agreeing with the for-loop path."""

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

X = torch.randn(32, 6)
y = (X[:, :2].sum(1, keepdim=True) > 0).float()


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4), nn.Tanh(), nn.Linear(4, 1))


def split_groups(model):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if name.startswith("4."):
            continue
        (no_decay if name.endswith("bias") else decay).append(p)
    return decay, no_decay


def train(opt, model, steps, set_to_none=True):
    losses = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=set_to_none)
        loss = nn.functional.binary_cross_entropy_with_logits(model(X), y)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    return losses


model = make_model()
decay, no_decay = split_groups(model)
opt = torch.optim.SGD(
    [
        {"params": decay, "weight_decay": 1e-2, "nesterov": True, "momentum": 0.9},
        {"params": no_decay, "lr": 0.05, "momentum": 0.5, "dampening": 0.3},
    ],
    lr=0.1,
)
print("groups:", len(opt.param_groups), [len(g["params"]) for g in opt.param_groups])
for i, g in enumerate(opt.param_groups):
    print(i, {k: v for k, v in sorted(g.items()) if k != "params"})
print("losses:", train(opt, model, 4))

# late unfreeze of the head layer with its own options
opt.add_param_group({"params": list(model[4].parameters()), "lr": 0.01, "momentum": 0.0})
print("after add_param_group:", len(opt.param_groups), opt.param_groups[2]["lr"], opt.param_groups[2]["nesterov"])
print("losses:", train(opt, model, 3))
print("head weight:", model[4].weight.detach())

# momentum buffers per parameter, in the order of the groups
sd = opt.state_dict()
print("state keys:", sorted(sd["state"]))
print("param ids per group:", [g["params"] for g in sd["param_groups"]])
print("buffer of param 0:", sd["state"][0]["momentum_buffer"][0])
print("head has buffer:", "momentum_buffer" in sd["state"][len(sd["state"]) - 1])

# zero_grad(set_to_none=False) leaves zero tensors in place
opt.zero_grad(set_to_none=False)
print("grad kept:", model[0].weight.grad is not None, model[0].weight.grad.abs().sum().item())
opt.zero_grad()
print("grad none:", model[0].weight.grad is None)

# duplicate parameters across groups are an error
try:
    opt.add_param_group({"params": [model[0].weight]})
except ValueError as e:
    print("ValueError:", e)
try:
    torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True)
except ValueError as e:
    print("ValueError:", e)
try:
    torch.optim.SGD(model.parameters(), lr=-1.0)
except ValueError as e:
    print("ValueError:", e)

# foreach and for-loop implementations agree
results = []
for foreach in (False, True):
    m = make_model()
    o = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, dampening=0.1, weight_decay=1e-3, foreach=foreach)
    train(o, m, 5, set_to_none=False)
    results.append(torch.cat([p.detach().flatten() for p in m.parameters()]))
print("foreach max diff:", round((results[0] - results[1]).abs().max().item(), 6))
print("params[:6]:", results[1][:6])

# maximize climbs the objective instead
m = make_model()
o = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, maximize=True)
print("maximize losses:", train(o, m, 4))

# plain SGD with a tensor lr
m = make_model()
o = torch.optim.SGD(m.parameters(), lr=torch.tensor(0.1))
print("tensor lr:", train(o, m, 3), type(o.param_groups[0]["lr"]).__name__)
