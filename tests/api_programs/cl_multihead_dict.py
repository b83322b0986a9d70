"""Task-incremental multi-head models: heads added per task to an nn.ModuleDict, per-task scales in an
nn.ParameterDict, the dicts' mapping API (update, pop, setdefault-like use, keys/values/items, |), reprs after
growth, optimizers that pick up new heads, and the keys and values the dicts reject."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class MultiHead(nn.Module):
    def __init__(self, d_in, d_hid):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, d_hid), nn.ReLU())
        self.heads = nn.ModuleDict()
        self.scales = nn.ParameterDict()
        self.d_hid = d_hid

    def add_task(self, name, n_classes):
        self.heads[name] = nn.Linear(self.d_hid, n_classes)
        self.scales[name] = nn.Parameter(torch.ones(1))
        return list(self.heads[name].parameters()) + [self.scales[name]]

    def forward(self, x, task):
        return self.heads[task](self.trunk(x)) * self.scales[task]


model = MultiHead(5, 8)
print(model)
opt = torch.optim.Adam(model.trunk.parameters(), lr=0.01)
data = {}
for i, (name, k) in enumerate([("mnist", 2), ("svhn", 3), ("cifar", 4)]):
    new = model.add_task(name, k)
    opt.add_param_group({"params": new, "lr": 0.02 * (i + 1)})
    x = torch.randn(20, 5)
    y = torch.randint(0, k, (20,))
    data[name] = (x, y)
    for _ in range(15):
        opt.zero_grad()
        loss = F.cross_entropy(model(x, name), y)
        loss.backward()
        opt.step()
    print(
        name, "loss", round(loss.item(), 4), "groups", len(opt.param_groups), "lrs", [g["lr"] for g in opt.param_groups]
    )

print(model.heads)
print(model.scales)
print("keys:", list(model.heads.keys()), list(model.scales.keys()))
print("len/in:", len(model.heads), "svhn" in model.heads, "mnist" in model.scales, "imagenet" in model.heads)
print("values:", [type(m).__name__ for m in model.heads.values()])
print("items:", [(k, round(v.item(), 4)) for k, v in model.scales.items()])
print("named params:", [n for n, _ in model.named_parameters()])
print("state keys:", list(model.state_dict().keys())[-4:])

accs = {t: round((model(x, t).argmax(1) == y).float().mean().item(), 4) for t, (x, y) in data.items()}
print("accs:", accs)

popped = model.heads.pop("mnist")
scale = model.scales.pop("mnist")
print("popped:", popped, round(scale.item(), 4), list(model.heads))
model.heads.update({"mnist": popped})
model.heads.update([("extra", nn.Identity())])
print("after update:", list(model.heads.keys()))
del model.heads["extra"]
print("after del:", list(model.heads.keys()))
pd = nn.ParameterDict({"b": nn.Parameter(torch.zeros(2)), "a": torch.ones(3)})
print("pd:", list(pd.keys()), type(pd["a"]).__name__, pd["a"].requires_grad)
pd["c"] = torch.tensor([1.0, 2.0])
pd.update({"d": nn.Parameter(torch.full((2,), 3.0), requires_grad=False)})
print("pd2:", list(pd.keys()), pd["d"].requires_grad, pd.get("zz", "missing"))
merged = pd | nn.ParameterDict({"e": nn.Parameter(torch.zeros(1))})
print("merged:", list(merged.keys()), type(merged).__name__)
print(pd)
copy_pd = pd.copy()
print("copy same tensor:", copy_pd["a"] is pd["a"], list(copy_pd.keys()))
md = nn.ModuleDict({"z": nn.ReLU(), "a": nn.Tanh()})
print("md order:", list(md.keys()))
md.clear()
print("cleared:", len(md), md)

for bad in [
    lambda: model.heads.__setitem__("a.b", nn.ReLU()),
    lambda: model.heads["nope"],
    lambda: model.heads.__setitem__("x", 3),
    lambda: nn.ModuleDict([("a", nn.ReLU(), 1)]),
    lambda: model.scales["nope"],
    lambda: model.forward(torch.randn(2, 5), "imagenet"),
    lambda: opt.add_param_group({"params": model.heads["svhn"].parameters()}),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
