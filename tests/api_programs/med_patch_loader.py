"""A patch-based volumetric data pipeline: a Dataset of (image, label, spacing) cases, foreground-oversampled patch
centres from nonzero/argwhere with a seeded generator, per-sample dicts collated by the default collate (nested
tuples, numpy arrays, strings), a custom collate that pads to the largest volume, and a seeded DataLoader order."""

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Subset, default_collate


class Cases(Dataset):
    def __init__(self, n=5):
        g = torch.Generator().manual_seed(0)
        self.cases = []
        for i in range(n):
            shape = (4 + i % 2, 6, 6 + i)
            img = torch.randn(shape, generator=g)
            lab = torch.zeros(shape, dtype=torch.uint8)
            lab[1:3, 2:4, 2 : 4 + i % 3] = 1
            self.cases.append((img, lab, np.array([2.5, 0.7, 0.7 + 0.1 * i]), f"case_{i:03d}"))

    def __len__(self):
        return len(self.cases)

    def __getitem__(self, i):
        img, lab, spacing, name = self.cases[i]
        return {
            "image": img[None],
            "label": lab[None].long(),
            "spacing": spacing,
            "id": name,
            "shape": tuple(img.shape),
        }


class Patches(Dataset):
    def __init__(self, base, patch=(4, 4, 4), fg_prob=0.5, seed=0):
        self.base, self.patch, self.fg_prob = base, patch, fg_prob
        self.g = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        s = self.base[i]
        img, lab = s["image"], s["label"]
        size = torch.tensor(img.shape[1:])
        half = torch.tensor(self.patch) // 2
        if torch.rand((), generator=self.g) < self.fg_prob:
            fg = torch.argwhere(lab[0] > 0)
            centre = fg[torch.randint(len(fg), (), generator=self.g)]
        else:
            centre = torch.stack([torch.randint(int(d), (), generator=self.g) for d in size])
        lo = torch.clamp(centre - half, min=0)
        lo = torch.minimum(lo, size - torch.tensor(self.patch)).clamp(min=0)
        sl = tuple(slice(int(a), int(a) + p) for a, p in zip(lo, self.patch))
        return img[(slice(None), *sl)], lab[(slice(None), *sl)], lo


ds = Cases()
s0 = ds[0]
print("sample", {k: (tuple(v.shape) if hasattr(v, "shape") else v) for k, v in s0.items()})
meta = [{k: v for k, v in ds[i].items() if k not in ("image", "label")} for i in (0, 2)]
small = default_collate(meta)
print("collate meta", sorted(small), small["spacing"].dtype, small["spacing"].tolist(), small["id"], small["shape"])
same = default_collate([ds[0], ds[0]])
print("collate tensors", tuple(same["image"].shape), same["label"].dtype, type(same["shape"]).__name__)
try:
    default_collate([ds[0], ds[1]])
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])


def pad_collate(samples):
    shapes = torch.tensor([s["image"].shape[1:] for s in samples])
    target = shapes.amax(0)
    imgs, labs, masks = [], [], []
    for s in samples:
        diff = (target - torch.tensor(s["image"].shape[1:])).tolist()
        pad = [0, diff[2], 0, diff[1], 0, diff[0]]
        imgs.append(F.pad(s["image"], pad, value=0.0))
        labs.append(F.pad(s["label"], pad, value=255))
        masks.append(F.pad(torch.ones_like(s["label"], dtype=torch.bool), pad, value=False))
    return torch.stack(imgs), torch.stack(labs), torch.stack(masks), [s["id"] for s in samples]


loader = DataLoader(ds, batch_size=2, shuffle=True, collate_fn=pad_collate, generator=torch.Generator().manual_seed(3))
for imgs, labs, masks, ids in loader:
    print("padded", tuple(imgs.shape), labs.dtype, (labs == 255).sum().item(), masks.sum().item(), ids)

pl = DataLoader(Patches(ds, fg_prob=1.0), batch_size=5)
img_p, lab_p, lo = next(iter(pl))
print("fg patches", tuple(img_p.shape), lab_p.sum(dim=(1, 2, 3, 4)).tolist(), lo.tolist())
print("fg fraction", [round(v, 4) for v in lab_p.float().mean(dim=(1, 2, 3, 4)).tolist()])
pr = Patches(ds, fg_prob=0.0, seed=5)
print("random patch origins", [pr[i][2].tolist() for i in range(3)])
sub = Subset(ds, [4, 0])
print("subset", [s["id"] for s in sub], len(sub))
nz = torch.nonzero(ds[1]["label"][0], as_tuple=True)
print("nonzero tuple", [t.tolist()[:4] for t in nz], torch.count_nonzero(ds[1]["label"]).item())
bb_lo = torch.stack([t.min() for t in nz])
bb_hi = torch.stack([t.max() for t in nz]) + 1
print("bbox", bb_lo.tolist(), bb_hi.tolist())
