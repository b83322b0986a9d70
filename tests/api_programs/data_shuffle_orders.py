"""Seeded shuffles printed exactly, as reproducibility checks in training scripts print them: RandomSampler with
and without a generator (under torch.manual_seed), with replacement, with num_samples above and below the length,
SubsetRandomSampler, WeightedRandomSampler with and without replacement, random_split by lengths and by
fractions, shuffled DataLoaders across epochs, re-seeding, and the generator state a loader consumes."""

import torch
from torch.utils.data import (BatchSampler, DataLoader, RandomSampler, SubsetRandomSampler, TensorDataset,
                              WeightedRandomSampler, random_split)

torch.manual_seed(0)
print("global_random", list(RandomSampler(range(10))))
print("global_random_again", list(RandomSampler(range(10))))
torch.manual_seed(0)
print("reseeded_same", list(RandomSampler(range(10))))

g = torch.Generator().manual_seed(7)
rs = RandomSampler(range(8), generator=g)
print("gen_epoch0", list(rs))
print("gen_epoch1", list(rs))
print("gen_state_changed", g.initial_seed(), torch.Generator().manual_seed(7).get_state().equal(g.get_state()))

print("replacement", list(RandomSampler(range(6), replacement=True, num_samples=40,
                                         generator=torch.Generator().manual_seed(1))))
print("more_samples", list(RandomSampler(range(4), num_samples=11, generator=torch.Generator().manual_seed(2))))
print("fewer_samples", list(RandomSampler(range(9), num_samples=3, generator=torch.Generator().manual_seed(3))))

torch.manual_seed(5)
print("subset_global", list(SubsetRandomSampler([10, 20, 30, 40, 50])))
print("subset_gen", list(SubsetRandomSampler(torch.tensor([3, 1, 4, 1, 5]).tolist(),
                                              generator=torch.Generator().manual_seed(4))))

w = [0.1, 0.9, 0.4, 0.0, 2.0, 0.6]
print("weighted_repl", list(WeightedRandomSampler(w, 15, generator=torch.Generator().manual_seed(8))))
print("weighted_norepl", list(WeightedRandomSampler(w, 5, replacement=False,
                                                     generator=torch.Generator().manual_seed(8))))
torch.manual_seed(9)
print("weighted_global", list(WeightedRandomSampler(torch.tensor([1.0, 3.0, 1.0]), 12)))

ds = TensorDataset(torch.arange(12).float(), torch.arange(12) % 3)
for seed in (0, 42):
    parts = random_split(ds, [6, 4, 2], generator=torch.Generator().manual_seed(seed))
    print("split", seed, [p.indices for p in parts])
parts = random_split(range(10), [0.7, 0.2, 0.1], generator=torch.Generator().manual_seed(42))
print("split_frac", [list(p) for p in parts])
parts = random_split(range(7), [0.34, 0.33, 0.33], generator=torch.Generator().manual_seed(1))
print("split_frac_remainder", [len(p) for p in parts], [p.indices for p in parts])
torch.manual_seed(3)
print("split_default_gen", [p.indices for p in random_split(range(6), [3, 3])])

torch.manual_seed(1234)
loader = DataLoader(ds, batch_size=5, shuffle=True)
for epoch in range(2):
    print("loader_epoch", epoch, [b[0].long().tolist() for b in loader])
gl = torch.Generator().manual_seed(99)
loader = DataLoader(ds, batch_size=4, shuffle=True, generator=gl, drop_last=True)
print("loader_gen", [b[1].tolist() for b in loader], len(loader))
print("loader_gen_next", next(iter(loader))[0].tolist())

torch.manual_seed(0)
before = torch.rand(1).item()
torch.manual_seed(0)
_ = list(DataLoader(range(5), shuffle=True))
after = torch.rand(1).item()
print("loader_consumes_default", round(before, 4), round(after, 4), before == after)
torch.manual_seed(0)
_ = list(DataLoader(range(5), shuffle=False))
print("sequential_consumes", round(torch.rand(1).item(), 4))

bs = BatchSampler(RandomSampler(range(10), generator=torch.Generator().manual_seed(11)), 3, drop_last=False)
print("batch_sampler", list(bs), len(bs))
print("randperm_match", torch.randperm(8, generator=torch.Generator().manual_seed(7)).tolist())
