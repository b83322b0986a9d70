"""Sliding-window datasets as forecasting code builds them: a map-style Dataset over a multivariate series
returning (history, horizon) windows, the same windows materialised with Tensor.unfold and as_strided into a
TensorDataset, a chronological split with Subset(range) and a gap, per-channel scaling from the training part only,
a shuffled training loader and an ordered validation loader, a stride-2 IterableDataset over several series sharded
by get_worker_info, and a linear forecaster fitted for a few epochs."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, TensorDataset, get_worker_info

torch.set_printoptions(precision=4)
torch.manual_seed(0)

t = torch.arange(60, dtype=torch.float32)
series = torch.stack([torch.sin(t / 5), torch.cos(t / 7) + 0.05 * torch.randn(60), t / 60], dim=1)
print("series", tuple(series.shape), series[:2])


class Windows(Dataset):
    def __init__(self, data, history, horizon, mean=None, std=None):
        self.data, self.history, self.horizon = data, history, horizon
        self.mean = torch.zeros(data.shape[1]) if mean is None else mean
        self.std = torch.ones(data.shape[1]) if std is None else std

    def __len__(self):
        return len(self.data) - self.history - self.horizon + 1

    def __getitem__(self, i):
        window = (self.data[i:i + self.history + self.horizon] - self.mean) / self.std
        return window[: self.history], window[self.history:, 0]


H, F = 8, 3
raw = Windows(series, H, F)
print("windows", len(raw), raw[0][0].shape, raw[0][1], raw[len(raw) - 1][1])

unfolded = series.unfold(0, H + F, 1)
print("unfold", tuple(unfolded.shape), torch.equal(unfolded[5].t()[:H], raw[5][0]))
strided = series[:, 0].as_strided((len(raw), H + F), (1, 1))
print("as_strided_of_view", tuple(strided.shape), strided.stride(), torch.equal(strided[7, H:], raw[7][1]))
strided = series[:, 0].contiguous().as_strided((len(raw), H + F), (1, 1))
print("as_strided", strided.stride(), torch.equal(strided[7, H:], raw[7][1]), strided.storage_offset())
tds = TensorDataset(unfolded[:, :, :H].transpose(1, 2).contiguous(), unfolded[:, 0, H:].contiguous())
print("tensor_windows", len(tds), torch.equal(tds[10][0], raw[10][0]), torch.equal(tds[10][1], raw[10][1]))

n = len(raw)
train_end, gap = int(n * 0.7), F
train_idx, val_idx = range(0, train_end), range(train_end + gap, n)
mean = series[: train_end + H].mean(0)
std = series[: train_end + H].std(0)
scaled = Windows(series, H, F, mean, std)
train, val = Subset(scaled, train_idx), Subset(scaled, val_idx)
print("split", len(train), len(val), list(val.indices)[:3], mean, std)

train_loader = DataLoader(train, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(1))
val_loader = DataLoader(val, batch_size=16)
print("first_train_batch", [tuple(x.shape) for x in next(iter(train_loader))])

model = nn.Sequential(nn.Flatten(), nn.Linear(H * 3, F))
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(5):
    total = 0.0
    for x, y in train_loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(x)
    with torch.no_grad():
        val_loss = sum(nn.functional.mse_loss(model(x), y, reduction="sum").item() for x, y in val_loader)
    print(f"epoch {epoch} train {total / len(train):.4f} val {val_loss / (len(val) * F):.4f}")
with torch.no_grad():
    x, y = next(iter(val_loader))
    print("forecast", model(x[:2]), y[:2])


class MultiSeries(IterableDataset):
    def __init__(self, count, length, window, stride):
        g = torch.Generator().manual_seed(3)
        self.series = [torch.randn(length, generator=g).cumsum(0) for _ in range(count)]
        self.window, self.stride = window, stride

    def __iter__(self):
        info = get_worker_info()
        mine = range(len(self.series)) if info is None else range(info.id, len(self.series), info.num_workers)
        for s in mine:
            for start in range(0, len(self.series[s]) - self.window + 1, self.stride):
                yield s, self.series[s][start:start + self.window]


ms = MultiSeries(3, 9, 4, 2)
single = [(int(s), round(w.sum().item(), 4)) for s, w in DataLoader(ms, batch_size=None)]
print("multi_inproc", single)
multi = [(int(s), round(w.sum().item(), 4)) for s, w in DataLoader(ms, batch_size=None, num_workers=2)]
print("multi_workers", multi, sorted(multi) == sorted(single))
print("multi_batched", [b[0].tolist() for b in DataLoader(ms, batch_size=4)])
