"""d2l.ai section 12.11 (learning-rate scheduling) as the book writes it: LeNet trained with a hand scheduler
that sets param_group['lr'] each epoch, the book's SquareRoot/Factor/Cosine-with-warmup scheduler classes, and
lr_scheduler.MultiStepLR, CosineAnnealingLR, LambdaLR, OneCycleLR and their state dicts compared with them."""

import math
import numpy as np
import torch
from torch import nn
from torch.optim import lr_scheduler

rng = np.random.default_rng(7)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def net_fn():
    model = nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.ReLU(),
        nn.MaxPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(),
        nn.MaxPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy((0.1 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
    return model


X_all = torch.from_numpy(rng.standard_normal((32, 1, 28, 28)).astype(np.float32))
y_all = torch.from_numpy(rng.integers(0, 10, (32,)))
loss = nn.CrossEntropyLoss()


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def train(net, train_iter, loss, num_epochs, trainer, scheduler=None):
    lrs = []
    for epoch in range(num_epochs):
        metric = [0.0, 0.0, 0]
        for i, (X, y) in enumerate(train_iter):
            net.train()
            trainer.zero_grad()
            y_hat = net(X)
            l = loss(y_hat, y)
            l.backward()
            trainer.step()
            with torch.no_grad():
                metric[0] += l * X.shape[0]
                metric[1] += accuracy(y_hat, y)
                metric[2] += X.shape[0]
        lrs.append(round(trainer.param_groups[0]["lr"], 6))
        if scheduler:
            if scheduler.__module__ == lr_scheduler.__name__:
                scheduler.step()
            else:
                for param_group in trainer.param_groups:
                    param_group["lr"] = scheduler(epoch)
    # two decimals: epochs of SGD carry float32 GEMM rounding (BLAS builds differ in the third)
    print(f"train loss {float(metric[0] / metric[2]):.2f}, train acc {metric[1] / metric[2]:.3f}", lrs)
    return lrs


train_iter = [(X_all[i:i + 8], y_all[i:i + 8]) for i in range(0, 32, 8)]
lr, num_epochs = 0.3, 4
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=lr)
train(net, train_iter, loss, num_epochs, trainer)
lr = 0.1
trainer.param_groups[0]["lr"] = lr
print(f"learning rate is now {trainer.param_groups[0]['lr']:.2f}")


class SquareRootScheduler:
    def __init__(self, lr=0.1):
        self.lr = lr

    def __call__(self, num_update):
        return self.lr * pow(num_update + 1.0, -0.5)


scheduler = SquareRootScheduler(lr=0.1)
print("sqrt", [round(scheduler(t), 4) for t in range(6)])
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr)
train(net, train_iter, loss, num_epochs, trainer, scheduler)


class FactorScheduler:
    def __init__(self, factor=1, stop_factor_lr=1e-7, base_lr=0.1):
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.base_lr = base_lr

    def __call__(self, num_update):
        self.base_lr = max(self.stop_factor_lr, self.base_lr * self.factor)
        return self.base_lr


scheduler = FactorScheduler(factor=0.9, stop_factor_lr=1e-2, base_lr=2.0)
print("factor", [round(scheduler(t), 4) for t in range(0, 50, 10)])

net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
scheduler = lr_scheduler.MultiStepLR(trainer, milestones=[2, 3], gamma=0.5)


def get_lr(trainer, scheduler):
    lr = scheduler.get_last_lr()[0]
    trainer.step()
    scheduler.step()
    return lr


print("multistep", [get_lr(trainer, scheduler) for t in range(6)])
print(scheduler.state_dict())
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
scheduler = lr_scheduler.MultiStepLR(trainer, milestones=[2, 3], gamma=0.5)
train(net, train_iter, loss, num_epochs, trainer, scheduler)


class CosineScheduler:
    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0):
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.warmup_steps = warmup_steps
        self.warmup_begin_lr = warmup_begin_lr
        self.max_steps = self.max_update - self.warmup_steps

    def get_warmup_lr(self, epoch):
        increase = (self.base_lr_orig - self.warmup_begin_lr) * float(epoch) / float(self.warmup_steps)
        return self.warmup_begin_lr + increase

    def __call__(self, epoch):
        if epoch < self.warmup_steps:
            return self.get_warmup_lr(epoch)
        if epoch <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * (
                1 + math.cos(math.pi * (epoch - self.warmup_steps) / self.max_steps)) / 2
        return self.base_lr


scheduler = CosineScheduler(max_update=20, base_lr=0.3, final_lr=0.01)
cos_book = [round(scheduler(t), 6) for t in range(12)]
print("cosine", cos_book[:6])
opt = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=0.3)
cos_torch = lr_scheduler.CosineAnnealingLR(opt, T_max=20, eta_min=0.01)
seen = []
for t in range(12):
    seen.append(round(cos_torch.get_last_lr()[0], 6))
    opt.step()
    cos_torch.step()
print("cosine_vs_torch", np.allclose(seen, cos_book, atol=1e-6), seen[-1], cos_torch.last_epoch)
scheduler = CosineScheduler(20, warmup_steps=5, base_lr=0.3, final_lr=0.01)
print("warmup", [round(scheduler(t), 4) for t in range(0, 20, 3)])
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.3)
train(net, train_iter, loss, num_epochs, trainer, scheduler)

# the same warmup as a LambdaLR and as a SequentialLR of library schedulers
opt = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=0.3)
lam = lr_scheduler.LambdaLR(opt, lr_lambda=lambda e: CosineScheduler(20, warmup_steps=5, base_lr=1.0,
                                                                    final_lr=1 / 30)(e))
got = []
for t in range(8):
    got.append(round(opt.param_groups[0]["lr"], 4))
    opt.step()
    lam.step()
print("lambda", got, sorted(lam.state_dict()))
opt = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=0.3, momentum=0.9)
seq = lr_scheduler.SequentialLR(opt, [lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=5),
                                      lr_scheduler.CosineAnnealingLR(opt, T_max=15, eta_min=0.01)],
                                milestones=[5])
got = []
for t in range(10):
    got.append(round(seq.get_last_lr()[0], 4))
    opt.step()
    seq.step()
print("sequential", got)
opt = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=0.1, momentum=0.9)
one = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
got = []
for t in range(10):
    got.append((round(one.get_last_lr()[0], 4), round(opt.param_groups[0]["momentum"], 4)))
    opt.step()
    one.step()
print("onecycle", got[:5])
try:
    opt.step()
    one.step()
except ValueError as e:
    print("ValueError", str(e)[:80])
try:
    lr_scheduler.MultiStepLR([0.1], milestones=[1])
except TypeError as e:
    print("TypeError", e)
