"""a lab's numpy analysis script translated line by line: which numpy keyword spellings torch takes (axis=,
keepdims=, a_min=, ddof-like correction=) and which it refuses, moving averages with unfold and cumsum,
z-scores, array manipulation aliases (swapaxes, moveaxis, concatenate, tile, repeat_interleave), and dtype results
of integer, boolean and mixed inputs."""

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(99)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


sig = torch.from_numpy(np.round(rng.normal(0, 1, (3, 10)), 3)).float()

# reductions with numpy's keyword names
print("sum axis", r(torch.sum(sig, axis=1), 3), sig.sum(axis=0).shape, torch.sum(sig, dim=(0, 1)).shape)
print("mean keepdims", torch.mean(sig, axis=1, keepdims=True).shape, sig.mean(1, keepdim=True).shape)
print(
    "std correction",
    r(torch.std(sig, dim=1, correction=0), 3),
    r(sig.std(axis=1), 3),
    r(torch.var(sig, 1, unbiased=False), 3),
)
print(
    "max axis",
    r(torch.max(sig, axis=1).values, 3),
    torch.argmax(sig, axis=1).tolist(),
    torch.amax(sig, axis=(0, 1)).item(),
)
print("cumsum axis", r(torch.cumsum(sig, axis=1)[0], 4), torch.cumprod(torch.tensor([1, 2, 3]), axis=0).tolist())
print(
    "any/all axis",
    torch.any(sig > 2, axis=1).tolist(),
    torch.all(sig > -3, dim=0).all().item(),
    torch.any(sig > 1).item(),
)
print("sort axis", r(torch.sort(sig, axis=1).values[0], 3), torch.argsort(sig, axis=0)[:, 0].tolist())
print("logsumexp", r(torch.logsumexp(sig, axis=1), 3), r(torch.logsumexp(sig, dim=1, keepdim=True), 3))
print(
    "norm",
    r(torch.linalg.norm(sig, axis=1), 3),
    round(torch.linalg.norm(sig).item(), 4),
    r(torch.norm(sig, dim=1, p=1), 3),
)
print("median/mode", r(torch.median(sig, axis=1).values, 3), torch.nanmedian(sig, axis=0).values.shape)
print("count_nonzero", torch.count_nonzero(sig > 0, axis=1).tolist(), torch.count_nonzero(sig > 0, dim=(0, 1)).item())

# z-scores and a moving average three ways
z = (sig - sig.mean(1, keepdim=True)) / sig.std(1, keepdim=True)
print("zscore", r(z[0], 5), r(z.mean(1), 3), r(z.std(1), 3))
w = 3
ma_unfold = sig.unfold(1, w, 1).mean(-1)
cs = torch.cumsum(torch.nn.functional.pad(sig, (1, 0)), 1)
ma_cumsum = (cs[:, w:] - cs[:, :-w]) / w
ma_conv = torch.nn.functional.conv1d(sig[:, None], torch.full((1, 1, w), 1.0 / w))[:, 0]
print(
    "moving avg",
    ma_unfold.shape,
    r(ma_unfold[0], 4),
    torch.allclose(ma_unfold, ma_cumsum, atol=1e-6),
    torch.allclose(ma_unfold, ma_conv, atol=1e-6),
)
print("ewm", r(torch.tensor([0.5**k for k in range(4)]).flip(0), 4))

# array manipulation aliases
print("swapaxes", torch.swapaxes(sig, 0, 1).shape, torch.swapdims(sig, 0, 1).is_contiguous(), sig.transpose(0, 1).shape)
print(
    "moveaxis",
    torch.moveaxis(torch.zeros(2, 3, 4), 0, -1).shape,
    torch.movedim(torch.zeros(2, 3, 4), (0, 1), (2, 0)).shape,
)
print(
    "concatenate",
    torch.concatenate([sig, sig], axis=0).shape,
    torch.concat((sig, sig), dim=1).shape,
    torch.cat([sig[:, :2], sig[:, :1]], -1).shape,
)
print(
    "stack",
    torch.stack([sig[0], sig[1]], axis=1).shape,
    torch.hstack([torch.ones(2), torch.zeros(3)]).tolist(),
    torch.vstack([torch.ones(2), torch.zeros(2)]).shape,
)
print(
    "column_stack",
    torch.column_stack([torch.arange(3), torch.arange(3) * 2]).tolist(),
    torch.dstack([torch.ones(2), torch.ones(2)]).shape,
)
print(
    "tile",
    torch.tile(torch.tensor([1, 2]), (2,)).tolist(),
    torch.tile(torch.tensor([[1, 2]]), (2, 2)).shape,
    torch.tensor([1, 2]).repeat(2, 1).shape,
)
print(
    "repeat_interleave",
    torch.repeat_interleave(torch.tensor([1, 2, 3]), 2).tolist(),
    torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([0, 1, 2])).tolist(),
    torch.repeat_interleave(torch.tensor([[1, 2]]), 2, dim=0).tolist(),
)
print(
    "split",
    [t.shape[1] for t in torch.tensor_split(sig, 3, dim=1)],
    [t.shape[1] for t in torch.split(sig, 4, dim=1)],
    [t.tolist() for t in torch.tensor_split(torch.arange(7), [2, 5])],
)
print(
    "array_split-like",
    [t.numel() for t in torch.chunk(torch.arange(10), 4)],
    [t.numel() for t in torch.tensor_split(torch.arange(10), 4)],
)
print(
    "squeeze axis",
    torch.zeros(1, 3, 1).squeeze(0).shape,
    torch.squeeze(torch.zeros(1, 3, 1), (0, 2)).shape,
    torch.zeros(3).unsqueeze(-1).shape,
)
print("flatten/ravel", torch.ravel(sig.T).shape, sig.flatten(0).shape, torch.flatten(torch.zeros(2, 3, 4), 1).shape)
print(
    "atleast",
    torch.atleast_1d(torch.tensor(1.0)).shape,
    torch.atleast_3d(torch.ones(2)).shape,
    torch.atleast_2d(torch.ones(2), torch.ones(3))[1].shape,
)
print(
    "clip", torch.clip(torch.tensor([-2.0, 0.5, 3.0]), -1, 1).tolist(), torch.clip(torch.tensor([1, 5]), max=3).tolist()
)
print(
    "round decimals",
    torch.round(torch.tensor([1.23456, -0.5, 2.5]), decimals=3).tolist(),
    torch.round(torch.tensor([125.0]), decimals=-1).tolist(),
)
print(
    "where/nonzero",
    torch.where(sig[0] > 0, sig[0], torch.zeros(())).gt(0).sum().item(),
    torch.nonzero(sig[0] > 1).flatten().tolist(),
)
print("diff axis", torch.diff(sig, axis=0).shape, torch.diff(torch.tensor([1, 4, 9, 16]), n=2).tolist())
print(
    "linspace/arange",
    torch.linspace(0, 1, steps=5).tolist(),
    torch.arange(0, 1, 0.25).tolist(),
    torch.logspace(0, 2, 3).tolist(),
)
print(
    "full/like",
    torch.full((2,), 7).dtype,
    torch.full((2,), 7.0).dtype,
    torch.full_like(sig[0, :2], 3, dtype=torch.int32).tolist(),
    torch.zeros_like(torch.tensor([True])).dtype,
)
print(
    "eye/identity",
    torch.eye(2, 3).tolist(),
    torch.eye(2, dtype=torch.int64).dtype,
    torch.tril(torch.ones(3, 3)).sum().item(),
)

