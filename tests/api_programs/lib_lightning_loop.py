"""Lightning-style training scaffolding re-implemented: a LightningModule with self.log aggregation (on_step/on_epoch,
batch-size weighted means), configure_optimizers returning a scheduler dict stepped per step, a Trainer with
bf16-mixed autocast, gradient clipping by norm or value, accumulate_grad_batches, callbacks (ModelCheckpoint top-k
by torch.lt, EarlyStopping with min_delta/patience, LR monitor), ModelSummary with LazyLinear's uninitialized
parameters, validation under inference_mode, apply_to_collection, and the errors inference tensors raise."""

import io
import math
from collections import OrderedDict, defaultdict

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(43)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def apply_to_collection(data, dtype, function, wrong_dtype=None):
    if isinstance(data, dtype) and (wrong_dtype is None or not isinstance(data, wrong_dtype)):
        return function(data)
    if isinstance(data, dict):
        return type(data)((k, apply_to_collection(v, dtype, function, wrong_dtype)) for k, v in data.items())
    if isinstance(data, (list, tuple)):
        return type(data)(apply_to_collection(d, dtype, function, wrong_dtype) for d in data)
    return data


class ResultCollection:
    def __init__(self):
        self.sums, self.weights, self.step_values = defaultdict(float), defaultdict(float), {}

    def log(self, name, value, batch_size, on_step, on_epoch):
        value = value.detach().float() if isinstance(value, torch.Tensor) else torch.tensor(float(value))
        if on_step:
            self.step_values[name + ("_step" if on_epoch else "")] = value
        if on_epoch:
            self.sums[name] = self.sums[name] + value * batch_size
            self.weights[name] += batch_size

    def epoch_end(self):
        out = {k: self.sums[k] / self.weights[k] for k in self.sums}
        self.sums.clear()
        self.weights.clear()
        return out


class LitModel(nn.Module):
    def __init__(self, lr=0.05):
        super().__init__()
        self.hparams = {"lr": lr}
        self.body = nn.Sequential(nn.LazyLinear(16), nn.GELU(), nn.Dropout(0.0), nn.Linear(16, 3))
        self._results = None
        self.trainer = None

    def forward(self, x):
        return self.body(x)

    def log(self, name, value, on_step=None, on_epoch=None, batch_size=1, prog_bar=False):
        on_step = self.training if on_step is None else on_step
        on_epoch = (not self.training) if on_epoch is None else on_epoch
        self._results.log(name, value, batch_size, on_step, on_epoch)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train_loss", loss, on_step=True, on_epoch=True, batch_size=len(y))
        self.log("train_acc", (logits.argmax(1) == y).float().mean(), on_epoch=True, on_step=False, batch_size=len(y))
        return {"loss": loss, "logits": logits.detach()}

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y), batch_size=len(y))
        self.log("val_acc", (logits.argmax(1) == y).float().mean(), batch_size=len(y))

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=self.hparams["lr"], momentum=0.9, nesterov=True)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.2, total_steps=40, pct_start=0.25,
                                                    anneal_strategy="cos", three_phase=True)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step", "frequency": 1}}


def summarize(model):
    rows = []
    for name, m in model.named_modules():
        if name.count(".") != 1:
            continue
        params = list(m.parameters(recurse=True))
        lazy = any(isinstance(p, nn.parameter.UninitializedParameter) for p in params)
        rows.append((name, type(m).__name__, "?" if lazy else sum(p.numel() for p in params)))
    return rows


class ModelCheckpoint:
    def __init__(self, monitor, mode="min", save_top_k=2):
        self.monitor, self.mode, self.k = monitor, mode, save_top_k
        self.best = OrderedDict()
        self.op = torch.lt if mode == "min" else torch.gt

    def on_validation_end(self, trainer, model, metrics):
        cur = metrics[self.monitor]
        name = f"epoch={trainer.epoch}-{self.monitor}={cur.item():.4f}.ckpt"
        worst_val = (max if self.mode == "min" else min)(self.best.values(), default=None)
        if len(self.best) < self.k or self.op(cur, worst_val):
            buf = io.BytesIO()
            torch.save({"state_dict": model.state_dict(), "epoch": trainer.epoch}, buf)
            self.best[name] = cur
            if len(self.best) > self.k:
                pick = max if self.mode == "min" else min
                worst = pick(self.best, key=self.best.get)
                del self.best[worst]
            self.last_size = buf.tell() > 0


class EarlyStopping:
    def __init__(self, monitor, min_delta=0.0, patience=2, mode="min"):
        self.monitor, self.min_delta, self.patience = monitor, min_delta, patience
        self.wait, self.best = 0, torch.tensor(math.inf if mode == "min" else -math.inf)
        self.sign = 1 if mode == "min" else -1

    def on_validation_end(self, trainer, model, metrics):
        cur = metrics[self.monitor]
        if not torch.isfinite(cur):
            trainer.should_stop = True
            return
        if torch.lt(self.sign * (cur - self.min_delta), self.sign * self.best):
            self.best, self.wait = cur, 0
        else:
            self.wait += 1
            trainer.should_stop = self.wait >= self.patience


