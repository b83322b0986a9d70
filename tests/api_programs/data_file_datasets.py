"""File-backed datasets as data-loading code writes them: per-sample .pt files read with torch.load
(weights_only), .npy shards memory-mapped with np.load(mmap_mode="r") and indexed through a cumulative-size
lookup, a CSV parsed once into tensors, a __getitems__ that reads a sorted batch in one go, file handles opened
lazily per worker (worker_init_fn over two workers), torch.is_tensor(idx) handling, and a loader over a Subset
of the sharded dataset."""

import bisect
import csv
import os
import shutil
import tempfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset, get_worker_info

torch.set_printoptions(precision=4)
root = tempfile.mkdtemp()
torch.manual_seed(0)

for i in range(5):
    torch.save({"x": torch.randn(3), "y": i % 2, "name": f"s{i}"}, os.path.join(root, f"sample_{i}.pt"))

rng = np.random.default_rng(0)
shard_sizes = [4, 3, 5]
for k, n in enumerate(shard_sizes):
    np.save(os.path.join(root, f"shard_{k}.npy"), rng.standard_normal((n, 2)).astype(np.float32) + 10 * k)

with open(os.path.join(root, "table.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "height", "weight", "label"])
    for i in range(6):
        w.writerow([i, 150 + 5 * i, round(50 + 3.5 * i, 1), "ab"[i % 2]])


class PtFiles(Dataset):
    def __init__(self, folder):
        self.paths = sorted(os.path.join(folder, p) for p in os.listdir(folder) if p.endswith(".pt"))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        return torch.load(self.paths[idx], weights_only=True)


class Shards(Dataset):
    def __init__(self, folder, sizes):
        self.files = [os.path.join(folder, f"shard_{k}.npy") for k in range(len(sizes))]
        self.cumulative = np.cumsum(sizes).tolist()
        self.arrays = None

    def open(self):
        self.arrays = [np.load(p, mmap_mode="r") for p in self.files]

    def __len__(self):
        return self.cumulative[-1]

    def _locate(self, idx):
        k = bisect.bisect_right(self.cumulative, idx)
        return k, idx - (self.cumulative[k - 1] if k else 0)

    def __getitem__(self, idx):
        if self.arrays is None:
            self.open()
        k, j = self._locate(idx)
        return torch.from_numpy(np.array(self.arrays[k][j])), k

    def __getitems__(self, indices):
        if self.arrays is None:
            self.open()
        return [self[i] for i in sorted(indices)]


def open_files(worker_id):
    info = get_worker_info()
    info.dataset.open()


class Table(Dataset):
    def __init__(self, path):
        with open(path) as f:
            rows = list(csv.DictReader(f))
        self.features = torch.tensor([[float(r["height"]), float(r["weight"])] for r in rows])
        self.labels = torch.tensor([0 if r["label"] == "a" else 1 for r in rows])
        self.mean, self.std = self.features.mean(0), self.features.std(0)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return (self.features[i] - self.mean) / self.std, self.labels[i]


pt = PtFiles(root)
print("pt_len", len(pt), sorted(pt[0]), pt[torch.tensor(3)]["name"], pt[4]["x"])
batch = next(iter(DataLoader(pt, batch_size=5)))
print("pt_batch", batch["x"].shape, batch["y"].tolist(), batch["name"])
print("pt_mean", batch["x"].mean(0))

sh = Shards(root, shard_sizes)
print("shards", len(sh), sh.cumulative, sh[5][1], sh[5][0], sh[11][0])
loader = DataLoader(sh, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(1))
for x, k in loader:
    print("shard_batch", k.tolist(), x[:, 0])
sub = Subset(sh, [11, 0, 6, 3])
print("subset_getitems", [k for _, k in sub.__getitems__([0, 1, 2, 3])])
print("subset_loader", [b[1].tolist() for b in DataLoader(sub, batch_size=2)])
wl = DataLoader(Shards(root, shard_sizes), batch_size=3, num_workers=2, worker_init_fn=open_files)
print("workers", [(tuple(x.shape), k.tolist(), round(x.sum().item(), 4)) for x, k in wl])

tb = Table(os.path.join(root, "table.csv"))
print("table", tb.features.shape, tb.mean, tb.std)
for x, y in DataLoader(tb, batch_size=4):
    print("table_batch", x, y.tolist())
print("files", sorted(os.listdir(root)))
shutil.rmtree(root)
