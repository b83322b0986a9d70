"""Checkpoint-loading mistakes as users meet them when they change a model between runs: load_state_dict with
missing and unexpected keys, size mismatches, DataParallel's "module." prefix, strict=False and the
_IncompatibleKeys it returns (printed, unpacked, and its fields), buffers, non-persistent buffers, a Tensor where a
dict belongs, and the optimizer's state_dict with the wrong number of groups or parameters."""

import collections

import torch
import torch.nn as nn

torch.manual_seed(2)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    print(f"{name}: ok {out}")
    return out


class Net(nn.Module):
    def __init__(self, hidden=8, classes=3, bn=True):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4) if bn else nn.Identity(), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(4, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.fc(self.pool(self.features(x)).flatten(1)).relu())


src = Net()
sd = src.state_dict()
print("keys", list(sd.keys()))
print("types", sorted({type(v).__name__ for v in sd.values()}), type(sd).__name__)

show("same_arch", lambda: Net().load_state_dict(sd))
show("more_classes", lambda: Net(classes=5).load_state_dict(sd))
show("wider_hidden", lambda: Net(hidden=16).load_state_dict(sd))
show("no_bn", lambda: Net(bn=False).load_state_dict(sd))
show("no_bn_lenient", lambda: Net(bn=False).load_state_dict(sd, strict=False))

# the returned NamedTuple
res = Net(bn=False).load_state_dict(sd, strict=False)
print("res type", type(res).__name__)
print("res missing", res.missing_keys)
print("res unexpected", res.unexpected_keys)
missing, unexpected = res
print("unpacked", len(missing), len(unexpected))
print("res fields", res._fields)
print("res ok repr", Net().load_state_dict(sd, strict=False))
print("res ok bool", bool(Net().load_state_dict(sd, strict=False).missing_keys))

# DataParallel-style prefixes
wrapped = collections.OrderedDict(("module." + k, v) for k, v in sd.items())
show("module_prefix", lambda: Net().load_state_dict(wrapped))
stripped = {k.removeprefix("module."): v for k, v in wrapped.items()}
show("module_prefix_fixed", lambda: Net().load_state_dict(stripped))
nn.modules.utils.consume_prefix_in_state_dict_if_present(wrapped, "module.")
show("consume_prefix", lambda: Net().load_state_dict(wrapped))

# a head fine-tuned to other classes: strict=False does not forgive size mismatches
other = Net(classes=5)
show("size_mismatch_lenient", lambda: other.load_state_dict(sd, strict=False))
filtered = {k: v for k, v in sd.items() if not k.startswith("head.")}
res2 = other.load_state_dict(filtered, strict=False)
print("filtered", res2)

# mismatched and partial
partial = {k: v for k, v in sd.items() if k.startswith("fc.")}
show("partial_strict", lambda: Net().load_state_dict(partial))
show("transposed_weight",
     lambda: nn.Linear(4, 8).load_state_dict({"weight": sd["fc.weight"].t(), "bias": sd["fc.bias"]}))
show("scalar_for_vector",
     lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.ones(2, 2), "bias": torch.tensor(0.5)}))
show("not_a_mapping", lambda: nn.Linear(2, 2).load_state_dict(torch.ones(2, 2)))
show("list_value",
     lambda: nn.Linear(2, 2).load_state_dict({"weight": [[1.0, 0.0], [0.0, 1.0]], "bias": torch.zeros(2)}))
show("double_value", lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.eye(2, dtype=torch.float64),
                                                             "bias": torch.zeros(2)}) or None)
lin = nn.Linear(2, 2)
lin.load_state_dict({"weight": torch.eye(2, dtype=torch.float64), "bias": torch.zeros(2)})
print("loaded dtype stays", lin.weight.dtype, lin.weight.tolist())

# buffers
bn = nn.BatchNorm1d(3)
bsd = bn.state_dict()
print("bn keys", list(bsd.keys()))
print("num_batches_tracked", bsd["num_batches_tracked"])
old = {k: v for k, v in bsd.items() if k != "num_batches_tracked"}
show("bn_old_checkpoint", lambda: nn.BatchNorm1d(3).load_state_dict(old))
show("bn_no_stats", lambda: nn.BatchNorm1d(3, track_running_stats=False).load_state_dict(bsd))
show("bn_wrong_features", lambda: nn.BatchNorm1d(4).load_state_dict(bsd))


class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer("mean", torch.zeros(2))
        self.register_buffer("cache", torch.zeros(2), persistent=False)


wb = WithBuffers()
print("wb keys", list(wb.state_dict().keys()))
show("wb_extra_cache", lambda: WithBuffers().load_state_dict({**wb.state_dict(), "cache": torch.ones(2)}))
show("wb_missing_mean",
     lambda: WithBuffers().load_state_dict({k: v for k, v in wb.state_dict().items() if k != "mean"}))

# the optimizer's state dict
model = Net()
opt = torch.optim.Adam([{"params": model.features.parameters()}, {"params": model.head.parameters(), "lr": 1e-2}],
                       lr=1e-3)
model(torch.randn(2, 1, 6, 6)).sum().backward()
opt.step()
osd = opt.state_dict()
print("opt groups", len(osd["param_groups"]), [g["params"] for g in osd["param_groups"]])
print("opt state keys", sorted(osd["state"].keys()), sorted(osd["state"][0].keys()))
show("opt_one_group", lambda: torch.optim.Adam(model.parameters(), lr=1e-3).load_state_dict(osd))
show("opt_group_sizes", lambda: torch.optim.Adam([{"params": model.features.parameters()},
                                                  {"params": model.fc.parameters()}]).load_state_dict(osd))
same = torch.optim.Adam([{"params": model.features.parameters()}, {"params": model.head.parameters()}])
show("opt_same", lambda: same.load_state_dict(osd))
print("lrs after load", [g["lr"] for g in same.param_groups])
print("step after load", same.state[model.head.weight]["step"])
show("opt_not_dict", lambda: same.load_state_dict([1, 2]))
show("sched_state", lambda: torch.optim.lr_scheduler.StepLR(same, 2).load_state_dict({"step_size": 3}) or "loaded")
