"""OpInfo-style sweep: every reduction and scan over every input dtype, showing the result dtype PyTorch picks
(sum of bool is int64, mean of int refuses, argmax of bool...) and the values."""

import math

import torch

DTYPES = [
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
]


def short(d):
    return str(d).replace("torch.", "")


def rnd(v):
    if isinstance(v, list):
        return [rnd(x) for x in v]
    if isinstance(v, complex):
        return complex(rnd(v.real), rnd(v.imag))
    if isinstance(v, float):
        return v if not math.isfinite(v) else float(f"{v:.4g}") + 0.0
    return v


def desc(r):
    if isinstance(r, torch.Tensor):
        return f"{short(r.dtype)} {tuple(r.shape)} {rnd(r.tolist())}"
    return "(" + "; ".join(desc(x) for x in r) + ")"


def show(label, fn):
    try:
        print(label, "->", desc(fn()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def sample(dt):
    if dt == torch.bool:
        return torch.tensor([[True, False, True], [True, True, False]])
    return torch.tensor([[3, 1, 2], [1, 4, 2]]).to(dt)


OPS = {
    "sum": lambda x: torch.sum(x),
    "sum0": lambda x: x.sum(0),
    "prod": lambda x: torch.prod(x),
    "prod1": lambda x: x.prod(1),
    "mean": lambda x: torch.mean(x),
    "nanmean": lambda x: torch.nanmean(x),
    "nansum": lambda x: torch.nansum(x),
    "std": lambda x: torch.std(x),
    "var1": lambda x: torch.var(x, 1),
    "amax": lambda x: torch.amax(x, 0),
    "max": lambda x: torch.max(x),
    "max1": lambda x: torch.max(x, 1),
    "min0": lambda x: torch.min(x, 0),
    "argmax": lambda x: torch.argmax(x),
    "argmin1": lambda x: torch.argmin(x, 1),
    "median": lambda x: torch.median(x),
    "median1": lambda x: torch.median(x, 1),
    "mode1": lambda x: torch.mode(x, 1),
    "logsumexp": lambda x: torch.logsumexp(x, 1),
    "all": lambda x: torch.all(x),
    "any1": lambda x: torch.any(x, 1),
    "norm": lambda x: torch.norm(x),
    "count_nonzero": lambda x: torch.count_nonzero(x, 0),
    "cumsum": lambda x: torch.cumsum(x, 1),
    "cumprod": lambda x: torch.cumprod(x, 0),
    "cummax": lambda x: torch.cummax(x, 1),
    "sort": lambda x: torch.sort(x, 1),
    "topk": lambda x: torch.topk(x, 1),
    "unique": lambda x: torch.unique(x),
    "bincount": lambda x: torch.bincount(x.flatten()),
    "histc": lambda x: torch.histc(x, bins=4, min=0, max=4),
    "dot": lambda x: torch.dot(x[0], x[1]),
    "matmul": lambda x: x @ x.T,
    "trace": lambda x: torch.trace(x),
    "diff": lambda x: torch.diff(x),
}
for name, op in OPS.items():
    print("==", name)
    for dt in DTYPES:
        show(f"{name} {short(dt)}", lambda: op(sample(dt)))
print("== method forms with dtype=")
for dt in [torch.bool, torch.uint8, torch.int32, torch.float16]:
    show(f"sum(dtype=float32) {short(dt)}", lambda: sample(dt).sum(dtype=torch.float32))
    show(f"mean(dtype=float64) {short(dt)}", lambda: sample(dt).mean(dtype=torch.float64))
    show(f"prod(dtype=int8) {short(dt)}", lambda: sample(dt).prod(dtype=torch.int8))
    show(f"cumsum(dtype=float16) {short(dt)}", lambda: sample(dt).cumsum(1, dtype=torch.float16))
    show(f"softmax(dtype=float32) {short(dt)}", lambda: sample(dt).softmax(1, dtype=torch.float32))
