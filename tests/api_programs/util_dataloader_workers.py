"""torch.utils.data with worker processes as library code drives it: an IterableDataset sharded by
get_worker_info across two workers, worker_init_fn seeding per-worker state, persistent_workers across
epochs, prefetch_factor, batch_size=None, a map-style dataset with workers, and the ValueErrors of bad
DataLoader arguments."""

import math

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info


class RangeStream(IterableDataset):
    """Yields start..end-1, each worker taking a contiguous shard."""

    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = self.start, self.end
        else:
            per = int(math.ceil((self.end - self.start) / float(info.num_workers)))
            lo = self.start + info.id * per
            hi = min(lo + per, self.end)
        for v in range(lo, hi):
            yield torch.tensor([v, -1 if info is None else info.id])


class Squares(Dataset):
    def __init__(self, n):
        self.data = np.arange(n, dtype=np.float32) ** 2

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        info = get_worker_info()
        return {"x": torch.tensor(self.data[i]), "idx": i, "worker": -1 if info is None else info.id}


def tag_worker(worker_id):
    info = get_worker_info()
    info.dataset.tag = f"w{worker_id}of{info.num_workers}"


class Tagged(IterableDataset):
    def __init__(self):
        self.tag = "main"

    def __iter__(self):
        info = get_worker_info()
        wid = 0 if info is None else info.id
        yield self.tag, wid, info is not None and info.seed == info.seed


def main():
    print("main_info", get_worker_info())
    single = [b.tolist() for b in DataLoader(RangeStream(3, 10), batch_size=2)]
    print("single", single)
    two = list(DataLoader(RangeStream(3, 10), batch_size=2, num_workers=2))
    print("two_batches", len(two), [tuple(b.shape) for b in two])
    vals = sorted(int(v) for b in two for v in b[:, 0])
    workers = sorted({int(w) for b in two for w in b[:, 1]})
    print("two_values", vals, "workers", workers)
    print("sharded_no_batch", len(list(DataLoader(RangeStream(0, 4), num_workers=2, batch_size=None))))

    loader = DataLoader(Squares(10), batch_size=4, num_workers=2)
    out = list(loader)
    print("map_workers", len(loader), [b["idx"].tolist() for b in out])
    print("map_values", [b["x"].tolist() for b in out][-1], out[0]["x"].dtype,
          sorted({int(w) for b in out for w in b["worker"]}))

    pl = DataLoader(Squares(6), batch_size=3, num_workers=2, persistent_workers=True, prefetch_factor=3)
    e1 = [b["idx"].tolist() for b in pl]
    e2 = [b["idx"].tolist() for b in pl]
    print("persistent", e1, e1 == e2, pl.persistent_workers, pl.prefetch_factor)
    print("default_prefetch", DataLoader(Squares(2)).prefetch_factor,
          DataLoader(Squares(2), num_workers=2).prefetch_factor)

    tagged = list(DataLoader(Tagged(), batch_size=None, num_workers=2, worker_init_fn=tag_worker))
    print("init_fn", sorted(tagged))
    print("no_workers_tag", list(DataLoader(Tagged(), batch_size=None)))

    nb = list(DataLoader(Squares(3), batch_size=None))
    print("batch_none", [type(b["x"]).__name__ for b in nb], nb[1]["idx"], nb[2]["x"].item())
    nb2 = list(DataLoader(Squares(4), batch_size=None, num_workers=2))
    print("batch_none_workers", [b["idx"] for b in nb2], [b["x"].shape for b in nb2][0])

    g = torch.Generator().manual_seed(5)
    sh = DataLoader(Squares(8), batch_size=3, shuffle=True, num_workers=2, generator=g)
    idx = sorted(i for b in sh for i in b["idx"].tolist())
    print("shuffle_workers", idx == list(range(8)), len(sh))

    errors = [
        lambda: DataLoader(Squares(4), prefetch_factor=2),
        lambda: DataLoader(Squares(4), num_workers=-1),
        lambda: DataLoader(Squares(4), timeout=-1),
        lambda: DataLoader(Squares(4), persistent_workers=True),
        lambda: DataLoader(RangeStream(0, 4), shuffle=True),
        lambda: DataLoader(Squares(4), batch_size=2, drop_last=True, batch_sampler=[[0, 1]]),
        lambda: DataLoader(Squares(4), shuffle=True, sampler=[0, 1]),
        lambda: DataLoader(Squares(4), batch_size=None, drop_last=True),
    ]
    for make in errors:
        try:
            make()
            print("no error")
        except Exception as e:
            print(type(e).__name__, str(e).splitlines()[0])
    try:
        len(DataLoader(RangeStream(0, 4)))
    except TypeError as e:
        print("TypeError", e)


if __name__ == "__main__":
    main()
