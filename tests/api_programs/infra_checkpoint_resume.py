"""Exact-resume checkpointing as training frameworks write it: a checkpoint dict with model, optimizer, scheduler,
epoch and RNG states (torch.get_rng_state/set_rng_state, numpy, random, a DataLoader generator), torch.save into
memory and back with weights_only and map_location, proof that a resumed run with dropout and shuffling equals
an uninterrupted one, fork_rng, and the errors of loading a mismatched optimizer or RNG state."""

import io
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

data_rng = np.random.default_rng(3)
X = torch.from_numpy(data_rng.standard_normal((40, 6)).astype(np.float32))
Y = torch.from_numpy(data_rng.integers(0, 3, 40))
W0 = {k: torch.from_numpy(data_rng.standard_normal(s).astype(np.float32) * 0.4)
      for k, s in [("0.weight", (16, 6)), ("0.bias", (16,)), ("3.weight", (3, 16)), ("3.bias", (3,))]}


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def make():
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 3))
    model.load_state_dict(W0)
    opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=40)
    gen = torch.Generator().manual_seed(11)
    loader = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True, generator=gen)
    return model, opt, sched, loader, gen


def rng_state(gen):
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate(),
            "loader": gen.get_state(), "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []}


def set_rng_state(state, gen):
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])
    gen.set_state(state["loader"])


def train_epoch(model, opt, sched, loader):
    model.train()
    losses = []
    for xb, yb in loader:
        noise = np.random.normal(0, 0.01) + random.random() * 0.01
        loss = F.cross_entropy(model(xb + noise), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


seed_everything(0)
model, opt, sched, loader, gen = make()
straight = [train_epoch(model, opt, sched, loader) for _ in range(4)]
final_straight = {k: v.clone() for k, v in model.state_dict().items()}

seed_everything(0)
model, opt, sched, loader, gen = make()
first = [train_epoch(model, opt, sched, loader) for _ in range(2)]
ckpt = {"epoch": 2, "model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
        "rng": rng_state(gen), "hparams": {"lr": 0.01, "betas": (0.9, 0.999)}}
buf = io.BytesIO()
torch.save(ckpt, buf)
print("bytes", buf.tell() > 1000, sorted(ckpt), sorted(ckpt["rng"]))
print("rng types", ckpt["rng"]["torch"].dtype, ckpt["rng"]["torch"].dim(), type(ckpt["rng"]["numpy"]).__name__,
      type(ckpt["rng"]["python"]).__name__, ckpt["rng"]["cuda"])

seed_everything(123)
for _ in range(5):
    torch.rand(3), np.random.rand(), random.random()
model, opt, sched, loader, gen = make()
buf.seek(0)
loaded = torch.load(buf, weights_only=False, map_location="cpu")
model.load_state_dict(loaded["model"])
opt.load_state_dict(loaded["optimizer"])
sched.load_state_dict(loaded["scheduler"])
set_rng_state(loaded["rng"], gen)
rest = [train_epoch(model, opt, sched, loader) for _ in range(loaded["epoch"], 4)]
same = all(torch.equal(v, final_straight[k]) for k, v in model.state_dict().items())
print("resume equals straight", same, first + rest == straight, len(straight), [len(e) for e in straight])
print("lr after", round(opt.param_groups[0]["lr"], 6), sched.last_epoch, sched.state_dict()["_step_count"])
st = opt.state_dict()
print("opt state", sorted(st["state"][0]), st["state"][0]["step"], st["param_groups"][0]["betas"],
      st["param_groups"][0]["initial_lr"], round(st["param_groups"][0]["max_lr"], 4))

buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, "Weights only load failed" in str(e))
buf2 = io.BytesIO()
torch.save({"model": model.state_dict(), "epoch": 4, "rng": torch.get_rng_state(), "metrics": [0.5, 0.25]}, buf2)
buf2.seek(0)
safe = torch.load(buf2, weights_only=True, map_location=torch.device("cpu"))
print("weights_only", sorted(safe), safe["metrics"], safe["rng"].dtype, safe["model"]["3.bias"].shape)
buf2.seek(0)
mapped = torch.load(buf2, map_location=lambda storage, loc: storage)
print("map lambda", mapped["model"]["0.weight"].device, mapped["epoch"])
buf2.seek(0)
mapped = torch.load(buf2, map_location={"cuda:0": "cpu"})
print("map dict", mapped["model"]["0.weight"].device, torch.equal(mapped["model"]["0.bias"], model[0].bias))

s = torch.get_rng_state()
a = torch.rand(4)
torch.set_rng_state(s)
print("rng round trip", torch.equal(a, torch.rand(4)), torch.equal(s, s.clone()))
with torch.random.fork_rng(devices=[]):
    torch.manual_seed(99)
    torch.randn(10)
print("fork_rng restores seed", torch.initial_seed())
s = torch.get_rng_state()
with torch.random.fork_rng(devices=[]):
    torch.rand(7)
print("fork_rng same", torch.equal(torch.get_rng_state(), s))
g1 = torch.Generator().manual_seed(5)
g2 = torch.Generator()
g2.set_state(g1.get_state())
print("generators", torch.equal(torch.randperm(8, generator=g1), torch.randperm(8, generator=g2)), g2.initial_seed())
d = nn.Dropout(0.5)
torch.manual_seed(1)
m1 = d(torch.ones(20))
torch.manual_seed(1)
print("dropout replay", torch.equal(m1, d(torch.ones(20))), sorted(set(m1.tolist())))

for bad in (lambda: torch.set_rng_state(s.float()), lambda: torch.set_rng_state([1, 2, 3])):
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
try:
    torch.set_rng_state(s[:10])
except RuntimeError as e:
    print("RuntimeError", type(e).__name__)
other = torch.optim.AdamW([{"params": model[0].parameters()}, {"params": model[3].parameters()}], lr=0.01)
try:
    other.load_state_dict(loaded["optimizer"])
except ValueError as e:
    print("ValueError", e)
sgd = torch.optim.SGD(nn.Linear(6, 3).parameters(), lr=0.1)
try:
    sgd.load_state_dict(loaded["optimizer"])
except ValueError as e:
    print("ValueError", e)
bad_sd = dict(loaded["model"])
bad_sd["3.weight"] = torch.zeros(4, 16)
try:
    model.load_state_dict(bad_sd)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[1].strip())
