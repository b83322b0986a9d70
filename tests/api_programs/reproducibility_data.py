"""torch.compile, generators, RNG state, reproducibility, Dataset/Sampler/collate."""

import random
import numpy as np
import torch
from torch import nn
from torch.utils.data import (
    Dataset,
    IterableDataset,
    DataLoader,
    WeightedRandomSampler,
    SubsetRandomSampler,
    BatchSampler,
    SequentialSampler,
    ConcatDataset,
    default_collate,
    get_worker_info,
)


def seed_all(s):
    random.seed(s)
    np.random.seed(s)
    torch.manual_seed(s)


seed_all(0)
a = torch.randn(5)
seed_all(0)
b = torch.randn(5)
print("repro", torch.equal(a, b))
g = torch.Generator()
g.manual_seed(42)
s = g.get_state()
u1 = torch.rand(3, generator=g)
g.set_state(s)
u2 = torch.rand(3, generator=g)
print("gen_state", torch.equal(u1, u2), g.initial_seed(), s.dtype)
st = torch.get_rng_state()
r1 = torch.rand(2)
torch.set_rng_state(st)
print("rng_state", torch.equal(r1, torch.rand(2)))
with torch.random.fork_rng():
    torch.rand(10)
r2 = torch.rand(2)
print("fork_rng", r2.shape, torch.initial_seed())
torch.manual_seed(3)
d1 = nn.Dropout(0.5)(torch.ones(8))
torch.manual_seed(3)
d2 = nn.Dropout(0.5)(torch.ones(8))
print("dropout_repro", torch.equal(d1, d2), set(d1.tolist()) <= {0.0, 2.0})
print("seed", type(torch.seed()).__name__, torch.Generator().device)
print(
    "bernoulli",
    torch.bernoulli(torch.full((4,), 0.5), generator=torch.Generator().manual_seed(0)).shape,
    torch.normal(0.0, 1.0, size=(2, 2)).shape,
    torch.normal(torch.zeros(3), 1.0).shape,
    torch.poisson(torch.ones(3)).shape,
)
print("multinomial", torch.multinomial(torch.tensor([0.1, 0.0, 0.9]), 5, replacement=True).max().item() <= 2)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
cm = torch.compile(model)
x = torch.randn(6, 4)
print(
    "compile",
    torch.allclose(cm(x), model(x), atol=1e-6),
    type(cm).__name__,
    hasattr(cm, "_orig_mod"),
    cm._orig_mod is model,
)
opt = torch.optim.SGD(cm.parameters(), lr=0.1)
for _ in range(3):
    loss = cm(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("compile_train", loss.item() >= 0, list(cm.state_dict().keys())[:2])


@torch.compile
def f(t):
    return torch.sin(t) ** 2 + torch.cos(t) ** 2


print("compile_fn", torch.allclose(f(x), torch.ones_like(x)))
fc = torch.compile(lambda t: t * 2, mode="reduce-overhead", fullgraph=True, dynamic=False)
print("compile_mode", fc(torch.ones(2)).tolist())
print("dynamo", hasattr(torch, "_dynamo"), torch.compiler.is_compiling())
torch._dynamo.reset()


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i, "name": f"s{i}"}


ds = Squares(10)
dl = DataLoader(ds, batch_size=4, shuffle=False)
b = next(iter(dl))
print("dict_batch", sorted(b), b["x"].shape, b["y"].tolist(), b["name"])


def collate(batch):
    xs = torch.stack([d["x"] for d in batch])
    return xs, torch.tensor([d["y"] for d in batch])


dl = DataLoader(
    ds,
    batch_size=3,
    collate_fn=collate,
    drop_last=True,
    sampler=SubsetRandomSampler(list(range(9)), generator=torch.Generator().manual_seed(0)),
)
print("custom_collate", len(dl), [t.shape for t in next(iter(dl))])
w = WeightedRandomSampler([0.0, 0.0, 1.0, 1.0], num_samples=6, replacement=True)
print("weighted", sorted(set(list(w))) <= [2, 3], len(w))
print("batch_sampler", list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)))
cat = ConcatDataset([ds, Squares(3)])
print("concat", len(cat), cat[11]["y"], cat.cumulative_sizes)


class Stream(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        return iter(range(5)) if info is None else iter([])


print("iterable", [t.tolist() for t in DataLoader(Stream(), batch_size=2)])
print("default_collate", default_collate([(1, 2.0), (3, 4.0)]), default_collate([np.ones(2), np.zeros(2)]).dtype)
dl = DataLoader(
    ds,
    batch_size=5,
    num_workers=2,
    persistent_workers=False,
    pin_memory=False,
    worker_init_fn=lambda i: np.random.seed(i),
)
print("workers", [b["y"].tolist() for b in dl])
gen = torch.Generator().manual_seed(7)
o1 = [b["y"].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(7))]
o2 = [b["y"].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(7))]
print("shuffle_repro", o1 == o2)
print("OK")
