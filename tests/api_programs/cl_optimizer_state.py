"""Optimizer bookkeeping across continual-learning tasks: optimizers built from named_parameters, reprs after
add_param_group, per-task state reset and inspection, state_dict round trips into a grown model, step hooks that
mask frozen rows, and the errors load_state_dict raises on mismatched groups."""

import io

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
opt = torch.optim.AdamW(model.named_parameters(), lr=1e-2, weight_decay=0.05)
print(opt)
print("param_names:", opt.param_groups[0].get("param_names"))

frozen_rows = torch.tensor([0, 1])


def pre_hook(optimizer, args, kwargs):
    print("  pre-step groups:", len(optimizer.param_groups))


def post_hook(optimizer, args, kwargs):
    with torch.no_grad():
        model[2].weight[frozen_rows] = snapshot[frozen_rows]


snapshot = model[2].weight.detach().clone()
h1 = opt.register_step_pre_hook(pre_hook)
h2 = opt.register_step_post_hook(post_hook)
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
for step in range(2):
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
print("rows kept:", torch.equal(model[2].weight[:2], snapshot[:2]), torch.equal(model[2].weight[2], snapshot[2]))
h1.remove()
h2.remove()

head = nn.Linear(3, 5)
opt.add_param_group({"params": list(head.named_parameters()), "lr": 5e-3, "weight_decay": 0.0})
print(opt)
print("group keys:", sorted(opt.param_groups[1].keys()))
for _ in range(3):
    opt.zero_grad()
    F.cross_entropy(head(model(x)), y).backward()
    opt.step()
steps = [opt.state[p]["step"].item() for g in opt.param_groups for p in g["params"]]
print("steps:", steps)

sd = opt.state_dict()
print("sd groups:", [(g["params"], g.get("param_names"), g["lr"]) for g in sd["param_groups"]])
print("state[0] keys:", sorted(sd["state"][0].keys()), sd["state"][4]["step"])
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=True)
print("loaded type:", type(loaded["state"][0]["exp_avg"]).__name__, loaded["param_groups"][1]["lr"])

for p in head.parameters():
    opt.state.pop(p, None)
print("after reset:", len(opt.state), [opt.state[p].get("step") for p in head.parameters()], len(opt.state))

m2 = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
h2_ = nn.Linear(3, 5)
opt2 = torch.optim.AdamW(list(m2.named_parameters()), lr=1.0)
opt2.add_param_group({"params": list(h2_.named_parameters())})
opt2.load_state_dict(loaded)
print("opt2 lrs:", [g["lr"] for g in opt2.param_groups], opt2.param_groups[1]["weight_decay"])
print("opt2 state:", len(opt2.state), opt2.state[m2[0].weight]["exp_avg"].shape)

opt3 = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
print(opt3)
opt3.zero_grad()
F.cross_entropy(model(x), y).backward()
opt3.step()
print("sgd state:", sorted(opt3.state[model[0].weight].keys()))
print("defaults:", sorted(opt3.defaults.keys())[:6])

for bad in [lambda: opt2.load_state_dict({"state": {}, "param_groups": loaded["param_groups"][:1]}),
            lambda: torch.optim.SGD(model.parameters(), lr=0.1).load_state_dict(loaded),
            lambda: opt2.load_state_dict({"state": {}}),
            lambda: torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True),
            lambda: torch.optim.AdamW(list(model.named_parameters()) + [model[0].weight], lr=0.1),
            lambda: torch.optim.SGD(model.parameters(), lr=0.1, momentum=-0.5)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
