"""Atom and bond featurisation for a molecular property model, and the DataLoader collate that batches graphs:
F.one_hot of element, degree and hybridisation codes (num_classes inferred and given), torch.bucketize of formal
charges and ring sizes, Embedding with padding_idx and max_norm, EmbeddingBag over ring memberships with offsets,
a collate function that shifts edge indices by cumulative atom counts, and the one_hot errors."""

import torch
from torch.utils.data import DataLoader, Dataset
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
ELEMENTS = {"H": 1, "C": 2, "N": 3, "O": 4, "F": 5}

MOLS = [
    ("CH3OH", ["C", "O", "H", "H", "H", "H"], [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5)], [0, 0, 0, 0, 0, 0], 0.3),
    ("HCN", ["H", "C", "N"], [(0, 1), (1, 2)], [0, 0, 0], 1.2),
    ("NH4+", ["N", "H", "H", "H", "H"], [(0, 1), (0, 2), (0, 3), (0, 4)], [1, 0, 0, 0, 0], -0.7),
    ("CF2O", ["C", "F", "F", "O"], [(0, 1), (0, 2), (0, 3)], [0, 0, 0, 0], 0.9),
    ("C3H3+", ["C", "C", "C", "H", "H", "H"], [(0, 1), (1, 2), (2, 0), (0, 3), (1, 4), (2, 5)], [1, 0, 0, 0, 0, 0],
     2.1),
]


class MolDataset(Dataset):
    def __len__(self):
        return len(MOLS)

    def __getitem__(self, i):
        name, atoms, bonds, charge, y = MOLS[i]
        z = torch.tensor([ELEMENTS[a] for a in atoms])
        e = torch.tensor(bonds, dtype=torch.long).T
        edge_index = torch.cat([e, e.flip(0)], dim=1)
        deg = torch.bincount(edge_index[0], minlength=len(atoms))
        return {"name": name, "z": z, "edge_index": edge_index, "deg": deg,
                "charge": torch.tensor(charge), "y": torch.tensor(y)}


def collate(items):
    counts = torch.tensor([it["z"].numel() for it in items])
    offsets = torch.cumsum(counts, 0) - counts
    edge_index = torch.cat([it["edge_index"] + off for it, off in zip(items, offsets)], dim=1)
    return {
        "names": [it["name"] for it in items],
        "z": torch.cat([it["z"] for it in items]),
        "deg": torch.cat([it["deg"] for it in items]),
        "charge": torch.cat([it["charge"] for it in items]),
        "edge_index": edge_index,
        "batch": torch.repeat_interleave(torch.arange(len(items)), counts),
        "y": torch.stack([it["y"] for it in items]),
    }


def featurize(b):
    z1h = F.one_hot(b["z"], num_classes=len(ELEMENTS) + 1)
    d1h = F.one_hot(b["deg"].clamp(max=4), 5)
    q = torch.bucketize(b["charge"], torch.tensor([-1, 0, 1]), right=False)
    q1h = F.one_hot(q, 4)
    return torch.cat([z1h, d1h, q1h], dim=-1).float()


ds = MolDataset()
loader = DataLoader(ds, batch_size=2, shuffle=False, collate_fn=collate)
for b in loader:
    x = featurize(b)
    print(b["names"], "x", tuple(x.shape), x.dtype, "edges", tuple(b["edge_index"].shape),
          "max idx", int(b["edge_index"].max()), "batch", b["batch"].tolist())
print("one_hot inferred", F.one_hot(torch.tensor([0, 3, 1])).shape, F.one_hot(torch.tensor([[2], [0]])).shape)
print("bucketize", torch.bucketize(torch.tensor([-2, -1, 0, 1, 2]), torch.tensor([-1, 0, 1])).tolist(),
      torch.bucketize(torch.tensor([-2, -1, 0, 1, 2]), torch.tensor([-1, 0, 1]), right=True).tolist())
print("bucketize float",
      torch.bucketize(torch.tensor([1.5, 3.0, 5.5]), torch.tensor([3.0, 5.0, 7.0]), out_int32=True).tolist(),
      torch.bucketize(torch.tensor([1.5]), torch.tensor([3.0]), out_int32=True).dtype)

# learned atom-type embedding with a padding row and max_norm
emb = nn.Embedding(len(ELEMENTS) + 1, 4, padding_idx=0, max_norm=1.0)
with torch.no_grad():
    emb.weight.mul_(3.0)
print("pad row", emb.weight[0].tolist())
before = emb.weight.norm(dim=1).round(decimals=4).tolist()
z = torch.tensor([2, 2, 4, 0, 1])
out = emb(z)
print("norms before", before)
print("norms after", emb.weight.norm(dim=1).round(decimals=4).tolist())
print("out norms", out.norm(dim=1).round(decimals=4).tolist())
out.sum().backward()
print("grad rows", emb.weight.grad.abs().sum(1).round(decimals=4).tolist())

# ring membership as bags: atom i belongs to the rings listed in its bag
rings = nn.EmbeddingBag(4, 3, mode="sum", padding_idx=0)
ring_ids = torch.tensor([1, 2, 1, 0, 3, 2, 2])
offsets = torch.tensor([0, 2, 3, 3, 5])
r = rings(ring_ids, offsets)
print("bags", tuple(r.shape), r.abs().sum(1).round(decimals=4).tolist())
wts = torch.tensor([0.5, 1.0, 1.0, 1.0, 2.0, 1.0, 0.25])
print("weighted", rings(ring_ids, offsets, per_sample_weights=wts).sum(1).round(decimals=4).tolist())
bag2 = nn.EmbeddingBag.from_pretrained(torch.arange(12.0).reshape(4, 3), mode="max")
print("max bags", bag2(torch.tensor([[1, 3], [2, 0]])).tolist())
print("mean 2d",
      F.embedding_bag(torch.tensor([[1, 3], [2, 0]]), torch.arange(12.0).reshape(4, 3), mode="mean").tolist())

for name, fn in {
    "one_hot negative": lambda: F.one_hot(torch.tensor([-1, 2]), 3),
    "one_hot too small": lambda: F.one_hot(torch.tensor([0, 5]), 3),
    "one_hot float": lambda: F.one_hot(torch.tensor([0.0, 1.0]), 3),
    "one_hot empty": lambda: F.one_hot(torch.tensor([], dtype=torch.long)),
    "emb index": lambda: emb(torch.tensor([6])),
    "bag offsets 2d": lambda: rings(torch.tensor([[1, 2]]), torch.tensor([0])),
    "bag psw mode": lambda: nn.EmbeddingBag(4, 3, mode="max")(ring_ids, offsets, per_sample_weights=wts),
    "bucketize 2d boundaries": lambda: torch.bucketize(torch.tensor([1.0]), torch.tensor([[1.0, 2.0]])),
}.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
