"""DataLoader workers when things go wrong or are configured explicitly: an exception inside a worker's
__getitem__ re-raised in the main process with its type and the worker's traceback note, a bad collate_fn,
a worker_init_fn that fails, multiprocessing_context="spawn" and "fork" with a module-level dataset,
the get_worker_info fields seen inside workers, in_order=False delivery, and len() of a DataLoader over an
IterableDataset that defines __len__ (with the warning PyTorch gives when more samples arrive)."""

import re
import warnings

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info


class Fragile(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"corrupt record {i}")
        return torch.tensor([float(i)])


class InfoProbe(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "id": info.id, "num_workers": info.num_workers, "same_ds": info.dataset is self,
                "seed_is_int": isinstance(info.seed, int), "repr": repr(info).split("(")[0]}


class Counted(IterableDataset):
    def __init__(self, n, claimed):
        self.n, self.claimed = n, claimed

    def __len__(self):
        return self.claimed

    def __iter__(self):
        return iter(range(self.n))


def bad_init(worker_id):
    raise RuntimeError(f"init failed in worker {worker_id}")


def first_line(e):
    return str(e).strip().splitlines()[0]


def main():
    try:
        list(DataLoader(Fragile(), batch_size=2, num_workers=2))
    except ValueError as e:
        msg = str(e)
        print("worker_error", type(e).__name__, "Caught ValueError in DataLoader worker process" in msg,
              "corrupt record 5" in msg)
    try:
        list(DataLoader(Fragile(), batch_size=2))
    except ValueError as e:
        print("main_error", type(e).__name__, first_line(e))

    def broken_collate(batch):
        return torch.stack(batch) / "x"

    try:
        list(DataLoader(Fragile(), batch_size=2, collate_fn=broken_collate))
    except TypeError as e:
        print("collate_error", type(e).__name__)
    try:
        list(DataLoader(Fragile(), batch_size=2, num_workers=1, worker_init_fn=bad_init))
    except RuntimeError as e:
        print("init_error", type(e).__name__, "init failed in worker 0" in str(e))

    for ctx in ("spawn", "fork"):
        workers = 1 if ctx == "spawn" else 2  # a spawned worker imports everything afresh: one is enough
        loader = DataLoader(InfoProbe(), batch_size=None, num_workers=workers, multiprocessing_context=ctx)
        rows = list(loader)
        print("context", ctx, sorted(r["i"] for r in rows), sorted({r["id"] for r in rows}),
              {r["num_workers"] for r in rows}, {r["same_ds"] for r in rows}, {r["seed_is_int"] for r in rows},
              {r["repr"] for r in rows}, loader.multiprocessing_context.get_start_method())
    try:
        DataLoader(InfoProbe(), num_workers=1, multiprocessing_context="nope")
    except ValueError as e:
        print("bad_context", first_line(e)[:60])

    rng = np.random.default_rng(0)
    data = torch.from_numpy(rng.standard_normal((10, 2)).astype(np.float32))
    unordered = list(DataLoader(data, batch_size=3, num_workers=2, in_order=False))
    print("in_order_false", sorted(round(v, 4) for b in unordered for v in b[:, 0].tolist())
          == sorted(round(v, 4) for v in data[:, 0].tolist()), len(unordered))

    print("iterable_len", len(DataLoader(Counted(5, 5), batch_size=2)), len(DataLoader(Counted(5, 5), batch_size=2,
                                                                                    drop_last=True)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        over = DataLoader(Counted(6, 3), batch_size=None)
        claimed = len(over)
        got = list(over)
    texts = [str(x.message) for x in w]
    print("len_warning", claimed, len(got), len(texts), re.sub("0x[0-9a-f]+", "ADDR", texts[0]) if texts else None)
    print("timeout_attr", DataLoader(Fragile(), num_workers=1, timeout=5).timeout, DataLoader(Fragile()).timeout)


if __name__ == "__main__":
    main()
