"""Length bucketing as speech and NLP trainers implement it: a dataset of random-length sequences, a
BucketBatchSampler that sorts within seeded mega-batches and shuffles the batches (as fairseq/ESPnet do), a
token-budget batch sampler (max tokens per batch), a distributed-aware bucket sampler over DistributedSampler
shares, the padding waste with and without bucketing, sampler objects used as plain iterators of index lists,
and a DataLoader driven by each of them."""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler, Sampler
from torch.utils.data.distributed import DistributedSampler


class Utterances(Dataset):
    def __init__(self, n, generator):
        self.lengths = torch.randint(2, 30, (n,), generator=generator).tolist()

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        return torch.full((self.lengths[i],), i, dtype=torch.long)


class BucketBatchSampler(Sampler):
    """Shuffle, cut into mega-batches of `bucket * batch_size`, sort each by length, batch, shuffle batches."""

    def __init__(self, lengths, batch_size, bucket=4, drop_last=False, generator=None):
        self.lengths, self.batch_size, self.bucket = lengths, batch_size, bucket
        self.drop_last, self.generator = drop_last, generator

    def __iter__(self):
        order = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        mega = self.batch_size * self.bucket
        batches = []
        for s in range(0, len(order), mega):
            chunk = sorted(order[s:s + mega], key=lambda i: self.lengths[i])
            batches += [chunk[k:k + self.batch_size] for k in range(0, len(chunk), self.batch_size)]
        if self.drop_last:
            batches = [b for b in batches if len(b) == self.batch_size]
        for j in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[j]

    def __len__(self):
        n = len(self.lengths)
        mega = self.batch_size * self.bucket
        full, rest = divmod(n, mega)
        per = full * self.bucket
        if self.drop_last:
            return per + rest // self.batch_size
        return per + (rest + self.batch_size - 1) // self.batch_size


class TokenBudgetSampler(Sampler):
    """Batches of indices sorted by length whose padded size (count * longest) stays under max_tokens."""

    def __init__(self, lengths, max_tokens):
        self.lengths, self.max_tokens = lengths, max_tokens

    def __iter__(self):
        batch, longest = [], 0
        for i in sorted(range(len(self.lengths)), key=lambda i: (self.lengths[i], i)):
            new_longest = max(longest, self.lengths[i])
            if batch and new_longest * (len(batch) + 1) > self.max_tokens:
                yield batch
                batch, new_longest = [], self.lengths[i]
            batch.append(i)
            longest = new_longest
        if batch:
            yield batch


class DistributedBucketSampler(Sampler):
    """This rank's share from a DistributedSampler, then length-sorted batches within it."""

    def __init__(self, dataset, lengths, batch_size, num_replicas, rank, seed=0):
        self.inner = DistributedSampler(dataset, num_replicas=num_replicas, rank=rank, seed=seed)
        self.lengths, self.batch_size = lengths, batch_size

    def set_epoch(self, epoch):
        self.inner.set_epoch(epoch)

    def __iter__(self):
        share = sorted(self.inner, key=lambda i: (self.lengths[i], i))
        return iter([share[k:k + self.batch_size] for k in range(0, len(share), self.batch_size)])

    def __len__(self):
        return (len(self.inner) + self.batch_size - 1) // self.batch_size


def collate(batch):
    lengths = torch.tensor([len(b) for b in batch])
    return pad_sequence(batch, batch_first=True, padding_value=-1), lengths


def waste(loader):
    padded = real = 0
    for x, lengths in loader:
        padded += x.numel()
        real += int(lengths.sum())
    return padded, real, round(1 - real / padded, 4)


ds = Utterances(26, torch.Generator().manual_seed(0))
print("lengths", ds.lengths)
plain = DataLoader(ds, batch_size=4, shuffle=True, collate_fn=collate, generator=torch.Generator().manual_seed(1))
print("plain_waste", len(plain), waste(plain))

bucket = BucketBatchSampler(ds.lengths, 4, bucket=3, generator=torch.Generator().manual_seed(1))
print("bucket_len", len(bucket), len(list(bucket)))
batches = list(bucket)
print("bucket_batches", batches)
print("bucket_lengths", [[ds.lengths[i] for i in b] for b in batches])
loader = DataLoader(ds, batch_sampler=bucket, collate_fn=collate)
print("bucket_waste", len(loader), waste(loader))
first = next(iter(loader))
print("bucket_first", tuple(first[0].shape), first[1].tolist())
dropped = BucketBatchSampler(ds.lengths, 4, bucket=3, drop_last=True, generator=torch.Generator().manual_seed(1))
print("bucket_drop_last", len(dropped), sorted(len(b) for b in dropped))

budget = TokenBudgetSampler(ds.lengths, 60)
tb = list(budget)
print("budget_batches", [len(b) for b in tb], [max(ds.lengths[i] for i in b) * len(b) for b in tb])
print("budget_cover", sorted(i for b in tb for i in b) == list(range(len(ds))))
print("budget_waste", waste(DataLoader(ds, batch_sampler=budget, collate_fn=collate)))

for rank in range(2):
    s = DistributedBucketSampler(ds, ds.lengths, 5, num_replicas=2, rank=rank, seed=3)
    s.set_epoch(1)
    print("dist_bucket", rank, len(s), [[ds.lengths[i] for i in b] for b in s])

it = iter(BatchSampler(RandomSampler(range(9), generator=torch.Generator().manual_seed(4)), 4, False))
print("iterator_of_lists", next(it), next(it), next(it))
gen = (list(range(k, k + 3)) for k in (0, 6, 3))
print("generator_sampler", [b[1].tolist() for b in DataLoader(ds, batch_sampler=gen, collate_fn=collate)])
