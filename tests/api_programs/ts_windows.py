"""Sliding windows the ways forecasting code builds them: Tensor.unfold with steps (views, strides, gradients that
add up over overlaps), as_strided windows and their storage offsets, F.unfold/F.fold over a (1, L) image for
overlap-add, lag features with roll and pad, a windowed Dataset with DataLoader batching and a time-ordered split,
seasonal differencing with torch.diff(prepend=), cumulative sums for rolling means, and the errors of bad windows."""

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Subset

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

series = torch.arange(20, dtype=torch.float32) * 0.5 + torch.sin(torch.arange(20.0))
w = series.unfold(0, 5, 2)
print("unfold", tuple(w.shape), w.stride(), w.storage_offset(), w._base is series, w.is_contiguous())
print(w[:3])
print("shares storage", w.untyped_storage().data_ptr() == series.untyped_storage().data_ptr())
m = torch.arange(24.0).view(2, 12)
w2 = m.unfold(1, 4, 4)
print("2d unfold", tuple(w2.shape), w2.stride(), w2[1, 2])
w3 = m.unfold(1, 3, 2).unfold(2, 2, 1)
print("nested unfold", tuple(w3.shape), w3.stride(), w3[0, 1])
print("unfold dim0", torch.arange(12.0).view(4, 3).unfold(0, 2, 1).shape)

a = torch.linspace(-1, 1, 10, requires_grad=True)
win = a.unfold(0, 4, 2)
(win * torch.arange(1.0, 5.0)).sum().backward()
print("unfold grad", a.grad, win.grad_fn.name())

s = torch.arange(10.0)
strided = torch.as_strided(s, size=(4, 3), stride=(2, 1))
print("as_strided", strided, strided.stride())
print("as_strided offset", torch.as_strided(s, (3, 2), (3, 1), storage_offset=1))
print("same as unfold", torch.equal(s.as_strided((4, 3), (2, 1)), s.unfold(0, 3, 2)))
b = torch.ones(6, requires_grad=True)
torch.as_strided(b, (3, 3), (1, 1)).sum().backward()
print("as_strided grad", b.grad)

img = series.view(1, 1, 1, 20)
cols = F.unfold(img, kernel_size=(1, 5), stride=(1, 3))
print("F.unfold", tuple(cols.shape), cols[0, :, 0])
back = F.fold(cols, output_size=(1, 20), kernel_size=(1, 5), stride=(1, 3))
count = F.fold(torch.ones_like(cols), output_size=(1, 20), kernel_size=(1, 5), stride=(1, 3))
print("fold count", count.view(-1))
print("overlap-add mean", torch.allclose((back / count.clamp(min=1)).view(-1)[:17], series[:17]))

lags = torch.stack([torch.roll(series, k) for k in (1, 2, 7)], dim=-1)
lags[:7] = float("nan")
print("lags", lags[7:10])
padded = F.pad(series.view(1, 1, -1), (3, 0), mode="replicate").view(-1)
print("pad replicate", padded[:6], F.pad(series, (2, 0), value=-1.0)[:4])
print("reflect", F.pad(series[:6].view(1, 1, -1), (2, 2), mode="reflect").view(-1))
print("circular", F.pad(series[:6].view(1, 1, -1), (2, 1), mode="circular").view(-1))
print("circular crop", F.pad(series[:6].view(1, 1, -1), (-1, 2), mode="circular").view(-1))

print("diff", torch.diff(series[:6]), torch.diff(series[:6], n=2))
print("seasonal diff", (series[4:] - series[:-4])[:4],
      torch.diff(series[:6], prepend=series[:1], append=torch.tensor([0.0])))
c = F.pad(series.cumsum(0), (1, 0))
roll_mean = (c[3:] - c[:-3]) / 3
print("rolling mean", roll_mean[:5], torch.allclose(roll_mean, series.unfold(0, 3, 1).mean(-1)))
print("ewm", torch.tensor([0.5 ** k for k in range(4)]).flip(0) @ series.unfold(0, 4, 1)[:3].T)


class Windows(Dataset):
    def __init__(self, data, lookback, horizon):
        self.data, self.lookback, self.horizon = data, lookback, horizon

    def __len__(self):
        return self.data.shape[0] - self.lookback - self.horizon + 1

    def __getitem__(self, i):
        return self.data[i:i + self.lookback], self.data[i + self.lookback:i + self.lookback + self.horizon]


multi = torch.stack([series, series.flip(0)], dim=-1)
ds = Windows(multi, 6, 2)
n_train = int(len(ds) * 0.75)
train, val = Subset(ds, range(n_train)), Subset(ds, range(n_train, len(ds)))
print("dataset", len(ds), len(train), len(val), ds[0][0].shape, ds[0][1].shape)
loader = DataLoader(train, batch_size=4, shuffle=False, drop_last=False)
for i, (xb, yb) in enumerate(loader):
    print("batch", i, tuple(xb.shape), tuple(yb.shape), round(xb.sum().item(), 4))
print("batches", len(loader), len(DataLoader(train, batch_size=4, drop_last=True)))
vx, vy = next(iter(DataLoader(val, batch_size=len(val))))
print("val first target", vy[0])

for bad in (lambda: series.unfold(0, 30, 1), lambda: series.unfold(0, 3, 0), lambda: series.unfold(1, 2, 1),
            lambda: torch.diff(series, n=-1)):
    try:
        bad()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
