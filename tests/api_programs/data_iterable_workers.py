"""IterableDatasets as streaming pipelines write them: a line-file stream sharded by get_worker_info (id,
num_workers, seed, dataset copy) run with num_workers=0 and 2, interleaved worker order in the output, a
worker_init_fn that narrows each worker's copy of the dataset, per-worker seeds from a loader generator,
batch_size=None, an infinite generator cut with itertools.islice, a shuffle buffer with a seeded generator,
ChainDataset and the length and sampler errors of iterable datasets."""

import itertools
import math

import torch
from torch.utils.data import ChainDataset, DataLoader, IterableDataset, get_worker_info


def show_error(label, fn):
    try:
        print(label, "no error", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:120])


class Lines(IterableDataset):
    """Yields (line number, text) pairs; each worker reads every num_workers-th line."""

    def __init__(self, lines):
        self.lines = lines

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(wid, len(self.lines), nw):
            yield i, self.lines[i], wid


class Range(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))


def split_range(worker_id):
    info = get_worker_info()
    ds = info.dataset
    total_start, total_end = ds.start, ds.end
    per = int(math.ceil((total_end - total_start) / float(info.num_workers)))
    ds.start = total_start + worker_id * per
    ds.end = min(ds.start + per, total_end)


class WorkerSeed(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        yield info.id, info.seed - torch.initial_seed(), torch.initial_seed() % 1000, info.num_workers


lines = [f"line-{k}" for k in range(7)]
print("in_process", [(int(i), t, int(w)) for i, t, w in DataLoader(Lines(lines), batch_size=None)])
with_workers = list(DataLoader(Lines(lines), batch_size=None, num_workers=2))
print("two_workers", [(int(i), t, int(w)) for i, t, w in with_workers])
batched = list(DataLoader(Lines(lines), batch_size=2, num_workers=2))
print("two_workers_batched", [(b[0].tolist(), b[1], b[2].tolist()) for b in batched])

print("range_inproc", [b.tolist() for b in DataLoader(Range(3, 10), batch_size=2)])
print("range_init_fn", [b.tolist() for b in DataLoader(Range(3, 10), batch_size=2, num_workers=2,
                                                        worker_init_fn=split_range)])
print("range_duplicated", sorted(int(x) for x in DataLoader(Range(0, 3), num_workers=2)))

seeds = list(DataLoader(WorkerSeed(), batch_size=None, num_workers=2, generator=torch.Generator().manual_seed(7)))
print("worker_seeds", [(int(a), int(b), int(c), int(d)) for a, b, c, d in seeds])
torch.manual_seed(7)
seeds2 = list(DataLoader(WorkerSeed(), batch_size=None, num_workers=2))
print("worker_seeds_global", [(int(a), int(b), int(c)) for a, b, c, _ in seeds2])
print("main_worker_info", get_worker_info())


class Counter(IterableDataset):
    def __iter__(self):
        return itertools.count()


print("islice", [b.tolist() for b in itertools.islice(DataLoader(Counter(), batch_size=3), 3)])


class ShuffleBuffer(IterableDataset):
    def __init__(self, source, size, seed):
        self.source, self.size, self.seed = source, size, seed

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        buf = []
        for x in self.source:
            buf.append(x)
            if len(buf) == self.size:
                yield buf.pop(int(torch.randint(len(buf), (1,), generator=g)))
        while buf:
            yield buf.pop(int(torch.randint(len(buf), (1,), generator=g)))


print("shuffle_buffer", [b.tolist() for b in DataLoader(ShuffleBuffer(range(12), 4, 0), batch_size=5)])
chain = ChainDataset([Range(0, 2), ShuffleBuffer(range(10, 14), 2, 1), Range(20, 22)])
print("chain", list(chain), [b.tolist() for b in DataLoader(chain, batch_size=4, drop_last=True)])

show_error("len_iterable", lambda: len(DataLoader(Counter(), batch_size=2)))
show_error("len_chain", lambda: len(chain))
show_error("shuffle_iterable", lambda: DataLoader(Range(0, 3), shuffle=True))
show_error("sampler_iterable", lambda: DataLoader(Range(0, 3), sampler=[0, 1, 2]))
show_error("batch_sampler_iterable", lambda: DataLoader(Range(0, 3), batch_sampler=[[0, 1]]))
show_error("getitem_iterable", lambda: Range(0, 3)[0])


class Sized(IterableDataset):
    def __iter__(self):
        return iter(range(5))

    def __len__(self):
        return 5


dl = DataLoader(Sized(), batch_size=2)
print("sized_len", len(dl), len(DataLoader(Sized(), batch_size=2, drop_last=True)), [b.tolist() for b in dl])
