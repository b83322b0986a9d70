"""Distributed plumbing of Lightning/torchmetrics-style code run as a world of one (how unit tests and laptops run
it): init_process_group over a file store, DistributedSampler partitions for several ranks, a DDP-wrapped model with
no_sync gradient accumulation, metric states synced with all_reduce and a padded all_gather of uneven tensors,
rank-zero logging, all_gather_object, and the deprecation warnings of renamed collectives."""

import os
import tempfile
import warnings

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

rng = np.random.default_rng(8)
print("before init", dist.is_available(), dist.is_initialized())
try:
    dist.get_world_size()
except ValueError as e:
    print("ValueError", e)
store = tempfile.NamedTemporaryFile(delete=False).name
dist.init_process_group(backend="gloo", init_method=f"file://{store}", rank=0, world_size=1)
rank, world = dist.get_rank(), dist.get_world_size()
print("init", dist.is_initialized(), rank, world, dist.get_backend())


def rank_zero_only(fn):
    def wrapped(*args, **kwargs):
        if dist.get_rank() == 0:
            return fn(*args, **kwargs)
        return None

    return wrapped


@rank_zero_only
def log(*args):
    print(*args)


X = torch.from_numpy(rng.standard_normal((22, 3)).astype(np.float32))
Y = torch.from_numpy(rng.integers(0, 2, 22))
ds = TensorDataset(X, Y)
for replicas, drop in [(2, False), (3, False), (3, True)]:
    parts = [list(DistributedSampler(ds, num_replicas=replicas, rank=r, shuffle=False, drop_last=drop))
             for r in range(replicas)]
    log("sampler", replicas, drop, [len(p) for p in parts], parts[-1][-3:])
sampler = DistributedSampler(ds, shuffle=True, seed=3)
sampler.set_epoch(2)
print("sampler world", len(sampler), sampler.num_replicas, sampler.rank, sampler.epoch,
      sorted(sampler) == list(range(22)))
try:
    DistributedSampler(ds, num_replicas=2, rank=2)
except ValueError as e:
    print("ValueError", e)

model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
ddp = DDP(model)
print("ddp", type(ddp.module).__name__, list(ddp.state_dict())[:2], ddp.module is model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
loader = DataLoader(ds, batch_size=4, sampler=DistributedSampler(ds, shuffle=False))
accum = 2
for epoch in range(2):
    for i, (xb, yb) in enumerate(loader):
        last = (i + 1) % accum == 0 or i + 1 == len(loader)
        if not last:
            with ddp.no_sync():
                (F.cross_entropy(ddp(xb), yb) / accum).backward()
        else:
            (F.cross_entropy(ddp(xb), yb) / accum).backward()
            opt.step()
            opt.zero_grad()
    with torch.no_grad():
        loss = F.cross_entropy(ddp(X), Y)
    log("epoch", epoch, round(loss.item(), 4))


class SyncedAccuracy:
    def __init__(self):
        self.correct = torch.tensor(0)
        self.total = torch.tensor(0)
        self.scores = []

    def update(self, logits, target):
        self.correct += (logits.argmax(1) == target).sum()
        self.total += target.numel()
        self.scores.append(logits.softmax(1)[:, 1])

    def sync(self):
        for t in (self.correct, self.total):
            dist.all_reduce(t, op=dist.ReduceOp.SUM)
        local = torch.cat(self.scores)
        size = torch.tensor([local.numel()])
        sizes = [torch.zeros_like(size) for _ in range(dist.get_world_size())]
        dist.all_gather(sizes, size)
        max_size = int(torch.stack(sizes).max())
        padded = F.pad(local, (0, max_size - local.numel()))
        gathered = [torch.zeros_like(padded) for _ in range(dist.get_world_size())]
        dist.all_gather(gathered, padded)
        self.scores = [g[: int(s)] for g, s in zip(gathered, sizes)]

    def compute(self):
        return self.correct.float() / self.total


metric = SyncedAccuracy()
with torch.no_grad():
    for xb, yb in loader:
        metric.update(ddp(xb), yb)
metric.sync()
log("synced", metric.correct.item(), metric.total.item(), round(metric.compute().item(), 4),
    [s.shape for s in metric.scores], round(torch.cat(metric.scores).mean().item(), 4))
t = torch.tensor([1.0, 4.0])
dist.all_reduce(t, op=dist.ReduceOp.MAX)
work = dist.all_reduce(t, async_op=True)
work.wait()
dist.broadcast(t, src=0)
dist.barrier()
print("collectives", t.tolist(), work.is_completed(), dist.ReduceOp.SUM, dist.ReduceOp.AVG)
objs = [None] * world
dist.all_gather_object(objs, {"rank": rank, "loss": round(loss.item(), 3)})
print("objects", objs)
out = torch.zeros(2 * world)
dist.all_gather_single(out, torch.tensor([7.0, 8.0]))
red = torch.zeros(2)
dist.reduce_scatter_single(red, torch.tensor([1.0, 2.0]))
print("single", out.tolist(), red.tolist())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    dist.all_gather_into_tensor(out, torch.tensor([5.0, 6.0]))
    dist.reduce_scatter_tensor(red, torch.tensor([3.0, 4.0]))
print("deprecated", out.tolist(), red.tolist(), [w.category.__name__ for w in caught])
for w in caught:
    print(" ", w.message)
dist.destroy_process_group()
os.remove(store)
print("after destroy", dist.is_initialized())
