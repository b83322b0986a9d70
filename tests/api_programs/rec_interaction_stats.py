"""Interaction-log aggregation for feature stores: scatter_reduce per user, segment sums, time decay, co-occurrence."""

import torch
import torch.nn.functional as F

torch.manual_seed(121)
torch.set_printoptions(precision=4)

n_users, n_items, n_events = 5, 8, 40
user = torch.randint(0, n_users, (n_events,))
item = torch.randint(0, n_items, (n_events,))
ts = torch.randint(0, 1000, (n_events,))
rating = torch.randint(1, 6, (n_events,)).float()
print("user counts", torch.bincount(user, minlength=n_users).tolist())

# per-user aggregates with scatter_reduce
zeros = torch.zeros(n_users)
for red in ["sum", "prod", "mean", "amax", "amin"]:
    incl = zeros.scatter_reduce(0, user, rating, reduce=red, include_self=True)
    excl = zeros.scatter_reduce(0, user, rating, reduce=red, include_self=False)
    print(f"{red:4s} include_self {incl.tolist()} exclude {excl.tolist()}")
last_ts = torch.full((n_users,), -1).scatter_reduce(0, user, ts, reduce="amax", include_self=False)
print("last seen", last_ts.tolist())
weighted = torch.bincount(user, weights=rating, minlength=n_users)
print("bincount weights", weighted.tolist(), weighted.dtype)
ir = torch.ones(n_users).index_reduce_(0, user, rating, "prod", include_self=False)
print("index_reduce prod", torch.allclose(ir, zeros.scatter_reduce(0, user, rating, "prod", include_self=False)))

# sort by (user, time): stable argsort twice, lexsort-style
order = torch.argsort(ts, stable=True)
order = order[torch.argsort(user[order], stable=True)]
su, st, si = user[order], ts[order], item[order]
print("sorted users", su.tolist())
print("monotone time within user", bool(((su[1:] != su[:-1]) | (st[1:] >= st[:-1])).all()))
lengths = torch.bincount(su, minlength=n_users)
seg_sum = torch.segment_reduce(rating[order], "sum", lengths=lengths)
seg_max = torch.segment_reduce(rating[order], "max", lengths=lengths)
print("segment sum", seg_sum.tolist(), "max", seg_max.tolist())
starts = torch.cumsum(lengths, 0) - lengths
print("segment starts", starts.tolist())
gaps = torch.diff(st)
gaps = torch.where(su[1:] == su[:-1], gaps, torch.zeros_like(gaps))
print("mean gap per user", (torch.zeros(n_users).index_add_(0, su[1:], gaps.float())
                            / (lengths - 1).clamp(min=1)).tolist())

# exponential time decay: recent events count more
now = ts.max()
half_life = 200.0
decay = torch.exp2(-(now - ts).float() / half_life)
ui = torch.zeros(n_users, n_items).index_put_((user, item), decay, accumulate=True)
print("decayed matrix row0", ui[0])
print("index_put_ accumulate == sparse sum", torch.allclose(
    ui, torch.sparse_coo_tensor(torch.stack([user, item]), decay, (n_users, n_items)).to_dense()))
last_write = torch.zeros(n_users, n_items).index_put_((user, item), decay)
print("without accumulate keeps one", last_write.count_nonzero().item())

# co-occurrence from one-hot baskets
oh = F.one_hot(item, n_items).float()
basket = torch.zeros(n_users, n_items).index_add_(0, user, oh).clamp(max=1)
co = basket.T @ basket
co.fill_diagonal_(0)
print("co-occurrence", co.shape, co.sum().item(), "top pair", divmod(int(co.argmax()), n_items))
item_pop = basket.sum(0)
lift = co * n_users / (item_pop.unsqueeze(0) * item_pop.unsqueeze(1)).clamp(min=1)
print("max lift", round(lift.max().item(), 4), "jaccard row0",
      (co[0] / (item_pop[0] + item_pop - co[0]).clamp(min=1)))

# last-3 items per user via topk on timestamps masked by owner
mask = user.unsqueeze(0) == torch.arange(n_users).unsqueeze(1)
masked_ts = torch.where(mask, ts.unsqueeze(0), torch.full_like(ts, -1).unsqueeze(0))
top = masked_ts.topk(3, dim=1)
recent = torch.where(top.values >= 0, item[top.indices], torch.full_like(top.indices, -1))
print("recent items", recent.tolist())

# rolling 3-event count of high ratings within each user's sorted stream
high = (rating[order] >= 4).float()
csum = torch.cat([torch.zeros(1), high.cumsum(0)])
idx = torch.arange(n_events)
lo = torch.maximum(idx - 2, starts[su])
rolling = csum[idx + 1] - csum[lo]
print("rolling high count", rolling.long().tolist())
print("cummax rating", torch.cummax(rating[order], 0).values[:10].tolist(), "logcumsumexp",
      torch.logcumsumexp(rating[order][:4], 0))

# user-normalised ratings, then z-scores with unbiased std via scatter
cnt = torch.bincount(user, minlength=n_users).float()
mean_u = torch.zeros(n_users).index_add_(0, user, rating) / cnt
sq = torch.zeros(n_users).index_add_(0, user, (rating - mean_u[user]) ** 2)
std_u = (sq / (cnt - 1).clamp(min=1)).sqrt()
z = (rating - mean_u[user]) / std_u[user].clamp(min=1e-6)
print("user mean", mean_u, "std", std_u)
print("z head", z[:6])
print("aminmax", torch.aminmax(z), "nanmean", round(torch.nanmean(torch.where(z > 0, z, torch.nan)).item(), 4))
try:
    zeros.scatter_reduce(0, user, rating, reduce="median")
except RuntimeError as e:
    print("RuntimeError:", e)
