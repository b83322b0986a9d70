"""A tabular data pipeline built on numpy, as Kaggle and lab code writes it: a Dataset returning numpy arrays,
numpy scalars, Python numbers and strings (what default_collate makes of each), a DataLoader iterating a bare
ndarray, TensorDataset over from_numpy views (still sharing the arrays), random_split and Subset with numpy
indices, WeightedRandomSampler with numpy weights, a collate_fn that pads numpy sequences, and the errors for
ragged numpy batches and object arrays."""

import numpy as np
import torch
from torch.utils.data import (DataLoader, Dataset, Subset, TensorDataset, WeightedRandomSampler, default_collate,
                              random_split)

torch.set_printoptions(precision=4)
rng = np.random.default_rng(3)


def describe(batch):
    if isinstance(batch, torch.Tensor):
        return f"Tensor{tuple(batch.shape)}:{str(batch.dtype).replace('torch.', '')}"
    if isinstance(batch, dict):
        return "{" + ", ".join(f"{k}: {describe(v)}" for k, v in batch.items()) + "}"
    if isinstance(batch, list | tuple):
        return type(batch).__name__ + "[" + ", ".join(describe(v) for v in batch) + "]"
    value = batch.tolist() if isinstance(batch, np.ndarray | np.generic) else batch
    return f"{type(batch).__name__}({value!r})"


def attempt(name, fn):
    try:
        print(name, describe(fn()))
    except Exception as e:
        print(name, f"{type(e).__name__}: {str(e).splitlines()[0]}")


features = rng.normal(size=(10, 4)).astype(np.float32)
target = (features[:, 0] + 0.5 * features[:, 1] > 0).astype(np.int64)
names = [f"row{i}" for i in range(10)]


class TableDataset(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.y[i], "w": np.float64(1.0 + i / 10), "flag": np.bool_(i % 2),
                "n": i, "frac": i / 4, "name": names[i], "raw": np.int32(i * 3)}


ds = TableDataset(features, target)
print("item", describe(ds[0]))
loader = DataLoader(ds, batch_size=4)
for b in loader:
    print("batch", describe(b))
last = b
print("y", last["y"].tolist(), "w", last["w"].tolist(), "flag", last["flag"].tolist(), "name", last["name"])
print("raw", last["raw"], "frac", last["frac"])

print("-- default_collate directly")
attempt("np.float32 scalars", lambda: default_collate([np.float32(0.5), np.float32(1.5)]))
attempt("np.float16 arrays", lambda: default_collate([np.zeros(2, np.float16), np.ones(2, np.float16)]))
attempt("np.uint8 images", lambda: default_collate([np.zeros((2, 2, 3), np.uint8)] * 3))
attempt("0-d arrays", lambda: default_collate([np.array(1.5), np.array(2.5)]))
attempt("np.str_", lambda: default_collate([np.str_("a"), np.str_("b")]))
attempt("tuples", lambda: default_collate([(np.ones(2), 1), (np.zeros(2), 2)]))
attempt("ragged arrays", lambda: default_collate([np.ones(2), np.ones(3)]))
attempt("object arrays", lambda: default_collate([np.array([1, "a"], dtype=object)] * 2))
attempt("string arrays", lambda: default_collate([np.array(["a"]), np.array(["b"])]))
attempt("ragged lists", lambda: default_collate([[1, 2], [3]]))
col = default_collate([np.arange(3, dtype=np.int16), np.arange(3, 6, dtype=np.int16)])
print("int16 stack", col.tolist(), col.dtype)

print("-- DataLoader over a bare ndarray")
for b in DataLoader(features[:6], batch_size=4):
    print(describe(b), b.sum().round(decimals=4).item())
for b in DataLoader(target, batch_size=5):
    print(describe(b), b.tolist())

print("-- TensorDataset over from_numpy")
tds = TensorDataset(torch.from_numpy(features), torch.from_numpy(target))
features[0, 0] = 10.0  # the dataset sees it: from_numpy shares
x0, y0 = tds[0]
print("shared", round(x0[0].item(), 4), y0.item(), y0.dtype, len(tds))
print("slice", describe(tds[2:5]), "np index", describe(tds[np.int64(3)]))
attempt("TensorDataset sizes", lambda: TensorDataset(torch.zeros(3), torch.zeros(4)))
torch.manual_seed(0)
for xb, yb in DataLoader(tds, batch_size=4, shuffle=True):
    print("shuffled", yb.tolist(), xb[:, 1].round(decimals=4).tolist())

print("-- splits and samplers with numpy")
g = torch.Generator().manual_seed(42)
train, val = random_split(tds, [0.7, 0.3], generator=g)
print("split", len(train), len(val), sorted(train.indices), type(train.indices[0]).__name__)
idx = np.flatnonzero(target == 1)
pos = Subset(tds, idx)
print("subset", len(pos), describe(pos[0]), [int(tds[i][1]) for i in idx])
counts = np.bincount(target)
weights = 1.0 / counts[target]
sampler = WeightedRandomSampler(weights, num_samples=8, replacement=True, generator=torch.Generator().manual_seed(1))
drawn = list(sampler)
print("weighted", drawn, type(drawn[0]).__name__, np.bincount(target[drawn], minlength=2).tolist())
print("sampler weights", sampler.weights.dtype, sampler.weights[:3].tolist())


def pad_collate(batch):
    """Sequences of different lengths (numpy) padded into one tensor with a lengths vector."""
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    out = torch.zeros(len(seqs), int(lengths.max()), dtype=torch.float32)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.from_numpy(s)
    return out, lengths, torch.tensor(labels)


seqs = [(rng.integers(0, 9, size=n).astype(np.float32), np.int64(n % 2)) for n in (3, 1, 4, 2)]
for xb, lb, yb in DataLoader(seqs, batch_size=2, collate_fn=pad_collate):
    print("padded", xb.tolist(), lb.tolist(), yb.tolist(), yb.dtype)
attempt("default collate ragged", lambda: next(iter(DataLoader(seqs, batch_size=2))))
