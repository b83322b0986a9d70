"""Multi-crop data loading as DINO/SwAV pipelines write it: a Dataset whose __getitem__ returns a list of
crops at two resolutions plus a label, default_collate transposing the list into per-crop batches, a custom
collate that groups crops by resolution, a RandomSampler with a seeded generator, a BatchSampler with drop_last,
worker_init_fn seeding, the errors default_collate raises for ragged crops, and a forward pass that batches each
resolution once."""

import torch

nn = torch.nn
F = torch.nn.functional
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler, default_collate  # noqa: E402

torch.manual_seed(0)


class MultiCropDataset(Dataset):
    def __init__(self, n, global_size=8, local_size=4, n_local=3, ragged=False):
        g = torch.Generator().manual_seed(3)
        self.images = torch.rand(n, 3, 12, 12, generator=g)
        self.labels = torch.arange(n) % 3
        self.global_size, self.local_size, self.n_local, self.ragged = global_size, local_size, n_local, ragged

    def __len__(self):
        return len(self.labels)

    def crop(self, img, size, offset):
        o = offset % (img.shape[-1] - size + 1)
        return img[:, o : o + size, o : o + size]

    def __getitem__(self, i):
        img = self.images[i]
        crops = [self.crop(img, self.global_size, i), self.crop(img, self.global_size, i + 2).flip(-1)]
        size = self.local_size + (i % 2 if self.ragged else 0)
        crops += [self.crop(img, size, i + k) for k in range(self.n_local)]
        return crops, int(self.labels[i])


ds = MultiCropDataset(10)
crops, label = ds[1]
print("item", [tuple(c.shape) for c in crops], label, crops[1].is_contiguous(), crops[2].is_contiguous())
sampler = RandomSampler(ds, generator=torch.Generator().manual_seed(7))
loader = DataLoader(
    ds, batch_size=4, sampler=sampler, drop_last=True, worker_init_fn=lambda wid: torch.manual_seed(100 + wid)
)
print("order", list(RandomSampler(ds, generator=torch.Generator().manual_seed(7))))
batches = list(loader)
views, y = batches[0]
print("collated", len(batches), type(views).__name__, len(views), [tuple(v.shape) for v in views][:3], y.tolist())


def multicrop_collate(batch):
    crops, labels = zip(*batch)
    by_size = {}
    for sample in crops:
        for c in sample:
            by_size.setdefault(c.shape[-1], []).append(c)
    return {k: torch.stack(v) for k, v in sorted(by_size.items(), reverse=True)}, torch.tensor(labels)


bs = BatchSampler(RandomSampler(ds, generator=torch.Generator().manual_seed(7)), batch_size=3, drop_last=False)
print("batch sampler", list(bs), len(bs))
loader2 = DataLoader(ds, batch_sampler=bs, collate_fn=multicrop_collate)
groups, labels = next(iter(loader2))
print("grouped", {k: tuple(v.shape) for k, v in groups.items()}, labels.tolist(), labels.dtype)

conv = nn.Conv2d(3, 4, 3, padding=1)
head = nn.Linear(4, 5)
sizes = torch.tensor([v.shape[-1] for v in views])
counts = torch.unique_consecutive(sizes, return_counts=True)
idx_crops = torch.cumsum(counts[1], 0)
start, outs = 0, []
for end in idx_crops.tolist():
    _out = conv(torch.cat(views[start:end]))
    outs.append(F.adaptive_avg_pool2d(_out, (1, 1)).flatten(1))
    start = end
feats = head(torch.cat(outs))
print(
    "forward",
    counts[0].tolist(),
    counts[1].tolist(),
    idx_crops.tolist(),
    feats.shape,
    [tuple(c.shape) for c in feats.chunk(5)][:2],
    round(feats.sum().item(), 4),
)

# nested structures through default_collate
print(
    "nested",
    default_collate(
        [{"v": [torch.ones(2), torch.zeros(2)], "id": 1.5}, {"v": [torch.ones(2), torch.ones(2)], "id": 2.5}]
    ),
)
print(default_collate([(torch.tensor(1), "a"), (torch.tensor(2), "b")]))
for fn in [
    lambda: next(iter(DataLoader(MultiCropDataset(4, ragged=True), batch_size=2))),
    lambda: default_collate([{"a": 1}, {"b": 2}]),
    lambda: default_collate([[torch.ones(2)], [torch.ones(2), torch.ones(2)]]),
    lambda: DataLoader(ds, batch_sampler=bs, batch_size=2),
    lambda: DataLoader(ds, sampler=sampler, shuffle=True),
    lambda: BatchSampler(sampler, batch_size=0, drop_last=False),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
