"""An image-text pair pipeline: a Dataset returning (image tensor, token ids), a byte-level toy tokenizer with
truncation and the EOT kept, a collate that pads with pad_sequence and builds attention masks, a DataLoader with a
seeded generator, drop_last and a custom sampler, random crops with a seeded generator, and normalisation with the
CLIP mean/std; plus the errors of bad batches."""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, Subset, WeightedRandomSampler, random_split

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

MEAN = torch.tensor([0.48145466, 0.4578275, 0.40821073]).view(3, 1, 1)
STD = torch.tensor([0.26862954, 0.26130258, 0.27577711]).view(3, 1, 1)
SOT, EOT, PAD = 256, 257, 0


def tokenize(text, context_length=12):
    ids = [SOT] + list(text.encode("utf-8")) + [EOT]
    if len(ids) > context_length:
        ids = ids[:context_length]
        ids[-1] = EOT
    return torch.tensor(ids, dtype=torch.long)


class PairDataset(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.images = torch.rand(n, 3, 10, 10, generator=g)
        self.captions = [f"img {i} " + "x" * (i % 7) for i in range(n)]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = (self.images[i] - MEAN) / STD
        return img, tokenize(self.captions[i])


def collate(batch):
    imgs, toks = zip(*batch)
    lengths = torch.tensor([len(t) for t in toks])
    padded = pad_sequence(list(toks), batch_first=True, padding_value=PAD)
    mask = torch.arange(padded.shape[1])[None, :] < lengths[:, None]
    return torch.stack(imgs), padded, mask


ds = PairDataset(10)
img, tok = ds[3]
print("item", tuple(img.shape), round(img.mean().item(), 4), tok.tolist())
print("long caption", tokenize("a very long caption indeed").tolist(), tokenize("é").tolist())
print("eot index", tokenize("abc").argmax().item())

loader = DataLoader(ds, batch_size=4, shuffle=True, collate_fn=collate, generator=torch.Generator().manual_seed(0))
for imgs, toks, mask in loader:
    print(tuple(imgs.shape), tuple(toks.shape), mask.sum(1).tolist(), toks.argmax(-1).tolist())
print("len", len(loader), len(DataLoader(ds, batch_size=4, drop_last=True)))

default = next(iter(DataLoader(Subset(ds, [0, 7]), batch_size=2, collate_fn=lambda b: b)))
print("list collate", len(default), type(default[0]).__name__)
try:
    next(iter(DataLoader(ds, batch_size=3)))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])

train, val = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
print("split", len(train), len(val), sorted(val.indices))
weights = torch.tensor([1.0 if i % 2 else 3.0 for i in range(len(ds))])
sampler = WeightedRandomSampler(weights, num_samples=6, replacement=True, generator=torch.Generator().manual_seed(3))
print("weighted", list(sampler))

# seeded random resized crop + flip as tensor ops
g = torch.Generator().manual_seed(7)
x = ds.images[0]
top, left = torch.randint(0, 4, (2,), generator=g).tolist()
crop = x[:, top : top + 6, left : left + 6]
crop = F.interpolate(crop[None], size=(8, 8), mode="bilinear", align_corners=False, antialias=True)[0]
flip = torch.rand(1, generator=g).item() < 0.5
if flip:
    crop = crop.flip(-1)
print("crop", top, left, flip, tuple(crop.shape), round(crop.sum().item(), 4))
print(
    "bicubic",
    round(F.interpolate(x[None], size=(7, 7), mode="bicubic", align_corners=False).clamp(0, 1).sum().item(), 4),
)
to_uint8 = (x * 255).round().clamp(0, 255).to(torch.uint8)
print("uint8", to_uint8.dtype, to_uint8[0, 0, :4].tolist(), round((to_uint8.float() / 255 - x).abs().max().item(), 4))
print("denorm", torch.allclose(img * STD + MEAN, ds.images[3], atol=1e-6))

try:
    pad_sequence([torch.ones(2, 3), torch.ones(3, 2)], batch_first=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    random_split(ds, [5, 6])
except Exception as e:
    print(type(e).__name__, e)
try:
    WeightedRandomSampler(weights, num_samples=20, replacement=False)
    list(WeightedRandomSampler(weights, num_samples=20, replacement=False))
except Exception as e:
    print(type(e).__name__, e)
