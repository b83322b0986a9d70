"""A Lightning-style LightningModule and hand-rolled Trainer: training_step/validation_step/configure_optimizers
returning an optimizer plus an lr_scheduler dict (interval "step"), self.log collected per epoch, save_hyperparameters,
callbacks (EarlyStopping on val_loss, ModelCheckpoint keeping the top-k in memory through torch.save into BytesIO,
an LR monitor), gradient accumulation with clip_grad_norm_, random_split with a generator, inference_mode
prediction, and resuming from the best checkpoint with its optimizer and scheduler states."""

import io
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class LightningModule(nn.Module):
    def __init__(self):
        super().__init__()
        self._logged = {}
        self.hparams = {}
        self.trainer = None
        self.current_epoch = 0
        self.global_step = 0

    def save_hyperparameters(self, **kwargs):
        self.hparams.update(kwargs)

    def log(self, name, value, prog_bar=False, on_step=False, on_epoch=True):
        v = value.detach().item() if torch.is_tensor(value) else float(value)
        self._logged.setdefault(name, []).append(v)

    def on_train_epoch_start(self):
        pass


class LitClassifier(LightningModule):
    def __init__(self, in_dim=6, hidden=16, num_classes=3, lr=0.05, warmup=4):
        super().__init__()
        self.save_hyperparameters(in_dim=in_dim, hidden=hidden, num_classes=num_classes, lr=lr, warmup=warmup)
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(hidden, num_classes))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train_loss", loss, prog_bar=True)
        return {"loss": loss, "acc": (logits.argmax(-1) == y).float().mean()}

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y))
        self.log("val_acc", (logits.argmax(-1) == y).float().mean())

    def predict_step(self, batch, batch_idx):
        return self(batch[0]).softmax(-1)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=self.hparams["lr"], momentum=0.9)
        warmup = self.hparams["warmup"]
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup)
                                                  * 0.5 * (1 + math.cos(math.pi * min(s, 40) / 40)))
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step", "frequency": 1}}


class Callback:
    def on_validation_end(self, trainer, module):
        pass

    def on_train_batch_end(self, trainer, module, outputs, batch_idx):
        pass


class EarlyStopping(Callback):
    def __init__(self, monitor="val_loss", patience=2, min_delta=0.0, mode="min"):
        self.monitor, self.patience, self.min_delta, self.mode = monitor, patience, min_delta, mode
        self.wait_count = 0
        self.best_score = torch.tensor(math.inf if mode == "min" else -math.inf)

    def on_validation_end(self, trainer, module):
        current = torch.tensor(trainer.callback_metrics[self.monitor])
        improved = torch.lt(current, self.best_score - self.min_delta) if self.mode == "min" \
            else torch.gt(current, self.best_score + self.min_delta)
        if improved:
            self.best_score, self.wait_count = current, 0
        else:
            self.wait_count += 1
            if self.wait_count >= self.patience:
                trainer.should_stop = True
                print(f"  early stop at epoch {trainer.current_epoch}: best {self.best_score.item():.4f}")


class ModelCheckpoint(Callback):
    def __init__(self, monitor="val_loss", save_top_k=2):
        self.monitor, self.save_top_k = monitor, save_top_k
        self.best_k_models = {}

    def on_validation_end(self, trainer, module):
        score = trainer.callback_metrics[self.monitor]
        name = f"epoch={trainer.current_epoch}-{self.monitor}={score:.4f}.ckpt"
        buf = io.BytesIO()
        torch.save(trainer.dump_checkpoint(), buf)
        self.best_k_models[name] = (score, buf.getvalue())
        if len(self.best_k_models) > self.save_top_k:
            worst = max(self.best_k_models, key=lambda k: self.best_k_models[k][0])
            del self.best_k_models[worst]

    @property
    def best_model_path(self):
        return min(self.best_k_models, key=lambda k: self.best_k_models[k][0])


class LearningRateMonitor(Callback):
    def __init__(self):
        self.lrs = []

    def on_train_batch_end(self, trainer, module, outputs, batch_idx):
        self.lrs.append(trainer.optimizer.param_groups[0]["lr"])