# dtypes of integer, boolean and mixed inputs
ii = torch.tensor([1, 2, 3])
bb = torch.tensor([True, False, True])
ff = torch.tensor([0.5, 1.5, 2.5])
print(
    "int dtypes",
    (ii / 2).dtype,
    (ii // 2).dtype,
    (ii * 1.5).dtype,
    (ii**2).dtype,
    (ii**-1.0).dtype,
    ii.sum().dtype,
    ii.float().mean().dtype,
)
print(
    "bool dtypes",
    (bb + bb).dtype,
    (bb * 2).dtype,
    (bb + 0.5).dtype,
    bb.sum().dtype,
    torch.cumsum(bb, 0).dtype,
    (bb & True).dtype,
    (~bb).tolist(),
)
print(
    "mixed",
    (ii + ff).dtype,
    (ii + ff.double()).dtype,
    (ff + torch.tensor(1, dtype=torch.int64)).dtype,
    (ii.to(torch.int8) + torch.tensor(1000)).dtype,
    (ii.to(torch.uint8) + torch.tensor([-1], dtype=torch.int8)).dtype,
)
print(
    "abs/sign",
    torch.abs(torch.tensor([-3, 2], dtype=torch.int8)).tolist(),
    torch.sign(bb).dtype,
    torch.sign(torch.tensor([-2, 0, 4])).tolist(),
    torch.neg(ii).dtype,
)
print(
    "maximum",
    torch.maximum(ii, torch.tensor([2.5])).dtype,
    torch.fmax(ff, torch.tensor([float("nan"), 1.0, 9.0])).tolist(),
    torch.minimum(bb, torch.tensor([True])).dtype,
)
print(
    "sqrt/exp int",
    torch.sqrt(ii).dtype,
    torch.exp(bb).dtype,
    torch.floor(ii).dtype,
    torch.ceil(ii).tolist(),
    torch.trunc(ff).tolist(),
    torch.frac(ff).tolist(),
)

for name, bad in [
    ("std ddof", lambda: torch.std(sig, axis=1, ddof=1)),
    ("mean dtype int", lambda: torch.mean(ii)),
    ("quantile axis", lambda: torch.quantile(sig, 0.5, axis=1)),
    ("clip a_min", lambda: torch.clip(sig, a_min=0)),
    ("cat axis", lambda: torch.cat([sig, sig], axis=0).shape),
    ("concatenate tuple", lambda: torch.concatenate((sig, sig[:, :2]), axis=0)),
    ("expand_dims", lambda: torch.expand_dims(sig, 0)),
    ("linspace num", lambda: torch.linspace(0, 1, num=5)),
    ("reshape -1 twice", lambda: sig.reshape(-1, -1)),
    ("tile neg", lambda: torch.tile(ii, (-1,))),
    ("repeat_interleave neg", lambda: torch.repeat_interleave(ii, torch.tensor([1, -1, 1]))),
    ("unfold too big", lambda: sig.unfold(1, 11, 1)),
    ("bool sub", lambda: bb - bb),
    ("bool neg", lambda: -bb),
    ("int sqrt inplace", lambda: ii.sqrt_()),
    ("int true div inplace", lambda: ii.clone().div_(2)),
]:
    try:
        out = bad()
        print(name, "ok", out)
    except (RuntimeError, ValueError, IndexError) as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:110])
    except (TypeError, AttributeError) as e:  # the argument parser's wording differs by overload count
        print(name, type(e).__name__, "axis" in str(e) or "ddof" in str(e) or "a_min" in str(e) or "num" in str(e))
