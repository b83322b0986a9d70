"""OpInfo-style sweep: sort, argsort, topk, kthvalue, unique, searchsorted, bucketize, isin and isclose over every
dtype, with descending/stable/sorted/largest flags, ties, empty and 0-dim inputs."""

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
        return v if not math.isfinite(v) else round(v, 3) + 0.0
    return v


def desc(r):
    if isinstance(r, torch.Tensor):
        return f"{short(r.dtype)} {tuple(r.shape)} {rnd(r.tolist())}"
    if isinstance(r, (tuple, list)):
        return "(" + "; ".join(desc(x) for x in r) + ")"
    return repr(r)


def show(label, fn):
    try:
        print(label, "->", desc(fn()))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def sample(dt):
    if dt == torch.bool:
        return torch.tensor([True, False, True, False, True])
    return torch.tensor([3, 1, 2, 1, 3]).to(dt)


OPS = {
    "sort": lambda x: torch.sort(x, stable=True),
    "sort desc": lambda x: torch.sort(x, descending=True, stable=True),
    "argsort stable": lambda x: torch.argsort(x, stable=True),
    "msort": lambda x: torch.msort(x),
    "topk 2": lambda x: torch.topk(x, 2),
    "topk 2 smallest": lambda x: torch.topk(x, 2, largest=False),
    "kthvalue 2": lambda x: torch.kthvalue(x, 2),
    "unique": lambda x: torch.unique(x),
    "unique counts inverse": lambda x: torch.unique(x, return_inverse=True, return_counts=True),
    "unique unsorted dim": lambda x: torch.unique(x, sorted=True, dim=0),
    "unique_consecutive": lambda x: torch.unique_consecutive(x, return_counts=True),
    "searchsorted": lambda x: torch.searchsorted(torch.sort(x).values, x[:2]),
    "searchsorted right": lambda x: torch.searchsorted(torch.sort(x).values, x[:2], right=True),
    "bucketize": lambda x: torch.bucketize(x, torch.tensor([1, 2]).to(x.dtype)),
    "isin": lambda x: torch.isin(x, x[:2]),
    "isclose": lambda x: torch.isclose(x, x.flip(0)),
    "allclose": lambda x: torch.tensor(torch.allclose(x, x)),
    "equal": lambda x: torch.tensor(torch.equal(x, x.clone())),
    "max": lambda x: torch.max(x),
    "maximum": lambda x: torch.maximum(x, x.flip(0)),
    "sort empty": lambda x: torch.sort(x[:0]),
    "topk 0-dim": lambda x: torch.topk(x[0], 1),
    "sort 0-dim": lambda x: torch.sort(x[0]),
}
for name, op in OPS.items():
    print("==", name)
    for dt in DTYPES:
        show(f"{name} {short(dt)}", lambda: op(sample(dt)))
print("== flags and errors")
x = torch.tensor([[3.0, float("nan"), 1.0], [2.0, 2.0, -1.0]])
show("sort nan last", lambda: torch.sort(x, dim=1))
show("sort desc nan first", lambda: torch.sort(x, dim=1, descending=True))
show("topk nan largest", lambda: torch.topk(x, 1, dim=1))
show("topk k too big", lambda: torch.topk(x, 4))
show("topk k negative", lambda: torch.topk(x, -1))
show("topk dim 0", lambda: torch.topk(x, 2, dim=0, sorted=True))
show("kthvalue k 0", lambda: torch.kthvalue(x, 0))
show("kthvalue k too big", lambda: torch.kthvalue(x, 4))
show("argsort descending ties", lambda: torch.argsort(torch.tensor([1, 2, 2, 1]), descending=True, stable=True))
show("searchsorted 2-d", lambda: torch.searchsorted(torch.tensor([[1, 3], [2, 4]]), torch.tensor([[2], [3]])))
show("searchsorted side", lambda: torch.searchsorted(torch.tensor([1, 2, 2, 3]), torch.tensor([2]), side="right"))
show("searchsorted side conflict", lambda: torch.searchsorted(torch.tensor([1, 2]), torch.tensor([2]), right=False,
                                                             side="right"))
show("searchsorted sorter", lambda: torch.searchsorted(torch.tensor([3, 1, 2]), torch.tensor([2]),
                                                      sorter=torch.tensor([1, 2, 0])))
show("searchsorted out_int32", lambda: torch.searchsorted(torch.tensor([1, 2]), torch.tensor([2]), out_int32=True))
show("searchsorted dtype mismatch", lambda: torch.searchsorted(torch.tensor([1, 2]), torch.tensor([2.0])))
show("searchsorted scalar", lambda: torch.searchsorted(torch.tensor([1.0, 2.0]), 1.5))
show("bucketize right", lambda: torch.bucketize(torch.tensor([1, 2, 3]), torch.tensor([1, 2]), right=True))
show("unique dim 1", lambda: torch.unique(torch.tensor([[1, 1, 2], [3, 3, 4]]), dim=1, return_counts=True))
show("unique dim out of range", lambda: torch.unique(torch.tensor([1, 2]), dim=1))
show("unique_consecutive dim", lambda: torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 3]]), dim=0))
show("isclose int float", lambda: torch.isclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
show("isclose rtol atol", lambda: torch.isclose(torch.tensor([1.0, 1.1]), torch.tensor([1.05, 1.0]), rtol=0, atol=0.06))
show("isclose negative tol", lambda: torch.isclose(torch.tensor([1.0]), torch.tensor([1.0]), rtol=-1))
show("allclose shapes", lambda: torch.tensor(torch.allclose(torch.ones(2), torch.ones(3))))
show("equal shapes", lambda: torch.tensor(torch.equal(torch.ones(2), torch.ones(3))))
show("equal dtypes", lambda: torch.tensor(torch.equal(torch.ones(2), torch.ones(2, dtype=torch.int64))))
