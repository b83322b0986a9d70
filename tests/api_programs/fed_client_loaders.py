"""Per-client data pipelines in a simulation: Subset views of one TensorDataset, DataLoaders with seeded
generators and SubsetRandomSampler, Poisson sampling for DP with a variable batch size (batch_sampler), client
selection proportional to data size with torch.multinomial, and WeightedRandomSampler to rebalance a skewed client."""

import torch
from torch.utils.data import (BatchSampler, DataLoader, RandomSampler, Subset, SubsetRandomSampler, TensorDataset,
                              WeightedRandomSampler, random_split)

torch.manual_seed(0)
X = torch.arange(60, dtype=torch.float32).view(30, 2)
Y = torch.arange(30) % 3
ds = TensorDataset(X, Y)
client_idx = [list(range(0, 12)), list(range(12, 20)), list(range(20, 30))]
clients = [Subset(ds, idx) for idx in client_idx]
print("sizes", [len(c) for c in clients], clients[1][0][0].tolist(), clients[1].indices[:3])

g = torch.Generator().manual_seed(5)
loader = DataLoader(clients[0], batch_size=5, shuffle=True, generator=g)
print("epoch1", [b[1].tolist() for b in loader])
print("epoch2", [b[0][:, 0].int().tolist() for b in loader])
print("len", len(loader), len(DataLoader(clients[0], batch_size=5, drop_last=True)))

sub = SubsetRandomSampler(client_idx[2], generator=torch.Generator().manual_seed(3))
print("subset sampler", list(sub), len(sub))


class PoissonBatchSampler:
    """Each example joins each batch independently with probability q (Opacus's uniform-with-replacement)."""

    def __init__(self, n, q, steps, generator):
        self.n, self.q, self.steps, self.generator = n, q, steps, generator

    def __iter__(self):
        for _ in range(self.steps):
            mask = torch.rand(self.n, generator=self.generator) < self.q
            yield mask.nonzero().flatten().tolist()

    def __len__(self):
        return self.steps


pb = PoissonBatchSampler(len(ds), 0.2, 4, torch.Generator().manual_seed(8))
pl = DataLoader(ds, batch_sampler=pb)
print("poisson sizes", [len(b[1]) for b in pl], "expected", len(ds) * 0.2)
empty = DataLoader(ds, batch_sampler=[[]], collate_fn=lambda b: len(b))
print("empty batch", list(empty))

sizes = torch.tensor([len(c) for c in clients], dtype=torch.float32)
sel_gen = torch.Generator().manual_seed(21)
picks = torch.multinomial(sizes / sizes.sum(), 2, replacement=False, generator=sel_gen)
print("selected", picks.tolist(), "with replacement",
      torch.multinomial(sizes, 6, replacement=True, generator=sel_gen).tolist())

counts = torch.bincount(Y[client_idx[0]], minlength=3).float()
w = (1.0 / counts)[Y[client_idx[0]]]
wrs = WeightedRandomSampler(w, num_samples=12, replacement=True, generator=torch.Generator().manual_seed(4))
drawn = list(wrs)
print("weighted", drawn, torch.bincount(Y[client_idx[0]][drawn], minlength=3).tolist())

a, b = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
print("random_split", len(a), len(b), sorted(b.indices))
bs = BatchSampler(RandomSampler(clients[1], generator=torch.Generator().manual_seed(1)), batch_size=3, drop_last=False)
print("batch sampler", list(bs))
it = iter(DataLoader(clients[2], batch_size=4))
first = next(it)
print("first", type(first).__name__, first[0].shape, first[1].dtype)

try:
    DataLoader(ds, batch_size=4, batch_sampler=pb)
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(ds, shuffle=True, sampler=sub)
except Exception as e:
    print(type(e).__name__, e)
try:
    clients[0][12]
except Exception as e:
    print(type(e).__name__, e)
try:
    WeightedRandomSampler(w, num_samples=20, replacement=False)
    list(WeightedRandomSampler(w, num_samples=20, replacement=False))
except Exception as e:
    print(type(e).__name__, e)
try:
    random_split(ds, [20, 5])
except Exception as e:
    print(type(e).__name__, e)
