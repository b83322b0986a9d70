"""Lightning-style manual optimization and plugins written inline: seed_everything (random, numpy, torch), a
LightningDataModule with prepare_data/setup(stage) and DistributedSampler shards per rank, a torchmetrics-like Metric
with add_state/update/compute/reset, a GAN LightningModule with automatic_optimization=False, toggle_optimizer
freezing the other model's parameters, manual_backward under bf16-mixed autocast, a ModelSummary table, and a
StochasticWeightAveraging callback built on AveragedModel, SWALR and update_bn."""

import random

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

torch.set_printoptions(precision=4)


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return seed


print("seed", seed_everything(42), random.random() < 1, torch.initial_seed())


class DataModule:
    def __init__(self, n=64, batch_size=8):
        self.n, self.batch_size, self.prepared = n, batch_size, False

    def prepare_data(self):
        self.prepared = True

    def setup(self, stage):
        g = torch.Generator().manual_seed(0)
        x = torch.randn(self.n, 2, generator=g) * torch.tensor([1.0, 0.3]) + torch.tensor([2.0, -1.0])
        if stage == "fit":
            self.train = TensorDataset(x[: self.n * 3 // 4])
            self.val = TensorDataset(x[self.n * 3 // 4:])

    def train_dataloader(self, rank=0, world_size=1):
        sampler = DistributedSampler(self.train, num_replicas=world_size, rank=rank, shuffle=True, seed=7,
                                     drop_last=False)
        return DataLoader(self.train, batch_size=self.batch_size, sampler=sampler), sampler


class Metric:
    def __init__(self):
        self._defaults, self._reductions = {}, {}

    def add_state(self, name, default, dist_reduce_fx="sum"):
        self._defaults[name] = default.clone()
        self._reductions[name] = dist_reduce_fx
        setattr(self, name, default.clone())

    def reset(self):
        for k, v in self._defaults.items():
            setattr(self, k, v.clone())

    def __call__(self, *args):
        self.update(*args)
        return self.compute()


class MeanSquaredError(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("sum_squared_error", torch.tensor(0.0))
        self.add_state("total", torch.tensor(0))

    def update(self, preds, target):
        self.sum_squared_error += torch.sum((preds - target) ** 2)
        self.total += target.numel()

    def compute(self):
        return self.sum_squared_error / self.total


class GAN(nn.Module):
    def __init__(self, latent=4):
        super().__init__()
        self.automatic_optimization = False
        self.latent = latent
        self.generator = nn.Sequential(nn.Linear(latent, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))
        self.discriminator = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self._optimizers = self.configure_optimizers()

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-3, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-3, betas=(0.5, 0.999))
        return [opt_g, opt_d]

    def optimizers(self):
        return self._optimizers

    def toggle_optimizer(self, optimizer):
        param_requires_grad_state = {}
        for opt in self._optimizers:
            for group in opt.param_groups:
                for param in group["params"]:
                    param_requires_grad_state.setdefault(param, param.requires_grad)
                    param.requires_grad = False
        for group in optimizer.param_groups:
            for param in group["params"]:
                param.requires_grad = param_requires_grad_state[param]
        self._param_requires_grad_state = param_requires_grad_state

    def untoggle_optimizer(self, optimizer):
        for param, state in self._param_requires_grad_state.items():
            param.requires_grad = state
        self._param_requires_grad_state = {}

    def manual_backward(self, loss):
        loss.backward()

    def training_step(self, batch, batch_idx):
        (real,) = batch
        opt_g, opt_d = self.optimizers()
        z = torch.randn(real.shape[0], self.latent)
        self.toggle_optimizer(opt_g)
        frozen = sum(not p.requires_grad for p in self.discriminator.parameters())
        with torch.autocast("cpu", dtype=torch.bfloat16):
            fake = self.generator(z)
            g_logits = self.discriminator(fake)
        g_loss = F.binary_cross_entropy_with_logits(g_logits.float(), torch.ones_like(g_logits, dtype=torch.float32))
        self.manual_backward(g_loss)
        opt_g.step()
        opt_g.zero_grad()
        self.untoggle_optimizer(opt_g)
        self.toggle_optimizer(opt_d)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            d_real = self.discriminator(real)
            d_fake = self.discriminator(fake.detach())
        d_loss = 0.5 * (F.binary_cross_entropy_with_logits(d_real.float(), torch.ones_like(d_real, dtype=torch.float))
                        + F.binary_cross_entropy_with_logits(d_fake.float(), torch.zeros_like(d_fake,
                                                                                              dtype=torch.float)))
        self.manual_backward(d_loss)
        opt_d.step()
        opt_d.zero_grad()
        self.untoggle_optimizer(opt_d)
        return g_loss.detach(), d_loss.detach(), frozen, g_logits.dtype


def model_summary(module):
    rows = [("", "Name", "Type", "Params")]
    for i, (name, child) in enumerate(module.named_children()):
        rows.append((str(i), name, type(child).__name__, str(sum(p.numel() for p in child.parameters()))))
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    lines = [" | ".join(r[c].ljust(widths[c]) for c in range(4)) for r in rows]
    total = sum(p.numel() for p in module.parameters())
    trainable = sum(p.numel() for p in module.parameters() if p.requires_grad)
    size_mb = sum(p.numel() * p.element_size() for p in module.parameters()) / 1e6
    return "\n".join([lines[0], "-" * len(lines[0])] + lines[1:] + [
        f"{trainable} Trainable params", f"{total - trainable} Non-trainable params",
        f"{size_mb:.3f} Total estimated model params size (MB)"])


dm = DataModule()
dm.prepare_data()
dm.setup("fit")
print("datamodule", dm.prepared, len(dm.train), len(dm.val))
for rank in range(2):
    loader, sampler = dm.train_dataloader(rank=rank, world_size=2)
    sampler.set_epoch(1)
    print(f"rank {rank}: samples {len(sampler)} batches {len(loader)} first idx {list(iter(sampler))[:6]}")
loader, sampler = dm.train_dataloader()

mse = MeanSquaredError()
mse.update(torch.tensor([1.0, 2.0]), torch.tensor([1.5, 2.0]))
print("metric", mse.compute().item(), "state", mse.sum_squared_error.item(), mse.total.item(), mse._reductions)
print("call", mse(torch.tensor([0.0]), torch.tensor([1.0])).item())
mse.reset()
print("reset", mse.sum_squared_error.item(), mse.total.item())

seed_everything(1)
gan = GAN()
print(model_summary(gan))
for epoch in range(3):
    sampler.set_epoch(epoch)
    g_losses, d_losses = [], []
    for i, batch in enumerate(loader):
        g, d, frozen, dt = gan.training_step(batch, i)
        g_losses.append(g)
        d_losses.append(d)
    print(f"epoch {epoch} g {torch.stack(g_losses).mean():.4f} d {torch.stack(d_losses).mean():.4f} "
          f"frozen during G {frozen} autocast dtype {dt}")
print("all trainable after untoggle", all(p.requires_grad for p in gan.parameters()))
with torch.no_grad():
    samples = gan.generator(torch.randn(256, 4))
print("sample mean", samples.mean(0), "std", samples.std(0))
print("val mse to mean", round(mse(samples.mean(0, keepdim=True).expand(16, 2), dm.val.tensors[0]).item(), 4))

seed_everything(3)
reg = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(reg.parameters(), lr=0.1, momentum=0.9)
swa_model = AveragedModel(reg)
swa_sched = SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="cos")
x_all = dm.train.tensors[0]
y_all = (x_all[:, :1] - 2.0) * 1.5 + x_all[:, 1:] ** 2
reg_loader = DataLoader(TensorDataset(x_all, y_all), batch_size=16, shuffle=True)
swa_start = 2
for epoch in range(5):
    for xb, yb in reg_loader:
        opt.zero_grad()
        loss = F.mse_loss(reg(xb), yb)
        loss.backward()
        opt.step()
    if epoch >= swa_start:
        swa_model.update_parameters(reg)
        swa_sched.step()
    print(f"swa epoch {epoch} loss {loss.item():.4f} lr {opt.param_groups[0]['lr']:.4f} "
          f"n_averaged {swa_model.n_averaged.item()}")
update_bn(reg_loader, swa_model)
swa_model.eval()
with torch.no_grad():
    print("swa mse", round(F.mse_loss(swa_model(x_all), y_all).item(), 4), "bn mean",
          swa_model.module[1].running_mean[:3])
print("swa keys", list(swa_model.state_dict())[:3], len(swa_model.state_dict()))
