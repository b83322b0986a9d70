"""An ERA5-like training pipeline without xarray: a (time, var, lat, lon) array windowed by Tensor.unfold into
history/lead samples, a Dataset with stride views, day-of-year features, DataLoader batching, splits and misuse."""

import math

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset, random_split

torch.manual_seed(0)
torch.set_printoptions(precision=4)
T, V, H, W = 20, 3, 4, 6
arr = np.arange(T * V * H * W, dtype=np.float32).reshape(T, V, H, W) / 100.0
data = torch.from_numpy(arr)
print("shares memory", data.data_ptr() == torch.as_tensor(arr).data_ptr(), data.dtype, data.stride())
hist, lead = 3, 2
win = data.unfold(0, hist + lead, 1)
print("unfold", win.shape, win.stride(), win.is_contiguous(), win._base is data)
samples = win.permute(0, 4, 1, 2, 3)
print(
    "samples",
    samples.shape,
    samples.stride(),
    torch.equal(samples[5, 0], data[5]),
    torch.equal(samples[5, -1], data[9]),
)
strided = data.unfold(0, hist, 4)
print("step 4", strided.shape, strided[:, 0, 0, 0, :].tolist())
print("flat unfold", torch.arange(10).unfold(0, 4, 3).tolist(), torch.arange(10).unfold(0, 10, 1).shape)
patch = data[0].unfold(1, 2, 2).unfold(2, 3, 3)
print("2d patches", patch.shape, patch.stride(), patch.contiguous().view(V, -1, 6).shape)
try:
    patch.view(V, -1, 6)
except RuntimeError as e:
    print(type(e).__name__, e)
arr[0, 0, 0, 0] = -1.0
print("numpy write visible", data[0, 0, 0, 0].item(), samples[0, 0, 0, 0, 0].item())

hours = torch.arange(T) * 6
doy = (hours // 24) % 365
feat = torch.stack([torch.sin(2 * math.pi * doy / 365.25), torch.cos(2 * math.pi * hours.remainder(24) / 24)], -1)
print("time feats", feat.dtype, feat[:5].round(decimals=4).tolist()[1], hours.dtype, doy[-3:].tolist())


class Windows(Dataset):
    def __init__(self, data, hist, lead, feat):
        self.w = data.unfold(0, hist + lead, 1).permute(0, 4, 1, 2, 3)
        self.hist, self.feat = hist, feat

    def __len__(self):
        return self.w.shape[0]

    def __getitem__(self, i):
        s = self.w[i]
        return {"x": s[: self.hist].flatten(0, 1), "y": s[self.hist :], "t": self.feat[i + self.hist - 1], "i": i}


ds = Windows(data, hist, lead, feat)
print("len", len(ds), ds[0]["x"].shape, ds[0]["y"].shape, ds[len(ds) - 1]["i"])
x0 = ds[2]["x"]
print("view of storage", x0.is_contiguous(), x0.storage_offset() if x0._base is not None else None)
g = torch.Generator().manual_seed(0)
train, val = random_split(ds, [0.75, 0.25], generator=g)
print("split", len(train), len(val), sorted(val.indices))
dl = DataLoader(train, batch_size=4, shuffle=True, drop_last=True, generator=torch.Generator().manual_seed(1))
for b in dl:
    print("batch", b["x"].shape, b["y"].shape, b["t"].shape, b["i"].tolist(), b["x"].is_contiguous())
print("len dl", len(dl), len(DataLoader(val, batch_size=4)))
chrono = Subset(ds, range(0, len(ds), 5))
print("subset", [s["i"] for s in chrono], len(chrono))
b = next(iter(DataLoader(ds, batch_size=2, collate_fn=lambda items: torch.stack([it["y"] for it in items]))))
print("custom collate", b.shape)
m = torch.stack([ds[i]["x"] for i in range(len(ds))]).mean(dim=(0, 2, 3))
print("channel means", m.shape, m[:3])
ap = torch.as_strided(data, (T - 1, 2), (V * H * W, V * H * W))
print("as_strided", ap.shape, ap[:2].tolist())
try:
    ds[len(ds)]
except IndexError as e:
    print(type(e).__name__, e)
try:
    data.unfold(0, T + 1, 1)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    data.unfold(0, 2, 0)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    random_split(ds, [10, 10])
except ValueError as e:
    print(type(e).__name__, e)
try:
    next(iter(DataLoader([data[0], data[0, :, :2]], batch_size=2)))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    DataLoader(ds, batch_size=2, shuffle=True, sampler=range(3))
except ValueError as e:
    print(type(e).__name__, e)
