"""A PyTorch-Lightning-style trainer written inline: a LightningModule-like class (training_step, validation_step,
configure_optimizers returning optimizer and scheduler dicts), self.log into dicts of detached tensors, gradient
accumulation, clipping by norm and by value, callbacks (EarlyStopping, ModelCheckpoint keeping the top k by a
monitored metric, LearningRateMonitor) and seed_everything."""

import io
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split


def seed_everything(seed):
    os.environ["PL_GLOBAL_SEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return seed


print("seed", seed_everything(7), os.environ["PL_GLOBAL_SEED"], torch.initial_seed())
rng = np.random.default_rng(7)
X = torch.from_numpy(rng.standard_normal((48, 5)).astype(np.float32))
W = torch.from_numpy(rng.standard_normal((5, 3)).astype(np.float32))
Y = (X @ W).argmax(1)
train_ds, val_ds = random_split(TensorDataset(X, Y), [36, 12], generator=torch.Generator().manual_seed(0))
print("split", len(train_ds), len(val_ds), type(train_ds).__name__)
train_dl = DataLoader(TensorDataset(X[:36], Y[:36]), batch_size=6)
val_dl = DataLoader(TensorDataset(X[36:], Y[36:]), batch_size=6)


class LitClassifier(nn.Module):
    def __init__(self, lr=0.2):
        super().__init__()
        self.hparams = {"lr": lr}
        self.net = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
        with torch.no_grad():
            for p in self.net.parameters():
                p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
        self._logged = {}

    def log(self, name, value, prog_bar=False, on_epoch=True):
        if isinstance(value, torch.Tensor):
            value = value.detach()
        self._logged.setdefault(name, []).append(value)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train_loss", loss, prog_bar=True)
        return {"loss": loss, "n": x.shape[0]}

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y, reduction="sum"))
        self.log("val_correct", (logits.argmax(-1) == y).sum())

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=self.hparams["lr"], momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch", "monitor": "val_loss"}}


class EarlyStopping:
    def __init__(self, monitor, patience=2, mode="min", min_delta=0.0):
        self.monitor, self.patience, self.mode, self.min_delta = monitor, patience, mode, min_delta
        self.wait_count = 0
        self.best_score = torch.tensor(float("inf") if mode == "min" else -float("inf"))
        self.stopped_epoch = 0

    def on_validation_end(self, trainer, metrics):
        current = metrics[self.monitor]
        better = torch.lt(current, self.best_score - self.min_delta) if self.mode == "min" else \
            torch.gt(current, self.best_score + self.min_delta)
        if better:
            self.best_score = current
            self.wait_count = 0
        else:
            self.wait_count += 1
            if self.wait_count >= self.patience:
                self.stopped_epoch = trainer.epoch
                trainer.should_stop = True

    def state_dict(self):
        return {"wait_count": self.wait_count, "best_score": self.best_score, "patience": self.patience}


class ModelCheckpoint:
    def __init__(self, monitor, save_top_k=2, mode="min"):
        self.monitor, self.save_top_k, self.mode = monitor, save_top_k, mode
        self.best_k_models = {}
        self.kth_best_model_path = ""
        self.best_model_path = ""
        self.files = {}

    def on_validation_end(self, trainer, metrics):
        score = metrics[self.monitor]
        path = f"epoch={trainer.epoch}-{self.monitor}={score.item():.4f}.ckpt"
        if len(self.best_k_models) == self.save_top_k:
            worst = max(self.best_k_models, key=self.best_k_models.get) if self.mode == "min" else \
                min(self.best_k_models, key=self.best_k_models.get)
            if (score >= self.best_k_models[worst]) if self.mode == "min" else (score <= self.best_k_models[worst]):
                return
            del self.best_k_models[worst]
            del self.files[worst]
        buf = io.BytesIO()
        torch.save({"epoch": trainer.epoch, "state_dict": trainer.model.state_dict(), self.monitor: score}, buf)
        self.files[path] = buf.getvalue()
        self.best_k_models[path] = score
        pick = min if self.mode == "min" else max
        self.best_model_path = pick(self.best_k_models, key=self.best_k_models.get)


class LearningRateMonitor:
    def __init__(self):
        self.lrs = []

    def on_train_epoch_start(self, trainer, metrics=None):
        self.lrs.append(trainer.optimizer.param_groups[0]["lr"])