class Trainer:
    def __init__(self, max_epochs=3, callbacks=(), accumulate_grad_batches=1, gradient_clip_val=None):
        self.max_epochs, self.callbacks = max_epochs, list(callbacks)
        self.accumulate_grad_batches, self.gradient_clip_val = accumulate_grad_batches, gradient_clip_val
        self.callback_metrics, self.should_stop, self.current_epoch, self.global_step = {}, False, 0, 0

    def dump_checkpoint(self):
        return {"epoch": self.current_epoch, "global_step": self.global_step,
                "state_dict": self.module.state_dict(), "optimizer_states": [self.optimizer.state_dict()],
                "lr_schedulers": [self.scheduler.state_dict()], "hyper_parameters": dict(self.module.hparams)}

    def fit(self, module, train_loader, val_loader, ckpt=None):
        self.module = module
        module.trainer = self
        conf = module.configure_optimizers()
        self.optimizer, self.scheduler = conf["optimizer"], conf["lr_scheduler"]["scheduler"]
        start = 0
        if ckpt is not None:
            module.load_state_dict(ckpt["state_dict"])
            self.optimizer.load_state_dict(ckpt["optimizer_states"][0])
            self.scheduler.load_state_dict(ckpt["lr_schedulers"][0])
            start, self.global_step = ckpt["epoch"] + 1, ckpt["global_step"]
        for epoch in range(start, self.max_epochs):
            self.current_epoch = module.current_epoch = epoch
            module.train()
            module._logged = {}
            for batch_idx, batch in enumerate(train_loader):
                out = module.training_step(batch, batch_idx)
                (out["loss"] / self.accumulate_grad_batches).backward()
                if (batch_idx + 1) % self.accumulate_grad_batches == 0:
                    if self.gradient_clip_val is not None:
                        nn.utils.clip_grad_norm_(module.parameters(), self.gradient_clip_val)
                    self.optimizer.step()
                    self.optimizer.zero_grad(set_to_none=True)
                    self.scheduler.step()
                    self.global_step += 1
                    module.global_step = self.global_step
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, out, batch_idx)
            module.eval()
            with torch.no_grad():
                for batch_idx, batch in enumerate(val_loader):
                    module.validation_step(batch, batch_idx)
            self.callback_metrics = {k: sum(v) / len(v) for k, v in module._logged.items()}
            print(f"epoch {epoch} step {self.global_step} " + " ".join(
                f"{k}={v:.4f}" for k, v in sorted(self.callback_metrics.items())))
            for cb in self.callbacks:
                cb.on_validation_end(self, module)
            if self.should_stop:
                break

    @torch.inference_mode()
    def predict(self, module, loader):
        module.eval()
        return torch.cat([module.predict_step(b, i) for i, b in enumerate(loader)])


centers = torch.randn(3, 6) * 2
labels = torch.randint(0, 3, (120,))
feats = centers[labels] + torch.randn(120, 6)
train_ds, val_ds = random_split(TensorDataset(feats, labels), [90, 30], generator=torch.Generator().manual_seed(1))
print("split", len(train_ds), len(val_ds), train_ds.indices[:6])
train_loader = DataLoader(train_ds, batch_size=16, shuffle=True, drop_last=True,
                          generator=torch.Generator().manual_seed(2))
val_loader = DataLoader(val_ds, batch_size=16)
print("batches", len(train_loader), len(val_loader))

model = LitClassifier()
print(model)
print("hparams", model.hparams)
es, ckpt_cb, lr_mon = EarlyStopping(patience=2, min_delta=0.01), ModelCheckpoint(save_top_k=2), LearningRateMonitor()
trainer = Trainer(max_epochs=8, callbacks=[es, ckpt_cb, lr_mon], accumulate_grad_batches=2, gradient_clip_val=1.0)
trainer.fit(model, train_loader, val_loader)
print("lrs", [round(lr, 4) for lr in lr_mon.lrs[::4]])
print("top-k", sorted(ckpt_cb.best_k_models), "best", ckpt_cb.best_model_path)

blob = ckpt_cb.best_k_models[ckpt_cb.best_model_path][1]
ckpt = torch.load(io.BytesIO(blob), weights_only=True)
print("ckpt keys", sorted(ckpt), "epoch", ckpt["epoch"], "step", ckpt["global_step"])
print("optimizer state", sorted(ckpt["optimizer_states"][0]), len(ckpt["optimizer_states"][0]["state"]),
      "sched", sorted(ckpt["lr_schedulers"][0])[:4])
print("state_dict", list(ckpt["state_dict"])[:5], ckpt["state_dict"]["net.1.num_batches_tracked"])

restored = LitClassifier(**ckpt["hyper_parameters"])
trainer2 = Trainer(max_epochs=ckpt["epoch"] + 2, callbacks=[])
trainer2.fit(restored, train_loader, val_loader, ckpt=ckpt)
print("resumed lr", round(trainer2.optimizer.param_groups[0]["lr"], 4), "last_epoch", trainer2.scheduler.last_epoch)

probs = trainer2.predict(restored, val_loader)
print("predictions", probs.shape, probs.is_inference(), probs[:2])
print("val acc", round((probs.argmax(-1) == torch.stack([val_ds[i][1] for i in range(len(val_ds))])).float()
                       .mean().item(), 4))
try:
    probs.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
