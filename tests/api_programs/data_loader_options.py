"""DataLoader's arguments as users combine them: len() under batch_size/drop_last/samplers, batch_size=None with
a sampler yielding index lists (a dataset batched by __getitem__), auto-collation switched off, the attributes a
loader keeps (sampler and batch_sampler types, drop_last, generator), prefetch_factor/persistent_workers/timeout
argument checks, multiprocessing_context, pin_memory on CPU, in_order, iterator reuse and the ValueErrors of
exclusive options."""

import torch
from torch.utils.data import (BatchSampler, DataLoader, Dataset, RandomSampler, Sampler, SequentialSampler,
                              TensorDataset)


def show_error(label, fn):
    try:
        print(label, "no error", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:130])


class Table(Dataset):
    """A dataset that is indexed with lists of rows at once (as a fast batched reader would)."""

    def __init__(self, n):
        self.x = torch.arange(n * 2, dtype=torch.float32).view(n, 2)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], torch.as_tensor(idx)


class Chunks(Sampler):
    def __init__(self, n, size):
        self.n, self.size = n, size

    def __iter__(self):
        for s in range(0, self.n, self.size):
            yield list(range(s, min(s + self.size, self.n)))

    def __len__(self):
        return (self.n + self.size - 1) // self.size


ds = TensorDataset(torch.arange(10).float())
for bs in (1, 3, 4, 10, 11):
    print("len", bs, len(DataLoader(ds, batch_size=bs)), len(DataLoader(ds, batch_size=bs, drop_last=True)))
print("len_none", len(DataLoader(ds, batch_size=None)))
print("len_sampler", len(DataLoader(ds, batch_size=3, sampler=RandomSampler(ds, num_samples=7))))
print("len_batch_sampler", len(DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, True))))

t = Table(7)
loader = DataLoader(t, batch_size=None, sampler=Chunks(7, 3))
print("chunk_batches", len(loader), [(x.tolist(), i.tolist()) for x, i in loader])
print("no_autocollate", [type(b).__name__ for b in DataLoader(range(3), batch_size=None)],
      list(DataLoader(range(3), batch_size=None)))
print("custom_collate_none", list(DataLoader(range(4), batch_size=None, collate_fn=lambda v: v * 10)))

dl = DataLoader(ds, batch_size=4, shuffle=True)
print("attrs", dl.batch_size, dl.drop_last, type(dl.sampler).__name__, type(dl.batch_sampler).__name__,
      dl.num_workers, dl.pin_memory, dl.timeout, dl.prefetch_factor, dl.persistent_workers, dl.generator)
dl = DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), 3, False))
print("attrs_batch_sampler", dl.batch_size, dl.drop_last, type(dl.sampler).__name__,
      type(dl.batch_sampler.sampler).__name__)
dl = DataLoader(ds, batch_size=None)
print("attrs_none", dl.batch_size, dl.batch_sampler, type(dl.sampler).__name__, dl.collate_fn.__name__)
dl = DataLoader(ds)
print("attrs_default", dl.collate_fn.__name__, dl.worker_init_fn, dl.multiprocessing_context, dl.in_order)
dl = DataLoader(ds, num_workers=2, prefetch_factor=3, persistent_workers=True)
print("attrs_workers", dl.prefetch_factor, dl.persistent_workers, dl.num_workers)

pinned = next(iter(DataLoader(ds, batch_size=2, pin_memory=False)))[0]
print("pin_false", pinned.is_pinned(), pinned.tolist())
it = iter(DataLoader(ds, batch_size=4))
print("iter_next", next(it)[0].tolist(), next(it)[0].tolist(), len(it))
print("iter_type", type(it).__name__)
print("exhausted", [b[0].tolist() for b in it])
g = torch.Generator().manual_seed(0)
dl = DataLoader(ds, batch_size=5, shuffle=True, generator=g)
print("epochs_differ", [b[0].long().tolist() for b in dl], [b[0].long().tolist() for b in dl])
print("generator_kept", dl.generator is g, dl.sampler.generator is g)

show_error("prefetch_no_workers", lambda: DataLoader(ds, prefetch_factor=2))
show_error("persistent_no_workers", lambda: DataLoader(ds, persistent_workers=True))
show_error("negative_workers", lambda: DataLoader(ds, num_workers=-1))
show_error("negative_timeout", lambda: DataLoader(ds, timeout=-1))
show_error("prefetch_negative", lambda: DataLoader(ds, num_workers=1, prefetch_factor=-1))
show_error("batch_sampler_and_size", lambda: DataLoader(ds, batch_size=2, batch_sampler=[[0, 1]]))
show_error("batch_sampler_and_shuffle", lambda: DataLoader(ds, shuffle=True, batch_sampler=[[0, 1]]))
show_error("batch_sampler_and_drop_last", lambda: DataLoader(ds, drop_last=True, batch_sampler=[[0, 1]]))
show_error("none_and_drop_last", lambda: DataLoader(ds, batch_size=None, drop_last=True))
show_error("sampler_and_shuffle", lambda: DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True))
show_error("batch_size_zero", lambda: DataLoader(ds, batch_size=0))
show_error("batch_size_float", lambda: DataLoader(ds, batch_size=2.5))
show_error("bad_context", lambda: DataLoader(ds, num_workers=1, multiprocessing_context="nope"))
show_error("context_no_workers", lambda: DataLoader(ds, multiprocessing_context="spawn"))
show_error("set_batch_size", lambda: setattr(DataLoader(ds), "batch_size", 3))
show_error("shuffle_string", lambda: len(DataLoader(ds, shuffle="yes")))
show_error("replacement_str", lambda: RandomSampler(ds, replacement="no"))
show_error("num_samples_zero", lambda: RandomSampler(ds, num_samples=0))
show_error("bs_drop_last_int", lambda: BatchSampler(range(4), 2, 1))
print("list_batch_sampler", [b[0].tolist() for b in DataLoader(ds, batch_sampler=[[0, 9], [4]])])
print("list_sampler", [b[0].tolist() for b in DataLoader(ds, sampler=[9, 8, 7], batch_size=2)])
