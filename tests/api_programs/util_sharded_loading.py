"""Data sharding as multi-process training code does it without a process group: DistributedSampler with
explicit num_replicas/rank (padding, drop_last, shuffle with set_epoch), a custom Sampler that shards an
IterableDataset's stream per rank and per worker, a worker-seeded augmentation that is repeatable, DataLoader
state across epochs (iter/next by hand, StopIteration), a generator-fed sampler, and collate of variable-length
token sequences into padded batches with attention masks."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler, IterableDataset, Sampler, get_worker_info


class Tokens(Dataset):
    def __init__(self, n):
        rng = np.random.default_rng(11)
        self.items = [rng.integers(1, 50, size=int(rng.integers(2, 7))).tolist() for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return {"ids": self.items[i], "idx": i}


def pad_batch(batch):
    longest = max(len(b["ids"]) for b in batch)
    ids = torch.zeros(len(batch), longest, dtype=torch.long)
    mask = torch.zeros(len(batch), longest, dtype=torch.bool)
    for row, b in enumerate(batch):
        ids[row, : len(b["ids"])] = torch.tensor(b["ids"])
        mask[row, : len(b["ids"])] = True
    return {"input_ids": ids, "attention_mask": mask, "idx": torch.tensor([b["idx"] for b in batch])}


ds = Tokens(10)
for rank in range(3):
    s = DistributedSampler(ds, num_replicas=3, rank=rank, shuffle=False)
    print("dist", rank, len(s), list(s), s.total_size, s.num_samples)
for rank in range(3):
    s = DistributedSampler(ds, num_replicas=3, rank=rank, shuffle=False, drop_last=True)
    print("dist_drop", rank, len(s), list(s))
covered = []
for rank in range(2):
    s = DistributedSampler(ds, num_replicas=2, rank=rank, shuffle=True, seed=5)
    s.set_epoch(3)
    covered += list(s)
print("dist_shuffle_cover", sorted(covered) == list(range(10)), len(covered))
e0 = DistributedSampler(ds, num_replicas=2, rank=0, seed=1)
e0.set_epoch(0)
first = list(e0)
e0.set_epoch(0)
print("epoch_repeat", first == list(e0), e0.epoch)
for bad in (dict(num_replicas=2, rank=2), dict(num_replicas=2, rank=-1)):
    try:
        DistributedSampler(ds, **bad)
    except ValueError as e:
        print("dist_error", e)

loader = DataLoader(ds, batch_size=4, sampler=DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False),
                    collate_fn=pad_batch)
for b in loader:
    print("padded", tuple(b["input_ids"].shape), b["attention_mask"].sum(1).tolist(), b["idx"].tolist())
print("loader_len", len(loader), len(loader.sampler))

it = iter(DataLoader(ds, batch_size=6, collate_fn=pad_batch))
first_batch = next(it)
second = next(it)
try:
    next(it)
except StopIteration:
    print("manual_iter", first_batch["idx"].tolist(), second["idx"].tolist(), "stop")


class EveryKth(Sampler):
    def __init__(self, n, k, offset):
        self.n, self.k, self.offset = n, k, offset

    def __iter__(self):
        return iter(range(self.offset, self.n, self.k))

    def __len__(self):
        return len(range(self.offset, self.n, self.k))


print("custom_sampler", [b["idx"].tolist() for b in DataLoader(ds, batch_size=2, sampler=EveryKth(10, 3, 1),
                                                               collate_fn=pad_batch)])


class ShardedStream(IterableDataset):
    """Each (rank, worker) pair takes every (world * workers)-th record."""

    def __init__(self, n, rank, world):
        self.n, self.rank, self.world = n, rank, world

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (0, 1) if info is None else (info.id, info.num_workers)
        shard, shards = self.rank * nw + wid, self.world * nw
        for i in range(shard, self.n, shards):
            yield i, shard


seen = []
for rank in range(2):
    for n_workers in (0, 2):
        got = [(int(i), int(sh)) for i, sh in DataLoader(ShardedStream(12, rank, 2), batch_size=None,
                                                            num_workers=n_workers)]
        seen.append((rank, n_workers, sorted(i for i, _ in got), sorted({sh for _, sh in got})))
for row in seen:
    print("stream", *row)
print("stream_cover", sorted(i for r in seen if r[1] == 2 for i in r[2]) == list(range(12)))


class Jitter(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        base = 0 if info is None else info.seed % 1000
        rng = np.random.default_rng(base + i)
        return torch.tensor(rng.standard_normal(2), dtype=torch.float32)


def seeded_run():
    g = torch.Generator().manual_seed(123)
    return torch.cat(list(DataLoader(Jitter(), batch_size=3, num_workers=2, generator=g)))


r1, r2 = seeded_run(), seeded_run()
print("worker_seed_repeatable", torch.equal(r1, r2), tuple(r1.shape))
gen_loader = DataLoader(range(8), batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(9))
o1 = [b.tolist() for b in gen_loader]
o2 = [b.tolist() for b in gen_loader]
print("epochs_differ", o1 != o2, sorted(sum(o1, [])) == list(range(8)), [len(b) for b in o1])
again = [b.tolist() for b in DataLoader(range(8), batch_size=3, shuffle=True,
                                        generator=torch.Generator().manual_seed(9))]
print("same_seed_same_first_epoch", again == o1)
