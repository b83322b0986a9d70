"""Samplers as libraries write them, typed the way their code is: Sampler[int] and Sampler[List[int]] subclasses
(a P-by-K class-balanced batch sampler for metric learning, detectron2's RepeatFactorTrainingSampler with
stochastic rounding, an infinite sampler cut with islice, a resumable sampler with state_dict, timm's
MultiEpochsDataLoader _RepeatSampler), Dataset[Tuple[Tensor, int]] with a transform, DataLoader[Any] annotations,
ConcatDataset.cumsum, and the errors of a sampler without __len__."""

# ruff: noqa: UP006, UP035  (typing.List/Dict/Tuple/Iterator, as the libraries' code spells them)

import itertools
import math
from typing import Any, Dict, Iterator, List, Tuple

import torch
from torch.utils.data import BatchSampler, ConcatDataset, DataLoader, Dataset, RandomSampler, Sampler


def show_error(label, fn):
    try:
        print(label, "no error", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:120])


class Labelled(Dataset[Tuple[torch.Tensor, int]]):
    def __init__(self, labels: List[int], transform=None):
        self.labels = labels
        self.transform = transform

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int) -> Tuple[torch.Tensor, int]:
        x = torch.tensor([float(i), float(self.labels[i])])
        return (self.transform(x) if self.transform else x), self.labels[i]


class PKSampler(Sampler[List[int]]):
    """Each batch: P classes, K samples of each (with replacement when a class is small)."""

    def __init__(self, labels: List[int], p: int, k: int, generator: torch.Generator):
        self.by_class: Dict[int, List[int]] = {}
        for i, c in enumerate(labels):
            self.by_class.setdefault(c, []).append(i)
        self.classes = sorted(self.by_class)
        self.p, self.k, self.generator = p, k, generator
        self.batches = len(labels) // (p * k)

    def __iter__(self) -> Iterator[List[int]]:
        for _ in range(self.batches):
            chosen = torch.randperm(len(self.classes), generator=self.generator)[: self.p].tolist()
            batch = []
            for ci in chosen:
                pool = self.by_class[self.classes[ci]]
                if len(pool) >= self.k:
                    picks = torch.randperm(len(pool), generator=self.generator)[: self.k].tolist()
                else:
                    picks = torch.randint(len(pool), (self.k,), generator=self.generator).tolist()
                batch += [pool[j] for j in picks]
            yield batch

    def __len__(self) -> int:
        return self.batches


class RepeatFactorSampler(Sampler[int]):
    """Repeat rare-class samples: factor max(1, sqrt(t / freq)), rounded stochastically each epoch."""

    def __init__(self, labels: List[int], threshold: float, seed: int):
        counts: Dict[int, int] = {}
        for c in labels:
            counts[c] = counts.get(c, 0) + 1
        freq = {c: n / len(labels) for c, n in counts.items()}
        self.factors = torch.tensor([max(1.0, math.sqrt(threshold / freq[c])) for c in labels])
        self.int_part = torch.trunc(self.factors)
        self.frac_part = self.factors - self.int_part
        self.g = torch.Generator().manual_seed(seed)

    def _indices(self) -> List[int]:
        rands = torch.rand(len(self.frac_part), generator=self.g)
        reps = self.int_part + (rands < self.frac_part).float()
        idx = [i for i, r in enumerate(reps.long().tolist()) for _ in range(r)]
        return [idx[j] for j in torch.randperm(len(idx), generator=self.g).tolist()]

    def __iter__(self) -> Iterator[int]:
        return iter(self._indices())


class InfiniteSampler(Sampler[int]):
    def __init__(self, size: int, seed: int):
        self.size, self.seed = size, seed

    def __iter__(self) -> Iterator[int]:
        g = torch.Generator().manual_seed(self.seed)
        while True:
            yield from torch.randperm(self.size, generator=g).tolist()


class ResumableSampler(Sampler[int]):
    def __init__(self, size: int, seed: int):
        self.size, self.seed, self.epoch, self.consumed = size, seed, 0, 0

    def __iter__(self) -> Iterator[int]:
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        order = torch.randperm(self.size, generator=g).tolist()
        for i in order[self.consumed:]:
            self.consumed += 1
            yield i
        self.epoch, self.consumed = self.epoch + 1, 0

    def __len__(self) -> int:
        return self.size - self.consumed

    def state_dict(self) -> Dict[str, int]:
        return {"epoch": self.epoch, "consumed": self.consumed}

    def load_state_dict(self, state: Dict[str, int]) -> None:
        self.epoch, self.consumed = state["epoch"], state["consumed"]


class _RepeatSampler:
    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


class MultiEpochsDataLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._DataLoader__initialized = False
        self.batch_sampler = _RepeatSampler(self.batch_sampler)
        self._DataLoader__initialized = True
        self.iterator = super().__iter__()

    def __len__(self):
        return len(self.batch_sampler.sampler)

    def __iter__(self):
        for _ in range(len(self)):
            yield next(self.iterator)


labels = [0] * 9 + [1] * 5 + [2] * 3 + [3] * 2 + [4] * 1
ds = Labelled(labels, transform=lambda x: x * 0.5)
print("typed_dataset", len(ds), ds[10], Labelled.__orig_bases__[0])

pk = PKSampler(labels, p=3, k=2, generator=torch.Generator().manual_seed(0))
loader: DataLoader[Any] = DataLoader(ds, batch_sampler=pk)
for x, y in loader:
    print("pk_batch", y.tolist(), x[:, 0].tolist())
print("pk_len", len(pk), len(loader))

rf = RepeatFactorSampler(labels, threshold=0.3, seed=1)
print("repeat_factors", [round(f, 4) for f in rf.factors.tolist()])
for epoch in range(2):
    idx = list(rf)
    print("repeat_epoch", epoch, len(idx), [labels[i] for i in idx])

inf = DataLoader(ds, batch_size=4, sampler=InfiniteSampler(len(ds), seed=2))
print("infinite", [b[1].tolist() for b in itertools.islice(inf, 7)])
show_error("infinite_len", lambda: len(inf))

rs = ResumableSampler(8, seed=3)
it = iter(rs)
first = [next(it) for _ in range(3)]
state = rs.state_dict()
print("resume_first", first, state, len(rs))
rs2 = ResumableSampler(8, seed=3)
rs2.load_state_dict(state)
print("resume_rest", list(rs2), rs2.state_dict(), list(rs2)[:4])

me = MultiEpochsDataLoader(ds, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(4))
for epoch in range(2):
    print("multi_epoch", epoch, len(me), [b[1].tolist() for b in me])

bs = BatchSampler(RandomSampler(ds, generator=torch.Generator().manual_seed(5)), batch_size=7, drop_last=True)
print("batch_sampler_typed", [b for b in bs], len(bs))
print("cumsum", ConcatDataset.cumsum([ds, range(3), []]), ConcatDataset([ds, ds]).cumulative_sizes)
print("generic_alias", Sampler[int], Dataset[Tuple[torch.Tensor, int]].__origin__ is Dataset)


class NoLen(Sampler[int]):
    def __iter__(self) -> Iterator[int]:
        return iter([3, 1, 2])


print("nolen_iter", [b[1].tolist() for b in DataLoader(ds, batch_size=2, sampler=NoLen())])
show_error("nolen_len", lambda: len(DataLoader(ds, batch_size=2, sampler=NoLen())))
show_error("nolen_batch_sampler", lambda: len(BatchSampler(NoLen(), 2, False)))