class Trainer:
    def __init__(self, max_epochs, callbacks, clip_val=None, clip_algo="norm", accumulate=1, precision="bf16-mixed"):
        self.max_epochs, self.callbacks, self.clip_val, self.clip_algo = max_epochs, callbacks, clip_val, clip_algo
        self.accumulate, self.precision = accumulate, precision
        self.epoch, self.global_step, self.should_stop, self.lrs, self.history = 0, 0, False, [], []

    def fit(self, model, train_dl, val_dl):
        model.trainer, model._results = self, ResultCollection()
        with torch.no_grad():
            model(next(iter(train_dl))[0])
        conf = model.configure_optimizers()
        opt, sch = conf["optimizer"], conf["lr_scheduler"]["scheduler"]
        while self.epoch < self.max_epochs and not self.should_stop:
            model.train()
            for i, batch in enumerate(train_dl):
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bf16-mixed"):
                    out = model.training_step(batch, i)
                (out["loss"] / self.accumulate).backward()
                if (i + 1) % self.accumulate == 0:
                    if self.clip_algo == "norm":
                        torch.nn.utils.clip_grad_norm_(model.parameters(), self.clip_val)
                    else:
                        torch.nn.utils.clip_grad_value_(model.parameters(), self.clip_val)
                    opt.step()
                    opt.zero_grad()
                    self.lrs.append(sch.get_last_lr()[0])
                    sch.step()
                    self.global_step += 1
            train_metrics = model._results.epoch_end()
            model.eval()
            with torch.inference_mode():
                for i, batch in enumerate(val_dl):
                    model.validation_step(batch, i)
                self.inference_flag = torch.is_inference_mode_enabled()
            metrics = {**train_metrics, **model._results.epoch_end()}
            self.history.append({k: round(v.item(), 4) for k, v in sorted(metrics.items())})
            for cb in self.callbacks:
                cb.on_validation_end(self, model, metrics)
            self.epoch += 1
        return out


X = torch.from_numpy(rng.normal(size=(60, 5))).float()
Y = torch.from_numpy((X[:, 0] > 0).long().numpy() + (X[:, 1] > 0.5).long().numpy())
train_dl = DataLoader(TensorDataset(X[:45], Y[:45]), batch_size=10, shuffle=False)
val_dl = DataLoader(TensorDataset(X[45:], Y[45:]), batch_size=8)
model = LitModel()
print("summary before", summarize(model), type(model.body[0]).__name__, model.body[0].weight.__class__.__name__)
with torch.no_grad():
    model(X[:2])
print("materialized", type(model.body[0]).__name__, tuple(model.body[0].weight.shape), model.body[0].in_features)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(size=p.shape) * 0.4))
print("summary after", summarize(model))
ckpt, es = ModelCheckpoint("val_loss", save_top_k=2), EarlyStopping("val_loss", min_delta=0.01, patience=2)
trainer = Trainer(max_epochs=8, callbacks=[ckpt, es], clip_val=1.0, accumulate=1)
out = trainer.fit(model, train_dl, val_dl)
for h in trainer.history:
    print("epoch", h)
print("stopped at", trainer.epoch, trainer.should_stop, es.wait, r(es.best), trainer.global_step,
      trainer.inference_flag)
print("top-k", list(ckpt.best.keys()), ckpt.last_size)
print("lrs", [round(v, 5) for v in trainer.lrs[:6]], round(trainer.lrs[-1], 6), out["logits"].dtype, out["loss"].dtype)
moved = apply_to_collection({"a": [torch.ones(2), 3], "b": (torch.zeros(1, dtype=torch.long),)}, torch.Tensor,
                            lambda t: t.double(), wrong_dtype=None)
print("apply_to_collection", moved["a"][0].dtype, moved["a"][1], moved["b"][0].dtype, type(moved["b"]).__name__)
m2 = LitModel()
m2._results = ResultCollection()
m2(X[:2])
m2.load_state_dict(model.state_dict())
clip_tr = Trainer(max_epochs=1, callbacks=[], clip_val=0.01, clip_algo="value", accumulate=2, precision="32")
clip_tr.fit(m2, train_dl, val_dl)
print("clip by value", clip_tr.global_step, clip_tr.history[0]["train_loss"], r(m2.body[3].bias))
with torch.inference_mode():
    inf = model(X[:3])
print("inference tensor", inf.is_inference(), inf.requires_grad, torch.is_inference_mode_enabled(), X.is_inference())
for fn in [lambda: inf.add_(1) if False else (inf * model.body[3].weight.sum()).sum().backward(),
           lambda: inf.requires_grad_(), lambda: round(inf.clone().add_(1).sum().item(), 4),
           lambda: (model(X[:3]) * inf).sum().backward(),
           lambda: LitModel().body[0].weight.shape, lambda: nn.LazyLinear(3).weight + 1,
           lambda: torch.optim.lr_scheduler.OneCycleLR(torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1),
                                                       max_lr=0.1)]:
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, "|", str(e).replace("\n", " / ")[:130])
