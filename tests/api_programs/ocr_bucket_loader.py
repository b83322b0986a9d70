"""A text-line data pipeline as OCR training repositories write it: a Dataset of synthetic glyph strips with
varying widths, a width-bucketing BatchSampler that sorts within chunks with a stable argsort, a collate_fn that
right-pads images with F.pad and returns concatenated CTC targets with int32 lengths, a DataLoader with
batch_sampler and a seeded generator, and the CTC input lengths derived from each image's width after a stride-4
backbone."""

import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, Sampler, default_collate
F = torch.nn.functional

CHARS = "0123456789"
GLYPH_W = 4


class GlyphStrips(Dataset):
    """Each sample renders its digits as 8 x 4 blocks whose fill encodes the digit."""

    def __init__(self, n, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.texts = ["".join(CHARS[i] for i in torch.randint(0, 10, (int(k),), generator=g).tolist())
                      for k in torch.randint(1, 6, (n,), generator=g)]

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        t = self.texts[i]
        img = torch.zeros(1, 8, GLYPH_W * len(t) + 2)
        for j, ch in enumerate(t):
            img[0, 1:7, 1 + j * GLYPH_W : 1 + (j + 1) * GLYPH_W - 1] = (int(ch) + 1) / 10
        label = torch.tensor([CHARS.index(c) + 1 for c in t], dtype=torch.long)
        return img, label, t


class WidthBucketSampler(Sampler):
    def __init__(self, widths, batch_size, chunk, generator):
        self.widths = torch.as_tensor(widths)
        self.batch_size, self.chunk, self.generator = batch_size, chunk, generator

    def __iter__(self):
        perm = torch.randperm(len(self.widths), generator=self.generator)
        for start in range(0, len(perm), self.chunk):
            idx = perm[start : start + self.chunk]
            order = torch.argsort(self.widths[idx], descending=True, stable=True)
            idx = idx[order]
            for b in range(0, len(idx), self.batch_size):
                yield idx[b : b + self.batch_size].tolist()

    def __len__(self):
        return sum((min(self.chunk, len(self.widths) - s) + self.batch_size - 1) // self.batch_size
                   for s in range(0, len(self.widths), self.chunk))


def collate(batch):
    imgs, labels, texts = zip(*batch)
    widths = torch.tensor([im.shape[-1] for im in imgs])
    W = int(widths.max())
    W = (W + 3) // 4 * 4
    images = torch.stack([F.pad(im, (0, W - im.shape[-1]), value=0.0) for im in imgs])
    targets = torch.cat(labels)
    target_lengths = torch.tensor([len(l) for l in labels], dtype=torch.int32)
    input_lengths = torch.div(widths + 3, 4, rounding_mode="floor").to(torch.int32)
    return images, targets, input_lengths, target_lengths, list(texts)


ds = GlyphStrips(11)
print("texts", ds.texts)
widths = [ds[i][0].shape[-1] for i in range(len(ds))]
print("widths", widths)
sampler = WidthBucketSampler(widths, batch_size=3, chunk=6, generator=torch.Generator().manual_seed(1))
print("len", len(sampler), "batches", list(sampler))
loader = DataLoader(ds, batch_sampler=WidthBucketSampler(widths, 3, 6, torch.Generator().manual_seed(1)),
                    collate_fn=collate)
for images, targets, il, tl, texts in loader:
    print(tuple(images.shape), targets.tolist(), il.tolist(), tl.tolist(), tl.dtype, texts)
    assert bool((il >= tl).all())

plain = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(2), collate_fn=collate,
                   drop_last=True)
print("plain batches", len(plain), [b[4] for b in plain])
bs = BatchSampler(range(7), batch_size=3, drop_last=False)
print("BatchSampler", list(bs), len(bs))
print("default_collate", default_collate([(torch.ones(2), 1, "a"), (torch.zeros(2), 2, "b")]))
try:
    default_collate([ds[0], ds[2]])
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    DataLoader(ds, batch_size=2, batch_sampler=bs)
except Exception as e:
    print(type(e).__name__, e)
try:
    DataLoader(ds, shuffle=True, batch_sampler=bs)
except Exception as e:
    print(type(e).__name__, e)
