"""An MS MARCO-style training-triples pipeline: a Dataset of (query, positive, negatives) token lists, a collate
function that pads and builds attention masks, masked mean pooling (by hand and with torch.masked), a
WeightedRandomSampler over query difficulty, and the warnings and errors such pipelines print."""

import warnings

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, Subset, WeightedRandomSampler, default_collate, random_split

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Triples(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.rows = [
            (
                torch.randint(1, 50, (int(torch.randint(2, 5, (1,), generator=g)),), generator=g),
                torch.randint(1, 50, (int(torch.randint(3, 7, (1,), generator=g)),), generator=g),
                [torch.randint(1, 50, (int(torch.randint(3, 7, (1,), generator=g)),), generator=g) for _ in range(2)],
            )
            for _ in range(n)
        ]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        q, p, negs = self.rows[i]
        return {"qid": i, "query": q, "passages": [p] + negs}


def collate(batch):
    q = pad_sequence([b["query"] for b in batch], batch_first=True)
    ps = [p for b in batch for p in b["passages"]]
    p = pad_sequence(ps, batch_first=True)
    return {"qid": torch.tensor([b["qid"] for b in batch]), "q": q, "q_mask": q != 0, "p": p, "p_mask": p != 0}


ds = Triples(10)
print("item", ds[0]["qid"], ds[0]["query"].tolist(), [t.shape[0] for t in ds[0]["passages"]])
train, dev = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(2))
print("split", len(train), len(dev), sorted(dev.indices))
weights = torch.linspace(0.1, 1.0, len(train))
sampler = WeightedRandomSampler(weights, num_samples=6, replacement=True, generator=torch.Generator().manual_seed(3))
print("sampled", list(sampler))
dl = DataLoader(train, batch_size=3, sampler=sampler, collate_fn=collate)
emb = torch.nn.Embedding(50, 4, padding_idx=0)
for b in dl:
    h = emb(b["p"])
    m = b["p_mask"].unsqueeze(-1).float()
    pooled = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
    print("batch", b["qid"].tolist(), tuple(b["q"].shape), tuple(b["p"].shape), b["p_mask"].sum(1).tolist())
    print("pooled", pooled.shape, round(pooled.sum().item(), 4))

# masked mean pooling with torch.masked
h = emb(b["p"]).detach()
mask = b["p_mask"].unsqueeze(-1).expand_as(h)
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    mt = torch.masked.masked_tensor(h, mask)
    lp = torch.log1p(torch.abs(mt))
    mp = mt.mean(1)
print("warned", len(rec) > 0, rec[0].category.__name__ if rec else None, str(rec[0].message)[:40] if rec else None)
print("masked mean", torch.allclose(mp.to_tensor(0.0), pooled.detach()))
print("log1p abs", type(lp).__name__, lp.get_mask().sum().item(), round(lp.to_tensor(0.0).sum().item(), 4))
print("torch.masked.mean", torch.masked.mean(h, 1, mask=mask).shape, torch.masked.sum(h, 1, mask=mask)[0, :2])

# default collate of dict items, and its errors on ragged tensors
print("default_collate", default_collate([{"a": 1, "b": torch.ones(2)}, {"a": 2, "b": torch.zeros(2)}]))
sub = Subset(ds, [0, 3])
for fn in (
    lambda: next(iter(DataLoader(sub, batch_size=2))),
    lambda: random_split(ds, [5, 6]),
    lambda: WeightedRandomSampler(torch.tensor([0.5, -1.0]), 2),
    lambda: WeightedRandomSampler([1.0, 1.0], 3, replacement=False).__iter__().__next__(),
    lambda: DataLoader(train, batch_size=2, sampler=sampler, shuffle=True),
    lambda: collate([]),
):
    try:
        r = fn()
        print("ok", type(r).__name__)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:110])
