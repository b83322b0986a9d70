"""Parameter groups as fine-tuning scripts set them up: no weight decay for biases and norms, a smaller lr for the
backbone, a head added later with add_param_group (and a warmup scheduler that then needs initial_lr), the
optimizers' reprs and state-dict layout, a BytesIO resume with weights_only=True that continues bit for bit, and
the errors for overlapping or malformed groups."""

import io
import warnings

import torch
from torch import nn

torch.manual_seed(8)
torch.set_printoptions(precision=4)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(5, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 8))
        self.head = nn.Linear(8, 3)
        self.extra = nn.Linear(8, 3)

    def forward(self, x):
        h = self.backbone(x)
        return self.head(h) + self.extra(h)


def groups(model, lr=1e-2):
    decay, no_decay = [], []
    for name, p in model.backbone.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    return [
        {"params": decay, "weight_decay": 0.05, "lr": lr * 0.1},
        {"params": no_decay, "weight_decay": 0.0, "lr": lr * 0.1},
        {"params": model.head.parameters()},
    ]


model = Net()
opt = torch.optim.AdamW(groups(model), lr=1e-2, weight_decay=0.01, betas=(0.9, 0.98))
print(opt)
print("group sizes", [len(g["params"]) for g in opt.param_groups])
print("defaults", sorted(opt.defaults))

X = torch.randn(20, 5)
Y = torch.randint(0, 3, (20,))


def step(m, o):
    o.zero_grad()
    loss = nn.functional.cross_entropy(m(X), Y)
    loss.backward()
    o.step()
    return loss.item()


for i in range(3):
    print("step", i, round(step(model, opt), 4))

sd = opt.state_dict()
print("state ids", sorted(sd["state"]), "group params", [g["params"] for g in sd["param_groups"]])
s0 = sd["state"][0]
print("state[0]", sorted(s0), s0["step"], s0["step"].dtype, tuple(s0["exp_avg"].shape))
print("group 0", {k: v for k, v in sd["param_groups"][0].items() if k != "params"})

# extra was frozen out of the optimizer: its grads exist but it never moved
print("extra untouched", model.extra.weight.grad is not None)
opt.add_param_group({"params": model.extra.parameters(), "lr": 5e-3})
print("after add", len(opt.param_groups), {k: v for k, v in opt.param_groups[-1].items() if k != "params"})
try:
    opt.add_param_group({"params": model.head.weight})
except ValueError as e:
    print("ValueError", e)
try:
    opt.add_param_group({"params": {model.head.bias}})
except TypeError as e:
    print("TypeError", e)
for i in range(2):
    print("step", 3 + i, round(step(model, opt), 4))

# a scheduler created after add_param_group sets initial_lr on every group
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0 / (1 + e))
print("initial_lr", [g["initial_lr"] for g in opt.param_groups])
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    sched.step()  # the steps before the scheduler existed do not count
print("warned", [str(r.message)[:52] for r in rec])
print("step", 5, round(step(model, opt), 4))
print("lrs", [round(x, 6) for x in sched.get_last_lr()])

# save, reload with weights_only=True, continue on both and compare
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
print("checkpoint bytes > 0", buf.tell() > 0)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
m2 = Net()
m2.load_state_dict(ck["model"])
o2 = torch.optim.AdamW(groups(m2), lr=1e-2, weight_decay=0.01, betas=(0.9, 0.98))
o2.add_param_group({"params": m2.extra.parameters(), "lr": 5e-3})
s2 = torch.optim.lr_scheduler.LambdaLR(o2, lambda e: 1.0 / (1 + e))
o2.load_state_dict(ck["opt"])
s2.load_state_dict(ck["sched"])
print("lr restored", [round(g["lr"], 6) for g in o2.param_groups])
print("state step restored", o2.state[m2.backbone[0].weight]["step"])
for i in range(3):
    a, b = step(model, opt), step(m2, o2)
    sched.step()
    s2.step()
    print("resume", i, round(a, 4), round(b, 4), a == b)
print("same weights", all(torch.equal(p, q) for p, q in zip(model.parameters(), m2.parameters())))

# loading a state dict whose groups do not match
o3 = torch.optim.AdamW(groups(Net()), lr=1e-2)
try:
    o3.load_state_dict(ck["opt"])
except ValueError as e:
    print("ValueError", e)

# other optimizers' reprs with groups
small = nn.Linear(2, 2)
for o in [torch.optim.SGD([{"params": [small.weight]}, {"params": [small.bias], "lr": 0.5}], lr=0.1, momentum=0.9,
                          nesterov=True),
          torch.optim.RMSprop(small.parameters(), lr=0.01, alpha=0.9, centered=True),
          torch.optim.Adagrad(small.parameters(), lr_decay=0.01)]:
    print(o)

# errors users hit building groups
try:
    torch.optim.SGD([], lr=0.1)
except ValueError as e:
    print("ValueError", e)
try:
    torch.optim.SGD([{"params": [small.weight]}, {"params": [small.weight]}], lr=0.1)
except ValueError as e:
    print("ValueError", e)
try:
    torch.optim.Adam(small.parameters(), lr=-1.0)
except ValueError as e:
    print("ValueError", e)
print("SGD default lr", torch.optim.SGD(small.parameters()).defaults["lr"])
