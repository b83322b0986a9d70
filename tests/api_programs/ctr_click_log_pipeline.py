"""A click-log pipeline: Criteo-style rows parsed to tensors, a collate that builds EmbeddingBag offsets, class-balanced
sampling, and the mistakes such pipelines make."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler, Subset, random_split

torch.manual_seed(0)

raw = [
    "1\t5\t\t3\t68fd1e64,80e26c9b\t0b153874",
    "0\t\t2\t0\t68fd1e64\t\t",
    "0\t1\t1\t11\t\t0b153874",
    "1\t0\t4\t1\t8cf07265,68fd1e64,ae4c531b\t5bfa8ab5",
    "0\t7\t\t2\tae4c531b\t0b153874",
    "0\t2\t3\t\t80e26c9b\t5bfa8ab5",
]
NUM_BUCKETS = 97


class ClickLog(Dataset):
    def __init__(self, lines):
        self.rows = [line.split("\t") for line in lines]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        r = self.rows[i] + [""] * (6 - len(self.rows[i]))
        label = torch.tensor(float(r[0]))
        dense = torch.tensor([float(v) if v else 0.0 for v in r[1:4]])
        dense = torch.log1p(dense)
        multi = torch.tensor([int(h, 16) % NUM_BUCKETS for h in r[4].split(",") if h], dtype=torch.long)
        single = torch.tensor([int(r[5], 16) % NUM_BUCKETS if r[5] else 0], dtype=torch.long)
        return dense, multi, single, label


def collate(batch):
    dense, multi, single, label = zip(*batch)
    lengths = torch.tensor([m.numel() for m in multi])
    offsets = torch.zeros_like(lengths)
    offsets[1:] = torch.cumsum(lengths, 0)[:-1]
    return torch.stack(dense), torch.cat(multi), offsets, torch.cat(single), torch.stack(label)


ds = ClickLog(raw)
print("len", len(ds), "item0", [t.tolist() for t in ds[0]])
print("hash", int("68fd1e64", 16), int("68fd1e64", 16) % NUM_BUCKETS)
dl = DataLoader(ds, batch_size=3, shuffle=False, collate_fn=collate)
for dense, multi, offsets, single, label in dl:
    print("batch", dense.round(decimals=4).tolist(), multi.tolist(), offsets.tolist(), single.tolist(), label.tolist())

# class-balanced sampling: weight each row by the inverse frequency of its label
labels = torch.stack([ds[i][3] for i in range(len(ds))]).long()
class_w = 1.0 / torch.bincount(labels).float()
sample_w = class_w[labels]
print("sample weights", sample_w.round(decimals=4).tolist())
sampler = WeightedRandomSampler(sample_w, num_samples=6, replacement=True, generator=torch.Generator().manual_seed(0))
print("sampler len", len(sampler), "weights dtype", sampler.weights.dtype)
drawn = list(sampler)
print("drawn", len(drawn), all(0 <= i < 6 for i in drawn))

train, valid = random_split(ds, [4, 2], generator=torch.Generator().manual_seed(1))
print("split sizes", len(train), len(valid), type(train).__name__, isinstance(train, Subset))
print("fractions", [len(s) for s in random_split(ds, [0.5, 0.5], generator=torch.Generator().manual_seed(1))])

# a tiny model over the collated batch
bag = nn.EmbeddingBag(NUM_BUCKETS, 4, mode="sum")
emb = nn.Embedding(NUM_BUCKETS, 4)
top = nn.Linear(3 + 4 + 4, 1)
opt = torch.optim.Adagrad(list(bag.parameters()) + list(emb.parameters()) + list(top.parameters()), lr=0.1)
full = DataLoader(ds, batch_size=6, collate_fn=collate)
for epoch in range(5):
    for dense, multi, offsets, single, label in full:
        logit = top(torch.cat([dense, bag(multi, offsets), emb(single)], 1)).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logit, label)
        opt.zero_grad()
        loss.backward()
        opt.step()
print("loss", round(loss.item(), 4))
print("adagrad state", sorted(opt.state[top.weight].keys()), opt.state[top.weight]["step"])

# mistakes
default_dl = DataLoader(ds, batch_size=3)
try:
    next(iter(default_dl))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    bag(multi, offsets.float())
except Exception as e:
    print(type(e).__name__, e)
try:
    bag(multi.view(1, -1), offsets)
except Exception as e:
    print(type(e).__name__, e)
try:
    WeightedRandomSampler(sample_w, num_samples=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    WeightedRandomSampler(sample_w.view(2, 3), num_samples=3)
except Exception as e:
    print(type(e).__name__, e)
try:
    list(WeightedRandomSampler(sample_w, num_samples=10, replacement=False))
except Exception as e:
    print(type(e).__name__, e)
try:
    random_split(ds, [4, 4])
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(ds, batch_size=2, shuffle=True, sampler=sampler)
except Exception as e:
    print(type(e).__name__, e)
try:
    int("zz", 16)
except Exception as e:
    print(type(e).__name__, e)
