"""indexing, in-place semantics, views, numerics helpers."""

import numpy as np
import torch

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


x = T(4, 5)
print(
    r(x[[0, 2], [1, 3]]),
    r(x[x > 0.5]),
    r(x[:, [True, False, True, False, True]]),
    x[None, 1:3, ..., ::2].shape,
    r(x[-1, -2:]),
    r(x[torch.tensor([[0, 1], [2, 3]])]),
)
y = x.clone()
y[y < 0] = 0
y[1] = torch.arange(5.0)
y[:, 0] += 10
y[[0, 0], [1, 1]] = -1.0
print(r(y), r(y[1]))
z = torch.zeros(3, 3)
z[torch.tensor([0, 2]), :] = torch.tensor([1.0, 2.0, 3.0])
z.index_fill_(1, torch.tensor([1]), -2)
print(z.tolist())
v = x.view(20)
v[0] = 100.0
print(
    "view_shares",
    x[0, 0].item(),
    x.data_ptr() == v.data_ptr(),
    x.is_contiguous(),
    x.t().is_contiguous(),
    x.t().contiguous().stride(),
    x.storage_offset(),
    x[1:].storage_offset(),
)
e = torch.ones(3).expand(2, 3)
try:
    e.add_(1)
except RuntimeError as err:
    print("expand_inplace", str(err)[:60])
a = torch.ones(2, requires_grad=True)
try:
    a.add_(1)
except RuntimeError as err:
    print("leaf_inplace", str(err)[:70])
print(
    r(torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf")]), nan=0.0, posinf=1.0)),
    torch.tensor([1.0, float("nan")]).nanmean().item(),
    torch.nansum(torch.tensor([1.0, float("nan")])).item(),
    torch.isnan(torch.tensor([float("nan")])).tolist(),
    torch.isfinite(torch.tensor([1.0, float("inf")])).tolist(),
)
print(
    torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6, 9])).tolist(),
    torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3]), right=True).tolist(),
    torch.bucketize(torch.tensor([0.5, 3.0, 8.0]), torch.tensor([1.0, 3.0, 5.0])).tolist(),
)
print(
    r(torch.histc(torch.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=4)),
    [r(t) for t in torch.histogram(torch.tensor([1.0, 2.0, 1.0]), bins=2)],
    r(torch.quantile(torch.arange(10.0), torch.tensor([0.25, 0.5]))),
    r(torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5)),
)
print(
    r(torch.cov(T(3, 6))),
    r(torch.corrcoef(T(2, 5))),
    r(torch.logsumexp(x, 1)),
    r(torch.lerp(torch.zeros(3), torch.ones(3), 0.3)),
    r(torch.addcmul(torch.zeros(3), torch.ones(3), torch.full((3,), 2.0), value=0.5)),
    r(torch.cummin(x, 1).values),
)
print(
    r(torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]))),
    r(torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0]))),
    r(torch.vander(torch.tensor([1.0, 2.0]), N=3)),
    r(torch.block_diag(torch.ones(1, 1), 2 * torch.ones(2, 2))),
    r(torch.diag_embed(torch.tensor([1.0, 2.0]))),
    r(torch.tril(torch.ones(3, 3), -1)),
)
print(
    r(torch.atleast_2d(torch.tensor(1.0))),
    torch.broadcast_tensors(torch.ones(3, 1), torch.ones(1, 4))[0].shape,
    torch.broadcast_shapes((3, 1), (1, 4)),
    r(torch.take_along_dim(x, torch.argsort(x, dim=1), dim=1)),
    r(torch.masked_select(x, x > 1)),
    r(torch.flipud(x)),
)
s = torch.tensor([3, 1, 2, 1])
print(
    torch.sort(s, stable=True).indices.tolist(),
    torch.argmax(x, dim=1, keepdim=True).shape,
    torch.count_nonzero(x > 0).item(),
    torch.amax(x, dim=(0, 1)).item() == x.max().item(),
    torch.aminmax(x).min.item() == x.min().item(),
)
print(
    r(torch.clamp(x, torch.zeros(5), torch.ones(5))),
    r(torch.sign(x)),
    r(torch.heaviside(x, torch.tensor(0.5))),
    r(torch.fmod(x, 0.3)),
    r(torch.remainder(x, 0.3)),
    r(torch.floor_divide(x, 0.3)),
    r(torch.div(x, 0.3, rounding_mode="trunc")),
    r(torch.true_divide(x, 2)),
)
print(
    r(torch.bitwise_and(torch.tensor([12]), torch.tensor([10]))),
    r(torch.tensor([1]) << 3),
    r(torch.logical_xor(torch.tensor([True, False]), torch.tensor([True, True]))),
    r(torch.gcd(torch.tensor([12]), torch.tensor([8]))),
    r(torch.tensor([5]) % 3),
    r(-torch.tensor([5]) // 3),
)
print(
    r(torch.rot90(torch.arange(4.0).view(2, 2), 1, [0, 1])),
    r(torch.triu_indices(3, 3, 1)),
    r(torch.stft(torch.arange(16.0), 8, return_complex=True).abs()),
    torch.complex64.is_complex,
)
w = torch.arange(6.0).view(2, 3)
w.transpose_(0, 1)
w.unsqueeze_(0)
w.squeeze_(0)
w.resize_(6)
print("inplace_shape", w.tolist())
print(
    r(torch.tensor([[1, 2], [3, 4]]).float().inverse()),
    torch.tensor([1.5]).new_ones(2).dtype,
    torch.empty(2, 3).fill_(7).sum().item(),
    torch.zeros(2).index_add_(0, torch.tensor([0, 0]), torch.tensor([1.0, 2.0])).tolist(),
    torch.tensor([[1, 2]]).repeat_interleave(torch.tensor([2]), dim=0).tolist(),
)
print(
    torch.tensor([1.0, 2.0]).apply_(lambda v: v * 10).tolist(),
    torch.tensor([3.0, 1.0]).map_(torch.tensor([1.0, 1.0]), lambda a, b: a + b).tolist(),
    torch.arange(5).chunk(3)[-1].tolist(),
    torch.tensor([1, 2, 3]).index_put((torch.tensor([0]),), torch.tensor(9)).tolist(),
)
print("OK")
