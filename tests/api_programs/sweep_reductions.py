"""OpInfo-style sweep: reductions over empty, 0-dim and 2-d inputs with dim=None/int/negative/tuple, keepdim and
dtype=, printing shapes, dtypes and values or the error."""

import math

import torch


def short(d):
    return str(d).replace("torch.", "")


def rnd(v):
    if isinstance(v, (list, tuple)):
        return [rnd(x) for x in v]
    if isinstance(v, float):
        return v if not math.isfinite(v) else round(v, 4) + 0.0
    return v


def desc(r):
    if isinstance(r, torch.Tensor):
        return f"{short(r.dtype)} {tuple(r.shape)} {rnd(r.tolist())}"
    if isinstance(r, tuple):
        return "(" + "; ".join(desc(x) for x in r) + ")"
    return repr(r)


def show(label, fn):
    try:
        print(label, "->", desc(fn()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


INPUTS = {
    "2x3": torch.tensor([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]]),
    "0dim": torch.tensor(2.5),
    "empty0": torch.zeros(0),
    "2x0": torch.zeros(2, 0),
    "0x3": torch.zeros(0, 3),
    "int2x3": torch.tensor([[1, 2, 3], [4, 5, 6]]),
    "bool2x3": torch.tensor([[True, False, True], [True, True, True]]),
}
DIMS = [None, 0, -1, (0, 1), 1]

REDUCTIONS = {
    "sum": lambda x, **k: torch.sum(x, **k),
    "prod": lambda x, **k: torch.prod(x, **k),
    "mean": lambda x, **k: torch.mean(x, **k),
    "nansum": lambda x, **k: torch.nansum(x, **k),
    "std": lambda x, **k: torch.std(x, **k),
    "var": lambda x, **k: torch.var(x, **k),
    "amax": lambda x, **k: torch.amax(x, **k),
    "amin": lambda x, **k: torch.amin(x, **k),
    "argmax": lambda x, **k: torch.argmax(x, **k),
    "logsumexp": lambda x, **k: torch.logsumexp(x, **k),
    "all": lambda x, **k: torch.all(x, **k),
    "any": lambda x, **k: torch.any(x, **k),
    "count_nonzero": lambda x, **k: torch.count_nonzero(x, **k),
}

for name, fn in REDUCTIONS.items():
    print("==", name)
    for iname, x in INPUTS.items():
        for dim in DIMS:
            for keep in [False, True]:
                kw = {} if dim is None else {"dim": dim}
                if keep and dim is not None:
                    kw["keepdim"] = True
                elif keep:
                    continue
                if name == "count_nonzero":
                    kw.pop("keepdim", None)
                if name == "prod" and isinstance(dim, tuple) and not keep:
                    continue  # PyTorch's parser lists both overloads here (docs/pytorch_compat.md, progs-v)
                show(f"{name} {iname} {kw}", lambda: fn(x, **kw))

print("== values/indices reductions")
for name in ["max", "min", "median", "mode", "kthvalue"]:
    for iname, x in INPUTS.items():
        for dim in [None, 0, -1]:
            if name == "kthvalue":
                show(f"{name} {iname} {dim}", lambda: torch.kthvalue(x, 1, dim=-1 if dim is None else dim))
            elif dim is None:
                show(f"{name} {iname}", lambda: getattr(torch, name)(x))
            else:
                show(f"{name} {iname} {dim}", lambda: getattr(torch, name)(x, dim))
                show(f"{name} {iname} {dim} keepdim", lambda: getattr(torch, name)(x, dim, keepdim=True))

print("== scans")
for name in ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]:
    for iname, x in INPUTS.items():
        for dim in [0, -1]:
            show(f"{name} {iname} {dim}", lambda: getattr(torch, name)(x, dim))

print("== dtype= argument")
for name in ["sum", "prod", "mean", "cumsum", "nansum"]:
    for iname in ["int2x3", "bool2x3", "2x3"]:
        for dt in [torch.int32, torch.float64, torch.float16]:
            if name in ("cumsum",):
                show(f"{name} {iname} dtype={short(dt)}", lambda: getattr(torch, name)(INPUTS[iname], 0, dtype=dt))
            else:
                show(f"{name} {iname} dtype={short(dt)}", lambda: getattr(torch, name)(INPUTS[iname], dtype=dt))

print("== correction and unbiased")
x = INPUTS["2x3"]
for kw in [{}, {"correction": 0}, {"correction": 2}, {"unbiased": False}, {"dim": 1, "correction": 3}]:
    show(f"var {kw}", lambda: torch.var(x, **kw))
    show(f"std_mean {kw}", lambda: torch.std_mean(x, **kw))
show("var 1-element", lambda: torch.var(torch.tensor([3.0])))
show("std int", lambda: torch.std(INPUTS["int2x3"]))
show("mean int", lambda: torch.mean(INPUTS["int2x3"]))
show("sum dim out of range", lambda: torch.sum(x, dim=2))
show("sum repeated dim", lambda: torch.sum(x, dim=(0, 0)))
show("amax empty dim", lambda: torch.amax(x, dim=()))
show("sum empty tuple", lambda: torch.sum(x, dim=()))
show("norm", lambda: torch.norm(x))
show("norm p=1 dim", lambda: torch.norm(x, p=1, dim=1))
show("aminmax", lambda: torch.aminmax(x, dim=0))
show("var_mean 0dim", lambda: torch.var_mean(INPUTS["0dim"]))
