"""A trainer's checkpoint manager on DCP: a checkpoint every few steps into step_N directories, only the newest two
kept, an EMA model (AveragedModel) and a GradScaler saved beside model and optimizer, the newest one found and
resumed, and a half-written directory (no .metadata) skipped."""
import os
import shutil
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import FileSystemReader
from torch.distributed.checkpoint.state_dict import get_optimizer_state_dict, set_optimizer_state_dict
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

nn = torch.nn
F = torch.nn.functional
warnings.filterwarnings("ignore", message="torch.distributed is disabled")


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    return model, ema, opt, scaler


def state(model, ema, opt, scaler, step):
    # a fresh optimizer's own state_dict() has no state yet to load into: the helper creates it
    return {"model": model.state_dict(), "ema": ema.state_dict(), "optim": get_optimizer_state_dict(model, opt),
            "scaler": scaler.state_dict(), "step": step}


def train_step(model, ema, opt, scaler, x, y):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    ema.update_parameters(model)
    return loss.item()


def latest(root):
    done = [d for d in os.listdir(root) if os.path.exists(os.path.join(root, d, ".metadata"))]
    return max(done, key=lambda d: int(d.split("_")[1]), default=None)


torch.manual_seed(1)
X, Y = torch.randn(40, 3), torch.randn(40, 1)
with tempfile.TemporaryDirectory() as root:
    model, ema, opt, scaler = build()
    for step in range(1, 8):
        loss = train_step(model, ema, opt, scaler, X[step::5], Y[step::5])
        if step % 2 == 0:
            dcp.save(state(model, ema, opt, scaler, step), checkpoint_id=os.path.join(root, f"step_{step}"))
            kept = sorted(os.listdir(root), key=lambda d: int(d.split("_")[1]))
            for old in kept[:-2]:
                shutil.rmtree(os.path.join(root, old))
        print(step, round(loss, 4), scaler.get_scale())
    print(sorted(os.listdir(root)))
    os.makedirs(os.path.join(root, "step_8"))          # a save that died before its .metadata
    print("latest", latest(root))

    meta = FileSystemReader(os.path.join(root, latest(root))).read_metadata()
    keys = list(meta.state_dict_metadata)
    print(len(keys), [k for k in keys if k.startswith("ema")], [k for k in keys if k.startswith("scaler")])
    print(meta.state_dict_metadata["ema.n_averaged"].size, meta.state_dict_metadata["ema.n_averaged"].properties.dtype)

    model2, ema2, opt2, scaler2 = build()
    print("fresh optimizer state", len(opt2.state_dict()["state"]))
    target = state(model2, ema2, opt2, scaler2, 0)
    dcp.load(target, checkpoint_id=os.path.join(root, latest(root)))
    model2.load_state_dict(target["model"])
    ema2.load_state_dict(target["ema"])
    set_optimizer_state_dict(model2, opt2, target["optim"])
    scaler2.load_state_dict(target["scaler"])
    print("resume at", target["step"], scaler2.get_scale(), scaler2.state_dict()["_growth_tracker"])
    print("ema steps", ema2.n_averaged.item(), round(ema2.module[2].bias.item(), 4))
    print("momentum", opt2.state_dict()["state"][3]["momentum_buffer"].round(decimals=4).tolist())

    model3, ema3, opt3, scaler3 = build()   # replay from scratch to the same step for comparison
    for step in range(1, 7):
        train_step(model3, ema3, opt3, scaler3, X[step::5], Y[step::5])
    for m, e, o, s in ((model2, ema2, opt2, scaler2), (model3, ema3, opt3, scaler3)):
        print("step 7", round(train_step(m, e, o, s, X[7::5], Y[7::5]), 4), round(e.module[0].weight.sum().item(), 4))
