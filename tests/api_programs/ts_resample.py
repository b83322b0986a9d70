"""Irregular time series prepared in torch: int64 epoch timestamps bucketed into hours with floor division,
calendar features (hour, weekday, cyclical sin/cos), resampling by scatter_reduce (sum, mean, amax, amin with and
without include_self), index_add_ counts, last-value-per-bucket via scatter with sorted indices, alignment of two
sensors with searchsorted, time deltas since the last observation for GRU-D style decay, and padding of
variable-length sequences with pad_sequence and masks from lengths."""

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.set_printoptions(precision=4, sci_mode=False)

start = 1_700_000_000
offsets = torch.tensor([0, 600, 1700, 3599, 3600, 4000, 9000, 9100, 14000, 14400, 20000, 21599])
ts = start + offsets
vals = torch.tensor([1.0, 2.0, 4.0, 3.0, 10.0, 12.0, 5.0, 7.0, 0.5, 1.5, 8.0, 6.0])
print("timestamps", ts.dtype, ts[:3], ts.max() - ts.min())
hour_idx = torch.div(ts - start, 3600, rounding_mode="floor")
print("hour buckets", hour_idx)
abs_hour = torch.div(ts, 3600, rounding_mode="floor") % 24
weekday = (torch.div(ts, 86400, rounding_mode="floor") + 4) % 7
print("hour of day", abs_hour, "weekday", weekday.unique())
angle = 2 * torch.pi * abs_hour.double() / 24
print("cyclical", torch.stack([angle.sin(), angle.cos()], 1)[:3], angle.dtype)
print("negative floor/trunc", torch.div(torch.tensor([-7, 7]), 3, rounding_mode="floor"),
      torch.div(torch.tensor([-7, 7]), 3, rounding_mode="trunc"), torch.tensor([-7, 7]) % 3,
      torch.fmod(torch.tensor([-7, 7]), 3), torch.remainder(torch.tensor([-7.5]), 2))

n_buckets = int(hour_idx.max()) + 1
sums = torch.zeros(n_buckets).scatter_reduce(0, hour_idx, vals, reduce="sum")
means = torch.zeros(n_buckets).scatter_reduce(0, hour_idx, vals, reduce="mean", include_self=False)
maxs = torch.full((n_buckets,), float("-inf")).scatter_reduce(0, hour_idx, vals, reduce="amax")
mins = torch.zeros(n_buckets).scatter_reduce(0, hour_idx, vals, reduce="amin", include_self=True)
prods = torch.ones(n_buckets).scatter_reduce(0, hour_idx, vals, reduce="prod")
print("sum", sums, "\nmean", means, "\namax", maxs, "\namin incl self", mins, "\nprod", prods)
counts = torch.zeros(n_buckets, dtype=torch.long).index_add_(0, hour_idx, torch.ones_like(hour_idx))
print("counts", counts, torch.bincount(hour_idx, minlength=n_buckets))
print("mean incl self", torch.zeros(n_buckets).scatter_reduce(0, hour_idx, vals, reduce="mean"))
order = torch.argsort(ts, stable=True)
last = torch.full((n_buckets,), float("nan")).scatter(0, hour_idx[order], vals[order])
print("last per bucket", last)
seen = counts > 0
print("observed mask", seen, "ffilled", last[torch.where(seen, torch.arange(n_buckets), 0).cummax(0).values])

v = vals.clone().requires_grad_(True)
torch.zeros(n_buckets).scatter_reduce(0, hour_idx, v, reduce="mean", include_self=False).sum().backward()
print("scatter mean grad", v.grad)
v.grad = None
torch.zeros(n_buckets).scatter_reduce(0, hour_idx, v, reduce="amax", include_self=False).sum().backward()
print("scatter amax grad", v.grad)

sensor_b_ts = start + torch.tensor([100, 3000, 5000, 15000, 21000])
pos = torch.searchsorted(ts, sensor_b_ts, right=True) - 1
print("aligned index", pos, "values", vals[pos.clamp(min=0)], "lag", sensor_b_ts - ts[pos])

mask = torch.tensor([[1, 0, 0, 1, 1, 0], [0, 1, 1, 0, 0, 0]], dtype=torch.bool)
step = torch.tensor([1.0, 1.0, 2.0, 1.0, 0.5, 1.0])
delta = torch.zeros(mask.shape)
for i in range(1, mask.shape[1]):
    delta[:, i] = step[i] + torch.where(mask[:, i - 1], 0.0, delta[:, i - 1])
print("delta", delta)
w_gamma, b_gamma = torch.tensor(0.6), torch.tensor(-0.1)
gamma = torch.exp(-F.relu(w_gamma * delta + b_gamma))
print("decay", gamma)

seqs = [torch.arange(1.0, 5.0), torch.tensor([7.0]), torch.arange(10.0, 13.0)]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True, padding_value=float("nan"))
print("padded", padded)
len_mask = torch.arange(padded.shape[1])[None] < lengths[:, None]
print("length mask", len_mask, "masked mean", torch.nanmean(padded, 1),
      (padded.nan_to_num() * len_mask).sum(1) / lengths)
packed = pack_padded_sequence(padded.nan_to_num(0).unsqueeze(-1), lengths, batch_first=True, enforce_sorted=False)
print("packed", packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
unpacked, lens = pad_packed_sequence(packed, batch_first=True, padding_value=-1.0, total_length=5)
print("unpacked", unpacked.squeeze(-1), lens)
print("pad_sequence left", pad_sequence([s.flip(0) for s in seqs], batch_first=True).flip(1))
try:
    torch.zeros(3).scatter_reduce(0, torch.tensor([0, 5]), torch.ones(2), reduce="sum")
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.zeros(3).scatter_reduce(0, torch.tensor([0, 1]), torch.ones(2), reduce="median")
except RuntimeError as e:
    print("RuntimeError", str(e)[:80])