class Trainer:
    def __init__(self, max_epochs, callbacks, accumulate_grad_batches=1, gradient_clip_val=None,
                 gradient_clip_algorithm="norm"):
        self.max_epochs, self.callbacks = max_epochs, callbacks
        self.accumulate, self.clip_val = accumulate_grad_batches, gradient_clip_val
        self.clip_alg = gradient_clip_algorithm
        self.should_stop = False
        self.global_step = 0
        self.grad_norms = []

    def fit(self, model, train_dl, val_dl):
        self.model = model
        cfg = model.configure_optimizers()
        self.optimizer, sched = cfg["optimizer"], cfg["lr_scheduler"]["scheduler"]
        for self.epoch in range(self.max_epochs):
            for cb in self.callbacks:
                if hasattr(cb, "on_train_epoch_start"):
                    cb.on_train_epoch_start(self)
            model.train()
            for i, batch in enumerate(train_dl):
                out = model.training_step(batch, i)
                (out["loss"] / self.accumulate).backward()
                if (i + 1) % self.accumulate == 0:
                    if self.clip_alg == "norm":
                        total = nn.utils.clip_grad_norm_(model.parameters(), self.clip_val, norm_type=2.0)
                        self.grad_norms.append(round(total.item(), 4))
                    else:
                        nn.utils.clip_grad_value_(model.parameters(), self.clip_val)
                    self.optimizer.step()
                    self.optimizer.zero_grad(set_to_none=True)
                    self.global_step += 1
            model.eval()
            model._logged.pop("val_loss", None), model._logged.pop("val_correct", None)
            with torch.no_grad():
                for i, batch in enumerate(val_dl):
                    model.validation_step(batch, i)
            metrics = {"val_loss": torch.stack(model._logged["val_loss"]).sum() / 12,
                       "val_acc": torch.stack(model._logged["val_correct"]).sum().float() / 12}
            train_loss = torch.stack(model._logged["train_loss"][-len(train_dl):]).mean()
            print(f"epoch {self.epoch} step {self.global_step} train {train_loss.item():.4f} "
                  f"val {metrics['val_loss'].item():.4f} acc {metrics['val_acc'].item():.4f}")
            for cb in self.callbacks:
                if hasattr(cb, "on_validation_end"):
                    cb.on_validation_end(self, metrics)
            sched.step()
            if self.should_stop:
                break


model = LitClassifier()
es = EarlyStopping("val_loss", patience=2, min_delta=0.05)
ckpt = ModelCheckpoint("val_loss", save_top_k=2)
lrm = LearningRateMonitor()
trainer = Trainer(8, [es, ckpt, lrm], accumulate_grad_batches=2, gradient_clip_val=1.0)
trainer.fit(model, train_dl, val_dl)
print("stopped", trainer.should_stop, es.stopped_epoch, es.wait_count, round(es.best_score.item(), 4))
print("lrs", [round(v, 4) for v in lrm.lrs])
print("grad norms", trainer.grad_norms[:6])
print("top k", sorted(ckpt.best_k_models), ckpt.best_model_path)
logged = model._logged["train_loss"]
print("logged", len(logged), logged[0].requires_grad, logged[0].grad_fn, logged[0].dtype, logged[0].shape)
best = torch.load(io.BytesIO(ckpt.files[ckpt.best_model_path]))
print("best ckpt", best["epoch"], sorted(best["state_dict"]), round(best["val_loss"].item(), 4))

model2 = LitClassifier()
t2 = Trainer(2, [], gradient_clip_val=0.05, gradient_clip_algorithm="value")
t2.fit(model2, train_dl, val_dl)
g = model2.net[0].weight
loss = F.cross_entropy(model2(X[:6]), Y[:6])
loss.backward()
pre = g.grad.abs().max().item()
nn.utils.clip_grad_value_(model2.parameters(), clip_value=0.05)
print("clip value", pre > 0.05, g.grad.abs().max().item() <= 0.05 + 1e-8, round(g.grad[0, 0].item(), 4))
grads = [p.grad for p in model2.parameters()]
norm = nn.utils.get_total_norm(grads, norm_type=2.0)
print("total norm", round(norm.item(), 4), round(nn.utils.get_total_norm(grads, norm_type="inf").item(), 4))
nn.utils.clip_grads_with_norm_(model2.parameters(), max_norm=0.01, total_norm=norm)
print("clipped", round(nn.utils.get_total_norm([p.grad for p in model2.parameters()]).item(), 4))
model2.net[0].bias.grad[0] = float("nan")
try:
    nn.utils.clip_grad_norm_(model2.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", str(e)[:80])
n = nn.utils.clip_grad_norm_(model2.parameters(), 1.0)
print("nan norm", n.isnan().item(), model2.net[0].weight.grad.isnan().any().item())
print("empty", nn.utils.clip_grad_norm_([], 1.0), nn.utils.clip_grad_norm_(nn.Linear(2, 2).parameters(), 1.0))
