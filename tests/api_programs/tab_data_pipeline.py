"""A tabular data pipeline: stratified splits with generators, oversampling with WeightedRandomSampler,
mixed collate."""

import torch
from torch.utils.data import (
    ConcatDataset,
    DataLoader,
    Dataset,
    StackDataset,
    Subset,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    random_split,
)

torch.manual_seed(0)
N = 40
X_num = torch.randn(N, 3)
X_cat = torch.randint(0, 4, (N, 2))
y = (torch.arange(N) % 5 == 0).long()  # 20% positives
ds = TensorDataset(X_num, X_cat, y)
print("len", len(ds), [t.dtype for t in ds[0]], ds[1:3][2].tolist())

g = torch.Generator().manual_seed(123)
train, val, test = random_split(ds, [0.6, 0.2, 0.2], generator=g)
print("split sizes", len(train), len(val), len(test), type(train).__name__)
print("disjoint", len(set(train.indices) | set(val.indices) | set(test.indices)) == N)
g1 = torch.Generator().manual_seed(123)
again = random_split(range(N), [0.6, 0.2, 0.2], generator=g1)
print("reproducible", again[0].indices == train.indices)
a, b = random_split(range(10), [7, 3], generator=torch.Generator().manual_seed(7))
print("int lengths", sorted(a.indices), sorted(b.indices))
print(
    "fraction rounding",
    [len(s) for s in random_split(range(7), [0.5, 0.25, 0.25], generator=torch.Generator().manual_seed(0))],
)

# stratified split by hand: permute inside each class with one generator
gs = torch.Generator().manual_seed(0)
tr_idx, va_idx = [], []
for c in y.unique(sorted=True):
    idx = (y == c).nonzero().flatten()
    perm = idx[torch.randperm(len(idx), generator=gs)]
    k = int(0.75 * len(idx))
    tr_idx.append(perm[:k])
    va_idx.append(perm[k:])
tr_idx, va_idx = torch.cat(tr_idx), torch.cat(va_idx)
strat_train = Subset(ds, tr_idx.tolist())
print("stratified", len(strat_train), y[tr_idx].float().mean().item(), y[va_idx].float().mean().item())
print("subset item", [t.tolist() for t in strat_train[0]][2])

# oversampling the minority class
labels = y[tr_idx]
class_count = torch.bincount(labels)
sample_w = (1.0 / class_count.double())[labels]
sampler = WeightedRandomSampler(
    sample_w, num_samples=len(labels), replacement=True, generator=torch.Generator().manual_seed(1)
)
print("sampler", len(sampler), sampler.weights.dtype, sampler.replacement, round(sampler.weights.sum().item(), 4))
drawn = torch.tensor(list(sampler))
print("drawn", drawn.shape, drawn.dtype, 0 <= drawn.min().item(), drawn.max().item() < len(labels))
no_rep = list(WeightedRandomSampler([1.0] * 5, 5, replacement=False, generator=torch.Generator().manual_seed(2)))
print("without replacement is a permutation", sorted(no_rep))
loader = DataLoader(strat_train, batch_size=8, sampler=sampler, drop_last=True)
print("batches", len(loader), [tuple(t.shape) for t in next(iter(loader))])
seen = torch.cat([b[2] for b in loader])
print("total drawn", seen.numel())

loader = DataLoader(ds, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(3))
first = [b[2].tolist() for b in loader]
loader2 = DataLoader(ds, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(3))
print("shuffle reproducible", first == [b[2].tolist() for b in loader2], [len(b) for b in first])


class RowDataset(Dataset):
    """Rows as dicts, the way pandas-backed datasets return them."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {
            "num": X_num[i],
            "cat": X_cat[i],
            "id": f"row{i}",
            "weight": 1.0 + i,
            "flag": i % 2 == 0,
            "y": int(y[i]),
        }


batch = next(iter(DataLoader(RowDataset(6), batch_size=3)))
print("keys", list(batch.keys()))
print("types", {k: (type(v).__name__, getattr(v, "dtype", None)) for k, v in batch.items()})
print("values", batch["id"], batch["weight"].tolist(), batch["flag"].tolist(), batch["y"].tolist())
print("collate tuples", default_collate([(1, 2.0), (3, 4.0)]))
both = ConcatDataset([Subset(ds, range(5)), Subset(ds, range(30, 40))])
print("concat", len(both), both.cumulative_sizes, both[7][2].item(), both[-1][2].item())
pairs = StackDataset(features=TensorDataset(X_num), target=y)
print("stack", sorted(pairs[0].keys()), len(pairs))
for name, fn in [
    ("bad fractions", lambda: random_split(ds, [0.5, 0.4])),
    ("bad lengths", lambda: random_split(ds, [30, 20])),
    ("sampler and shuffle", lambda: DataLoader(ds, sampler=sampler, shuffle=True)),
    ("negative weights", lambda: list(WeightedRandomSampler([-1.0, 1.0], 2))),
    ("too many without replacement", lambda: list(WeightedRandomSampler([1.0, 1.0], 3, replacement=False))),
    ("mismatched tensors", lambda: TensorDataset(X_num, y[:5])),
    ("concat index", lambda: both[15]),
    ("collate mixed sizes", lambda: default_collate([torch.ones(2), torch.ones(3)])),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
