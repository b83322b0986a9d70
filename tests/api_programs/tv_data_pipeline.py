"""A torchvision-reference data pipeline on CPU: a map-style Dataset with callable transforms, ConcatDataset and nested
Subsets, DistributedSampler shards, BatchSampler, samplers with seeded generators (only their sets and sizes are
printed), default_collate over dicts and namedtuples, then a channels_last evaluation with per-class accuracy."""

from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, DistributedSampler, RandomSampler,
                              SequentialSampler, Subset, SubsetRandomSampler, WeightedRandomSampler, default_collate,
                              get_worker_info)

rng = np.random.default_rng(5)
Sample = namedtuple("Sample", ["image", "label"])


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, img):
        return (img - self.mean) / self.std


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self):
        return f"Compose({[type(t).__name__ for t in self.transforms]})"


class ToyImages(Dataset):
    def __init__(self, n, offset, transform=None):
        self.images = rng.integers(0, 256, (n, 3, 6, 6)).astype(np.uint8)
        self.labels = ((np.arange(n) + offset) % 3).tolist()
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = torch.from_numpy(self.images[i]).float().div(255)
        if i % 2:
            img = img.flip(-1)
        if self.transform is not None:
            img = self.transform(img)
        return Sample(img, self.labels[i])


tf = Compose([Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])])
print(tf)
a, b = ToyImages(10, 0, tf), ToyImages(6, 1, tf)
ds = ConcatDataset([a, b])
print("concat", len(ds), ds.cumulative_sizes, ds[11].label, round(ds[11].image.mean().item(), 4))
nested = Subset(Subset(ds, list(range(2, 16))), [0, 5, 9])
print("nested", len(nested), [nested[i].label for i in range(3)], round(nested[2].image.sum().item(), 4))

shards = [list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
print("dist", shards, [len(s) for s in shards])
dd = DistributedSampler(ds, num_replicas=3, rank=1, shuffle=False, drop_last=True)
print("dist drop", list(dd), len(dd), dd.num_samples, dd.total_size)
dsh = DistributedSampler(ds, num_replicas=2, rank=0, shuffle=True, seed=3)
dsh.set_epoch(1)
print("dist shuffled", len(dsh), len(set(dsh)), dsh.epoch)
bs = BatchSampler(SequentialSampler(range(10)), batch_size=4, drop_last=False)
print("batches", list(bs), len(bs), len(BatchSampler(range(10), 4, True)))

g = torch.Generator().manual_seed(0)
rs = RandomSampler(ds, replacement=True, num_samples=7, generator=g)
srs = SubsetRandomSampler([1, 4, 9, 12], generator=g)
wts = torch.from_numpy(np.array([0.0, 1.0, 2.0, 0.0, 3.0, 1.0]))
wrs = WeightedRandomSampler(wts, num_samples=4, replacement=False, generator=g)
print("samplers", len(rs), len(list(rs)), sorted(srs), sorted(wrs), len(wrs), wrs.replacement)
try:
    drawn = list(WeightedRandomSampler(wts, num_samples=5, replacement=False, generator=g))
    print("too many", len(drawn), len(set(drawn)), set(drawn) >= {1, 2, 4, 5})
except RuntimeError as e:
    print("too many", type(e).__name__)

d = default_collate([{"x": torch.ones(2), "y": 1, "n": "a"}, {"x": torch.zeros(2), "y": 2, "n": "b"}])
print("dict collate", d["x"].tolist(), d["y"], d["n"])
nt = default_collate([ds[0], ds[1]])
print("nt collate", type(nt).__name__, tuple(nt.image.shape), nt.label, get_worker_info())


def collate_channels_last(batch):
    imgs, labels = default_collate(batch)
    return imgs.contiguous(memory_format=torch.channels_last), labels


loader = DataLoader(ds, batch_size=5, sampler=SequentialSampler(ds), collate_fn=collate_channels_last, drop_last=False)
print("loader", len(loader), [tuple(x.shape) for x, _ in loader])

model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Hardswish(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                      nn.Linear(4, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32)) * 0.5)
model = model.to(memory_format=torch.channels_last).eval()
correct = torch.zeros(3)
total = torch.zeros(3)
losses = []
crit = nn.CrossEntropyLoss(reduction="sum")
with torch.inference_mode():
    for x, y in loader:
        out = model(x)
        losses.append(crit(out, y).item())
        pred = out.argmax(1)
        total.index_add_(0, y, torch.ones(len(y)))
        correct.scatter_add_(0, y, (pred == y).float())
print("out layout", out.is_contiguous(memory_format=torch.channels_last), out.shape)
print("losses", [round(v, 4) for v in losses], round(sum(losses) / len(ds), 4))
print("per-class", (correct / total).tolist(), total.tolist())
print("acc@1", round(100.0 * correct.sum().item() / total.sum().item(), 4))
