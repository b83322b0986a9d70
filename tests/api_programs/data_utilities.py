"""torch.utils.data as the tutorials and training scripts use it: random_split with lengths and fractions,
Subset, ConcatDataset, ChainDataset, StackDataset, TensorDataset, WeightedRandomSampler for class imbalance,
BatchSampler, SubsetRandomSampler, default_collate of dicts and namedtuples, a padding collate_fn, an
IterableDataset split by get_worker_info, DataLoader lengths with drop_last, and seeded shuffles."""

from collections import Counter, namedtuple
import numpy as np
import torch
from torch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset,
                              RandomSampler, SequentialSampler, StackDataset, Subset, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler, default_collate, get_worker_info, random_split)
from torch.nn.utils.rnn import pad_sequence

rng = np.random.default_rng(0)
X = torch.from_numpy(rng.standard_normal((20, 3)).astype(np.float32))
y = torch.tensor([0] * 16 + [1] * 4)
ds = TensorDataset(X, y)
print("tensor_ds", len(ds), ds[3][1].item(), tuple(ds[3][0].shape), len(ds.tensors))
g = torch.Generator().manual_seed(42)
train, val, test = random_split(ds, [14, 4, 2], generator=g)
print("split", len(train), len(val), len(test), sorted(train.indices + val.indices + test.indices) == list(range(20)))
parts = random_split(range(11), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
print("fractions", [len(p) for p in parts], sorted(i for p in parts for i in p) == list(range(11)))
sub = Subset(ds, [0, 5, 17])
print("subset", len(sub), [int(b) for _, b in sub], sub.indices)
cat = ConcatDataset([ds, Subset(ds, range(5))])
print("concat", len(cat), cat.cumulative_sizes, cat[21][1].item(), torch.equal(cat[21][0], ds[1][0]))
print("add", len(ds + ds), type(ds + ds).__name__)
stack = StackDataset(ds, torch.arange(20))
print("stack", len(stack), stack[2][1].item(), StackDataset(a=ds, b=range(20))[4]["b"])

class_counts = Counter(y.tolist())
weights = [1.0 / class_counts[int(t)] for t in y]
sampler = WeightedRandomSampler(weights, num_samples=400, replacement=True, generator=torch.Generator().manual_seed(1))
drawn = Counter(int(y[i]) for i in sampler)
print("weighted", len(sampler), sorted(drawn), 0.35 < drawn[1] / 400 < 0.65)
print("weighted_zero", sorted(set(WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 30))))
nr = list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False))
print("no_replacement", sorted(nr))
print("batch_sampler", list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)),
      list(BatchSampler(range(7), 3, True)))
print("subset_random", sorted(SubsetRandomSampler([4, 2, 9])), len(SubsetRandomSampler([1, 2])))
rs = RandomSampler(ds, replacement=True, num_samples=7)
print("random_sampler", len(rs), len(list(rs)), sorted(RandomSampler(range(5))) == list(range(5)))

loader = DataLoader(ds, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(3))
seen = torch.cat([b for _, b in loader])
print("shuffled", len(loader), seen.sum().item(), sorted(seen.tolist()) == sorted(y.tolist()))
print("lengths", len(DataLoader(ds, batch_size=6)), len(DataLoader(ds, batch_size=6, drop_last=True)))
weighted_loader = DataLoader(ds, batch_size=5, sampler=WeightedRandomSampler(weights, 20))
print("weighted_loader", len(weighted_loader), [tuple(b[0].shape) for b in weighted_loader][-1])
print("batch_sampler_loader", [b[1].tolist() for b in DataLoader(ds, batch_sampler=BatchSampler(range(20), 8, True))])


class Sentences(Dataset):
    def __init__(self):
        self.data = [[1, 2, 3], [4, 5], [6], [7, 8, 9, 10]]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return {"ids": torch.tensor(self.data[i]), "label": i % 2, "text": f"s{i}"}


def pad_collate(batch):
    ids = [b["ids"] for b in batch]
    lengths = torch.tensor([len(x) for x in ids])
    return pad_sequence(ids, batch_first=True, padding_value=0), lengths, torch.tensor([b["label"] for b in batch])


for ids, lengths, labels in DataLoader(Sentences(), batch_size=2, collate_fn=pad_collate):
    print("padded", ids.tolist(), lengths.tolist(), labels.tolist())
b = default_collate([{"a": torch.tensor(1.0), "b": (1, "x"), "c": np.array([1, 2])},
                     {"a": torch.tensor(2.0), "b": (2, "y"), "c": np.array([3, 4])}])
print("collate_dict", b["a"].tolist(), b["b"][0].tolist(), b["b"][1], b["c"].tolist(), b["c"].dtype)
Point = namedtuple("Point", ["x", "y"])
pb = default_collate([Point(1, 2.5), Point(3, 4.5)])
print("collate_namedtuple", type(pb).__name__, pb.x.tolist(), pb.y.tolist(), pb.x.dtype, pb.y.dtype)
print("collate_scalars", default_collate([1, 2]).dtype, default_collate([1.5, 2.5]).dtype, default_collate(["a", "b"]))


class Stream(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = int(np.ceil((self.end - self.start) / float(info.num_workers)))
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


print("iterable", [b.tolist() for b in DataLoader(Stream(3, 10), batch_size=3)])
print("iterable_workers", sorted(int(v) for v in DataLoader(Stream(3, 10), num_workers=2)))
print("chain", list(ChainDataset([Stream(0, 3), Stream(10, 12)])))
print("workers_map", [b[1].tolist() for b in DataLoader(ds, batch_size=8, num_workers=2)])
