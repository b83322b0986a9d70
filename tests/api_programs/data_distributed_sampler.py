"""DistributedSampler as DDP training scripts use it without a process group: every rank's share with explicit
num_replicas/rank, shuffle on and off, seed and set_epoch, padding by repetition versus drop_last, lengths and
total sizes, a DataLoader per rank with a BatchSampler, the coverage across ranks, a tiny dataset padded several
times over, and the errors of a bad rank or a missing process group."""

import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def show_error(label, fn):
    try:
        print(label, "no error", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:120])


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)]), i % 2


ds = Squares(10)
for shuffle in (False, True):
    for world in (3, 4):
        shares = [list(DistributedSampler(ds, num_replicas=world, rank=r, shuffle=shuffle)) for r in range(world)]
        s0 = DistributedSampler(ds, num_replicas=world, rank=0, shuffle=shuffle)
        print("shares", shuffle, world, shares, len(s0), s0.total_size, s0.num_samples)

for world in (3, 4):
    shares = [list(DistributedSampler(ds, num_replicas=world, rank=r, drop_last=True)) for r in range(world)]
    s = DistributedSampler(ds, num_replicas=world, rank=0, drop_last=True)
    print("drop_last", world, shares, len(s), s.total_size)

sampler = DistributedSampler(ds, num_replicas=2, rank=1, seed=17)
for epoch in range(3):
    sampler.set_epoch(epoch)
    print("epoch", epoch, sampler.epoch, list(sampler))
sampler.set_epoch(0)
print("epoch_repeat", list(sampler))
print("seed_differs", list(DistributedSampler(ds, num_replicas=2, rank=1, seed=18)))
torch.manual_seed(123)
print("global_seed_ignored", list(DistributedSampler(ds, num_replicas=2, rank=1)))

union = []
for r in range(3):
    s = DistributedSampler(ds, num_replicas=3, rank=r, seed=5)
    s.set_epoch(2)
    union += list(s)
print("union", sorted(union), len(union), sorted(set(union)) == list(range(10)))

tiny = list(range(3))
print("tiny_padded", [list(DistributedSampler(tiny, num_replicas=8, rank=r, shuffle=False)) for r in range(8)])
print("tiny_shuffled", [list(DistributedSampler(tiny, num_replicas=7, rank=r, seed=1)) for r in range(7)])

tds = TensorDataset(torch.arange(13).float().unsqueeze(1), torch.arange(13) % 4)
torch.set_printoptions(precision=4)
for rank in range(2):
    s = DistributedSampler(tds, num_replicas=2, rank=rank, shuffle=True, seed=3)
    s.set_epoch(1)
    loader = DataLoader(tds, batch_size=3, sampler=s)
    batches = [(x.squeeze(1).tolist(), y.tolist()) for x, y in loader]
    print("loader_rank", rank, len(loader), batches)
    bs = BatchSampler(s, batch_size=4, drop_last=True)
    print("batch_sampler_rank", rank, len(bs), list(bs))
    means = torch.stack([x.mean() for x, _ in DataLoader(tds, batch_size=2, sampler=s, drop_last=True)])
    print("means", rank, means)

s = DistributedSampler(ds, num_replicas=4, rank=3, shuffle=False, drop_last=False)
print("attrs", s.num_replicas, s.rank, s.shuffle, s.seed, s.drop_last, s.epoch, type(s).__mro__[1].__name__)
show_error("bad_rank", lambda: DistributedSampler(ds, num_replicas=2, rank=2))
show_error("negative_rank", lambda: DistributedSampler(ds, num_replicas=2, rank=-1))
show_error("no_group", lambda: DistributedSampler(ds))
show_error("no_group_rank_given", lambda: DistributedSampler(ds, rank=0))
show_error("loader_shuffle_and_sampler",
           lambda: DataLoader(ds, sampler=DistributedSampler(ds, num_replicas=2, rank=0), shuffle=True))
