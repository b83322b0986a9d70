"""Interrupt a training run, checkpoint model + optimizer + scheduler + counters with DCP and the
torch.distributed.checkpoint.state_dict helpers, resume in fresh objects and check it matches the straight run."""
import os
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

nn = torch.nn
F = torch.nn.functional
warnings.filterwarnings("ignore", message="torch.distributed is disabled")

torch.manual_seed(0)
X = torch.randn(64, 6)
true_w = torch.randn(6, 2)
Y = (X @ true_w).argmax(1)


def make():
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    return model, opt, sched


def step(model, opt, sched, i):
    idx = torch.arange(i * 8, i * 8 + 8) % 64
    opt.zero_grad()
    loss = F.cross_entropy(model(X[idx]), Y[idx])
    loss.backward()
    opt.step()
    sched.step()
    return loss.item()


model, opt, sched = make()
straight = [round(step(model, opt, sched, i), 4) for i in range(8)]
print("straight", straight)

model, opt, sched = make()
first = [round(step(model, opt, sched, i), 4) for i in range(4)]
msd, osd = get_state_dict(model, opt)
print(list(msd))
print(list(osd), list(osd["state"])[:2], sorted(osd["state"]["0.weight"]))
print({k: v for k, v in osd["param_groups"][0].items() if k in ("lr", "weight_decay", "params")})
with tempfile.TemporaryDirectory() as root:
    path = os.path.join(root, "step4")
    state = {"model": msd, "optim": osd, "sched": sched.state_dict(), "step": 4, "losses": first}
    md = dcp.save(state, checkpoint_id=path)
    keys = list(md.state_dict_metadata)
    print(len(keys), keys[:3], [k for k in keys if k.startswith("sched")][:4])
    print([k for k in keys if "0.weight" in k and k.startswith("optim")])

    model2, opt2, sched2 = make()
    msd2, osd2 = get_state_dict(model2, opt2)
    print("fresh optimizer state", float(osd2["state"]["3.bias"]["step"]), osd2["state"]["3.bias"]["exp_avg"].tolist())
    target = {"model": msd2, "optim": osd2, "sched": sched2.state_dict(), "step": 0, "losses": []}
    dcp.load(target, checkpoint_id=path)
    print("loaded step", target["step"], target["losses"] == first)
    print(set_state_dict(model2, opt2, model_state_dict=target["model"], optim_state_dict=target["optim"]))
    sched2.load_state_dict(target["sched"])
    print("lr", opt2.param_groups[0]["lr"], sched2.last_epoch, float(opt2.state[model2[0].weight]["step"]))
    resumed = first + [round(step(model2, opt2, sched2, i), 4) for i in range(target["step"], 8)]
    print("resumed", resumed)
    print("same run", resumed == straight)
    print(torch.allclose(model2[3].weight, model[3].weight))
