"""torch.distributed.checkpoint.state_dict's options on a fine-tuning setup: a frozen backbone, two param groups and
two optimizers, flattened optimizer state through DCP, non-strict loading, and the optimizer state PyTorch creates
for an optimizer that has not stepped."""
import os
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict, get_state_dict, set_model_state_dict,
                                                     set_optimizer_state_dict, set_state_dict)

nn = torch.nn
F = torch.nn.functional
warnings.filterwarnings("ignore", message="torch.distributed is disabled")

print(StateDictOptions())
print(StateDictOptions(flatten_optimizer_state_dict=True, strict=False))

torch.manual_seed(0)
model = nn.ModuleDict({"backbone": nn.Sequential(nn.Linear(4, 6), nn.ReLU()), "head": nn.Linear(6, 2),
                       "aux": nn.Linear(6, 1)})
for p in model["backbone"].parameters():
    p.requires_grad_(False)

opt = torch.optim.SGD([{"params": model["head"].parameters(), "lr": 0.1},
                       {"params": model["aux"].parameters(), "lr": 0.01, "momentum": 0.5}], momentum=0.9)
osd = get_optimizer_state_dict(model, opt)   # not stepped yet: PyTorch gives it its state first
print(list(osd["state"]), [round(v["momentum_buffer"].abs().sum().item(), 4) for v in osd["state"].values()])
print([(g["lr"], g["momentum"], g["params"]) for g in osd["param_groups"]])

x = torch.randn(16, 4)
for _ in range(3):
    opt.zero_grad()
    h = model["backbone"](x)
    (model["head"](h).pow(2).mean() + model["aux"](h).abs().mean()).backward()
    opt.step()

print(list(get_model_state_dict(model)))
trainable = get_model_state_dict(model, options=StateDictOptions(ignore_frozen_params=True))
print(list(trainable))
flat = get_optimizer_state_dict(model, opt, options=StateDictOptions(flatten_optimizer_state_dict=True))
print(len(flat), list(flat)[:4], flat["param_groups.aux.bias.momentum"])

second = torch.optim.Adam(model["aux"].parameters(), lr=1e-3)
opt_both = [opt, second]
m_sd, o_sd = get_state_dict(model, opt_both)
print(len(o_sd["param_groups"]), sorted(o_sd["state"]["aux.weight"]), o_sd["param_groups"][2]["params"])

with tempfile.TemporaryDirectory() as root:
    ck = os.path.join(root, "ft")
    dcp.save({"model": trainable, "optim": flat}, checkpoint_id=ck)

    torch.manual_seed(5)
    model2 = nn.ModuleDict({"backbone": nn.Sequential(nn.Linear(4, 6), nn.ReLU()), "head": nn.Linear(6, 2),
                            "aux": nn.Linear(6, 1)})
    model2["backbone"].requires_grad_(False)
    opt2 = torch.optim.SGD([{"params": model2["head"].parameters(), "lr": 1.0},
                            {"params": model2["aux"].parameters(), "lr": 1.0, "momentum": 0.0}], momentum=0.0)
    state = {"model": get_model_state_dict(model2, options=StateDictOptions(ignore_frozen_params=True)),
             "optim": get_optimizer_state_dict(model2, opt2,
                                               options=StateDictOptions(flatten_optimizer_state_dict=True))}
    dcp.load(state, checkpoint_id=ck)
    try:
        set_model_state_dict(model2, state["model"])
    except RuntimeError as e:
        print("strict:", str(e).splitlines()[0], str(e).splitlines()[1].strip())
    res = set_model_state_dict(model2, state["model"], options=StateDictOptions(strict=False))
    print(res.missing_keys, res.unexpected_keys)
    set_optimizer_state_dict(model2, opt2, state["optim"],
                             options=StateDictOptions(flatten_optimizer_state_dict=True))
    print([(g["lr"], g["momentum"]) for g in opt2.param_groups])
    print(dict(opt2.state[model2["head"].bias]), torch.equal(model2["head"].weight, model["head"].weight))
    print(torch.equal(model2["backbone"][0].weight, model["backbone"][0].weight))

print(set_state_dict(model, opt, model_state_dict=m_sd, optim_state_dict=get_optimizer_state_dict(model, opt)))
try:
    get_model_state_dict(model, options=StateDictOptions(broadcast_from_rank0=True))
except ValueError as e:
    print(type(e).__name__, e)
