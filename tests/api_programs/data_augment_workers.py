"""An image-augmentation data pipeline as vision training scripts write it with plain tensor ops: per-sample
transforms drawing from torch's global generator inside workers (random resized crop by randint, horizontal flip,
brightness/contrast jitter, random erasing), deterministic per-index augmentation from a Generator seeded with
the index, a mixup/cutmix collate_fn drawing its permutation and Beta lambda from a seeded Generator, loading with
num_workers=0 and 2 giving identical batches where the draws are per-index, and the batch statistics."""

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_printoptions(precision=4)


def random_resized_crop(img, size, generator=None):
    _, h, w = img.shape
    ch = int(torch.randint(h // 2, h + 1, (1,), generator=generator))
    cw = int(torch.randint(w // 2, w + 1, (1,), generator=generator))
    top = int(torch.randint(0, h - ch + 1, (1,), generator=generator))
    left = int(torch.randint(0, w - cw + 1, (1,), generator=generator))
    crop = img[:, top:top + ch, left:left + cw]
    return F.interpolate(crop[None], size=(size, size), mode="bilinear", align_corners=False)[0]


def jitter(img, generator=None):
    b = 1 + (torch.rand(1, generator=generator) - 0.5) * 0.4
    c = 1 + (torch.rand(1, generator=generator) - 0.5) * 0.4
    mean = img.mean()
    return ((img - mean) * c + mean) * b


def random_erase(img, generator=None, p=0.5):
    if torch.rand(1, generator=generator) < p:
        _, h, w = img.shape
        y = int(torch.randint(0, h - 1, (1,), generator=generator))
        x = int(torch.randint(0, w - 1, (1,), generator=generator))
        img = img.clone()
        img[:, y:y + 2, x:x + 2] = 0.0
    return img


class Images(Dataset):
    def __init__(self, n, per_index_seed=None):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 3, 8, 8, generator=g)
        self.labels = torch.arange(n) % 4
        self.per_index_seed = per_index_seed

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        g = None if self.per_index_seed is None else torch.Generator().manual_seed(self.per_index_seed + i)
        img = random_resized_crop(self.images[i], 6, g)
        if torch.rand(1, generator=g) < 0.5:
            img = img.flip(-1)
        img = random_erase(jitter(img, g), g)
        return img, self.labels[i]


class MixCollate:
    def __init__(self, seed, alpha=0.4, num_classes=4):
        self.g = torch.Generator().manual_seed(seed)
        self.beta = torch.distributions.Beta(torch.tensor([alpha]), torch.tensor([alpha]))
        self.num_classes = num_classes

    def __call__(self, batch):
        x = torch.stack([b[0] for b in batch])
        y = F.one_hot(torch.stack([b[1] for b in batch]), self.num_classes).float()
        perm = torch.randperm(len(batch), generator=self.g)
        lam = float(torch.rand(1, generator=self.g)) * 0.5 + 0.5
        if torch.rand(1, generator=self.g) < 0.5:
            return lam * x + (1 - lam) * x[perm], lam * y + (1 - lam) * y[perm], "mixup", perm.tolist()
        cut = int(round((1 - lam) ** 0.5 * x.shape[-1]))
        x = x.clone()
        x[:, :, :cut, :cut] = x[perm][:, :, :cut, :cut]
        area = 1 - cut * cut / (x.shape[-1] * x.shape[-2])
        return x, area * y + (1 - area) * y[perm], "cutmix", perm.tolist()


det = Images(8, per_index_seed=100)
inproc = list(DataLoader(det, batch_size=4))
workers = list(DataLoader(det, batch_size=4, num_workers=2))
print("per_index_same", all(torch.equal(a[0], b[0]) for a, b in zip(inproc, workers)))
for x, y in inproc:
    print("det_batch", tuple(x.shape), y.tolist(), x.mean(dim=(1, 2, 3)))
print("det_sample", det[3][0][0])

torch.manual_seed(0)
glob = Images(8)
for x, y in DataLoader(glob, batch_size=4):
    print("global_inproc", x.sum(dim=(1, 2, 3)))
g = torch.Generator().manual_seed(5)
for x, y in DataLoader(glob, batch_size=4, num_workers=2, generator=g):
    print("global_workers", x.sum(dim=(1, 2, 3)))

mix = MixCollate(seed=3)
for x, y, kind, perm in DataLoader(det, batch_size=4, collate_fn=mix):
    print("mix", kind, perm, y, x.std().item() > 0)
torch.manual_seed(1)
print("beta_sample", mix.beta.sample((3,)).squeeze(-1))
x, y = next(iter(DataLoader(det, batch_size=8)))
print("stats", x.mean(dim=(0, 2, 3)), x.std(dim=(0, 2, 3)), x.amax().item() > 1.0)


def channels_last_collate(batch):
    nhwc = torch.stack([torch.full((64, 64, 3), float(i)) for _, i in batch])
    return nhwc.permute(0, 3, 1, 2), torch.stack([b[1] for b in batch])


for nw in (0, 2):
    xb, yb = next(iter(DataLoader(det, batch_size=4, num_workers=nw, collate_fn=channels_last_collate)))
    print("channels_last", nw, tuple(xb.shape), xb.stride(), xb.is_contiguous(),
          xb.is_contiguous(memory_format=torch.channels_last), xb[:, :, 0, 0].tolist())
