"""Limit-order-book tensors as market-microstructure code builds them: (time, side, level) price and size arrays in
int64 ticks, cumulative depth, mid/microprice and order-flow imbalance, VWAP to fill a market order by searchsorted
on cumulative size, trade aggregation into bars by unique_consecutive/scatter_reduce/index_add, time-bucketed OHLC
with amax/amin include_self=False, repeat_interleave of order queues, and aminmax/var_mean summaries."""

import torch

torch.manual_seed(0)
T, L = 8, 5
tick = 0.01
mid_ticks = 10000 + torch.tensor([0, 1, 1, 2, 1, 0, -1, 0])
bid_px = mid_ticks[:, None] - 1 - torch.arange(L)
ask_px = mid_ticks[:, None] + 1 + torch.arange(L)
bid_sz = (torch.arange(T)[:, None] * 7 + torch.arange(L) * 13) % 50 + 10
ask_sz = (torch.arange(T)[:, None] * 11 + torch.arange(L) * 5) % 40 + 15
book = torch.stack([torch.stack([bid_px, bid_sz], -1), torch.stack([ask_px, ask_sz], -1)], dim=1)
print("book", tuple(book.shape), book.dtype, book.stride())

best_bid, best_ask = book[:, 0, 0, 0], book[:, 1, 0, 0]
spread = best_ask - best_bid
print("spread ticks", spread.tolist(), torch.unique(spread).tolist())
mid = (best_bid + best_ask).double() * tick / 2
qb, qa = book[:, 0, 0, 1].double(), book[:, 1, 0, 1].double()
micro = (best_bid * qa + best_ask * qb).double() / (qa + qb) * tick
print("mid", mid.round(decimals=3).tolist())
print("microprice", micro.round(decimals=4).tolist())
depth = book[..., 1].cumsum(-1)
print("cum depth t0", depth[0].tolist(), depth.dtype)
imb = (depth[:, 0, 2] - depth[:, 1, 2]).double() / (depth[:, 0, 2] + depth[:, 1, 2])
print("imbalance", imb.round(decimals=4).tolist())

db = torch.where(best_bid[1:] >= best_bid[:-1], qb[1:], torch.zeros(1, dtype=torch.float64)) - torch.where(
    best_bid[1:] <= best_bid[:-1], qb[:-1], torch.zeros(1, dtype=torch.float64)
)
da = torch.where(best_ask[1:] <= best_ask[:-1], qa[1:], torch.zeros(1, dtype=torch.float64)) - torch.where(
    best_ask[1:] >= best_ask[:-1], qa[:-1], torch.zeros(1, dtype=torch.float64)
)
print("ofi", (db - da).tolist())

qty = torch.tensor([30, 60, 120, 500])
cum = depth[0, 1]
lvl = torch.searchsorted(cum, qty)
print("levels hit", lvl.tolist(), torch.searchsorted(cum, qty, side="right").tolist())
prev_cum = torch.cat([torch.zeros(1, dtype=cum.dtype), cum])
fill_cost = []
for q_, l_ in zip(qty.tolist(), lvl.clamp(max=L - 1).tolist()):
    full = (book[0, 1, :l_, 0] * book[0, 1, :l_, 1]).sum()
    rest = min(q_, cum[-1].item()) - prev_cum[l_]
    fill_cost.append(((full + rest * book[0, 1, l_, 0]).double() * tick / min(q_, cum[-1].item())).item())
print("vwap fills", [round(v, 4) for v in fill_cost])

trade_t = torch.tensor([0, 0, 1, 1, 1, 3, 3, 6, 7, 7])
trade_px = torch.tensor(
    [100.01, 100.02, 100.00, 100.03, 99.99, 100.05, 100.04, 99.98, 100.00, 100.02], dtype=torch.float64
)
trade_sz = torch.tensor([5, 3, 10, 2, 4, 7, 1, 9, 6, 2])
bars, counts = torch.unique_consecutive(trade_t, return_counts=True)
print("bars", bars.tolist(), counts.tolist())
inv = torch.unique_consecutive(trade_t, return_inverse=True)[1]
vol = torch.zeros(len(bars), dtype=torch.int64).index_add_(0, inv, trade_sz)
notional = torch.zeros(len(bars), dtype=torch.float64).index_add_(0, inv, trade_px * trade_sz)
print("volume", vol.tolist(), "vwap", (notional / vol).round(decimals=4).tolist())
hi = torch.full((T,), float("-inf"), dtype=torch.float64).scatter_reduce(
    0, trade_t, trade_px, reduce="amax", include_self=False
)
lo = torch.zeros(T, dtype=torch.float64).scatter_reduce(0, trade_t, trade_px, reduce="amin", include_self=False)
print("high", hi.tolist())
print("low", lo.tolist())
mean_px = torch.zeros(T, dtype=torch.float64).scatter_reduce(0, trade_t, trade_px, reduce="mean", include_self=False)
print("mean px", mean_px.round(decimals=4).tolist())
first_idx = torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]])
last_idx = counts.cumsum(0) - 1
print("open/close", trade_px[first_idx].tolist(), trade_px[last_idx].tolist())
prod = torch.ones(T, dtype=torch.float64).scatter_reduce(0, trade_t, trade_px / 100, reduce="prod")
print("prod", prod.round(decimals=6).tolist())
last_px = torch.zeros(T, dtype=torch.float64).index_reduce_(0, trade_t, trade_px, "amax", include_self=False)
print("index_reduce", last_px.tolist())

orders = torch.tensor([3, 0, 2, 1])
owner = torch.repeat_interleave(torch.arange(4), orders)
print("queue owners", owner.tolist(), torch.repeat_interleave(torch.arange(4), orders, output_size=6).tolist())
print("aminmax", [t.tolist() for t in torch.aminmax(book[..., 1], dim=-1)][0][:2])
v, m = torch.var_mean(trade_px, correction=0)
s, m2 = torch.std_mean(trade_px.view(2, 5), dim=1, unbiased=True)
print("var_mean", round(v.item(), 8), round(m.item(), 4), s.round(decimals=4).tolist())
parts = torch.tensor_split(trade_px, torch.tensor([2, 5, 7]))
print("tensor_split", [p.numel() for p in parts])
print(
    "take_along_dim",
    torch.take_along_dim(book[:, 0, :, 1], book[:, 0, :, 1].argmax(-1, keepdim=True), dim=-1).flatten().tolist(),
)

for bad in [
    lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0, 5]), torch.ones(2), reduce="sum"),
    lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0, 1]), torch.ones(2), reduce="max"),
    lambda: torch.zeros(3, dtype=torch.long).index_add_(0, torch.tensor([0]), torch.ones(1)),
    lambda: torch.repeat_interleave(torch.arange(4), torch.tensor([1, -1, 1, 1])),
    lambda: torch.repeat_interleave(torch.arange(4), orders, output_size=5),
    lambda: torch.zeros(3).index_reduce_(0, torch.tensor([0]), torch.ones(1), "median"),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
