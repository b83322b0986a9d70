"""Samplers and dataset combinators as training libraries build them: seeded RandomSampler with and without
replacement (lengths and coverage only), BatchSampler over custom samplers, a bucketing batch sampler,
random_split by counts and fractions with a Generator (determinism across calls), Subset of Subset,
ConcatDataset indexing with negatives, ChainDataset, StackDataset of tuples and dicts, TensorDataset, and the
errors these raise on bad arguments."""

import numpy as np
import torch
from torch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset,
                              RandomSampler, Sampler, SequentialSampler, StackDataset, Subset, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler, random_split)


def show_error(label, fn):
    try:
        out = fn()
        print(label, "no error", out)
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:110])


class Lengths(Dataset):
    def __init__(self, lens):
        self.lens = lens

    def __len__(self):
        return len(self.lens)

    def __getitem__(self, i):
        return torch.arange(self.lens[i])


class BucketBatchSampler(Sampler):
    """Groups indices of similar length into batches, largest first."""

    def __init__(self, lens, batch_size):
        self.lens, self.batch_size = lens, batch_size

    def __iter__(self):
        order = sorted(range(len(self.lens)), key=lambda i: (-self.lens[i], i))
        for k in range(0, len(order), self.batch_size):
            yield order[k:k + self.batch_size]

    def __len__(self):
        return (len(self.lens) + self.batch_size - 1) // self.batch_size


rng = np.random.default_rng(3)
lens = rng.integers(1, 9, size=11).tolist()
print("lens", lens)
ds = Lengths(lens)
bb = BucketBatchSampler(lens, 4)
loader = DataLoader(ds, batch_sampler=bb, collate_fn=lambda b: torch.nn.utils.rnn.pad_sequence(b, batch_first=True))
print("buckets", len(loader), [tuple(x.shape) for x in loader])

g = torch.Generator().manual_seed(11)
rs = RandomSampler(range(10), generator=g)
first = list(rs)
print("random", len(rs), sorted(first) == list(range(10)), first == list(RandomSampler(range(10),
      generator=torch.Generator().manual_seed(11))))
rr = RandomSampler(range(4), replacement=True, num_samples=9, generator=torch.Generator().manual_seed(0))
draws = list(rr)
print("replacement", len(rr), len(draws), all(0 <= d < 4 for d in draws), rr.replacement, rr.num_samples)
print("more_than_len", len(RandomSampler(range(3), num_samples=7)), len(list(RandomSampler(range(3), num_samples=7))))
print("sequential", list(SequentialSampler("abcd")), len(SequentialSampler(range(6))))
print("batch_lens", len(BatchSampler(range(10), 3, False)), len(BatchSampler(range(10), 3, True)),
      [len(b) for b in BatchSampler(RandomSampler(range(10)), 4, False)])
sr = SubsetRandomSampler([7, 3, 5], generator=torch.Generator().manual_seed(2))
print("subset_random", len(sr), sorted(sr), sr.indices)
wr = WeightedRandomSampler(torch.tensor([0.0, 0.0, 5.0]), 4)
print("weighted_single", list(wr), wr.weights.dtype, wr.num_samples)

full = TensorDataset(torch.arange(20).float().view(10, 2), torch.arange(10))
a1 = [s.indices for s in random_split(full, [6, 4], generator=torch.Generator().manual_seed(42))]
a2 = [s.indices for s in random_split(full, [6, 4], generator=torch.Generator().manual_seed(42))]
print("split_repeat", a1 == a2, [len(x) for x in a1], sorted(a1[0] + a1[1]) == list(range(10)))
fr = random_split(range(10), [0.33, 0.33, 0.34], generator=torch.Generator().manual_seed(1))
print("fractions", [len(p) for p in fr], type(fr[0]).__name__, type(fr[0].dataset).__name__)
fr2 = random_split(range(7), [0.5, 0.5], generator=torch.Generator().manual_seed(1))
print("fractions_odd", [len(p) for p in fr2])
inner = Subset(full, [9, 8, 7, 6, 5])
outer = Subset(inner, [0, 2, 4])
print("subset_of_subset", len(outer), [int(outer[i][1]) for i in range(3)], outer[1][0].tolist())
print("subset_list_index", [int(y) for _, y in Subset(full, torch.tensor([1, 3]))])

cat = ConcatDataset([range(3), range(10, 14), [100]])
print("concat", len(cat), cat.cumulative_sizes, cat[0], cat[3], cat[7], cat[-1], cat[-5])
print("concat_loader", [b.tolist() for b in DataLoader(cat, batch_size=3)])


class Stream(IterableDataset):
    def __init__(self, n, base):
        self.n, self.base = n, base

    def __iter__(self):
        return iter(range(self.base, self.base + self.n))


chain = ChainDataset([Stream(2, 0), Stream(3, 50)])
print("chain", list(chain), [b.tolist() for b in DataLoader(chain, batch_size=2)])
print("iter_add", list(Stream(2, 0) + Stream(1, 9)), type(Stream(1, 0) + Stream(1, 0)).__name__)
st = StackDataset(full, torch.arange(10) * 3)
print("stack_tuple", len(st), st[4][1].item(), st[4][0][1].item())
sd = StackDataset(img=full, extra=range(10))
print("stack_dict", sorted(sd[2].keys()), sd[2]["extra"], [sorted(b.keys()) for b in DataLoader(sd, batch_size=5)][0])
print("stack_getitems", len(st.__getitems__([1, 2])) if hasattr(st, "__getitems__") else "none")
print("tensor_ds", len(full), full[3][0].tolist(), full[3][1].item(), len(TensorDataset(torch.zeros(2))[1]))

show_error("split_sum", lambda: random_split(range(5), [2, 2]))
show_error("split_frac_sum", lambda: random_split(range(5), [0.5, 0.6]))
show_error("tensor_mismatch", lambda: TensorDataset(torch.zeros(3), torch.zeros(4)))
show_error("stack_mismatch", lambda: StackDataset(range(3), range(4)))
show_error("stack_mixed", lambda: StackDataset(range(3), b=range(3)))
show_error("stack_empty", lambda: StackDataset())
show_error("concat_empty", lambda: ConcatDataset([]))
show_error("concat_iterable", lambda: ConcatDataset([Stream(1, 0)]))
show_error("concat_range", lambda: cat[8])
show_error("concat_neg", lambda: cat[-9])
show_error("random_zero", lambda: RandomSampler(range(3), num_samples=0))
show_error("random_repl_type", lambda: RandomSampler(range(3), replacement=1))
show_error("batch_size0", lambda: BatchSampler(range(3), 0, False))
show_error("batch_drop_last", lambda: BatchSampler(range(3), 2, "no"))
show_error("weighted_neg", lambda: list(WeightedRandomSampler([-1.0, 2.0], 2)))
show_error("weighted_n", lambda: WeightedRandomSampler([1.0, 2.0], 0))
show_error("weighted_norepl", lambda: list(WeightedRandomSampler([1.0, 1.0], 3, replacement=False)))
show_error("weighted_shape", lambda: WeightedRandomSampler([[1.0, 2.0]], 2))
show_error("abstract_iterable", lambda: IterableDataset())
