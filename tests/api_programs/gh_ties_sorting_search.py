"""GitHub issues about ties and order: which index argmax/max/min/cummax/mode return among equal values, sort
and argsort stability (ascending and descending, -0.0 vs 0.0), searchsorted/bucketize sides and sorters,
kthvalue/median among ties, and sorting bool, int8 and uint8 tensors."""

import torch


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: {out.dtype} {out.tolist()}")
    elif isinstance(out, tuple):
        print(f"{name}: {[o.tolist() if isinstance(o, torch.Tensor) else o for o in out]}")
    else:
        print(f"{name}: {out}")


t = torch.tensor([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])
show("argmax first", lambda: t.argmax())
show("argmin first", lambda: t.argmin())
show("max dim", lambda: t.max(0))
show("min dim", lambda: t.min(0))
show("max 2d dim1", lambda: torch.tensor([[1, 5, 5], [7, 7, 0]]).max(1))
show("argmax 2d dim0", lambda: torch.tensor([[1, 5, 5], [1, 7, 5]]).argmax(0))
show("argmax keepdim", lambda: torch.tensor([[1, 5, 5]]).argmax(1, keepdim=True))
show("cummax", lambda: t.cummax(0))
show("cummin", lambda: t.cummin(0))
show("mode", lambda: t.mode())
show("median", lambda: t.median(0))
show("median even", lambda: torch.tensor([4.0, 1.0, 3.0, 2.0]).median())
show("kthvalue ties", lambda: t.kthvalue(3))
show("sort stable asc", lambda: t.sort(stable=True))
show("sort stable desc", lambda: t.sort(descending=True, stable=True))
show("argsort stable", lambda: t.argsort(stable=True))
show("argsort desc stable", lambda: t.argsort(descending=True, stable=True))
show("sort zeros", lambda: torch.tensor([0.0, -0.0, 0.0, -0.0]).sort(stable=True))
show("sort signbit", lambda: torch.tensor([0.0, -0.0, -1.0]).sort(stable=True).values.signbit())
show("sort bool", lambda: torch.tensor([True, False, True, False]).sort(stable=True))
show("sort int8", lambda: torch.tensor([-128, 127, 0, -1], dtype=torch.int8).sort())
show("sort uint8", lambda: torch.tensor([255, 0, 128, 1], dtype=torch.uint8).sort(descending=True))
show("sort 2d dim0", lambda: torch.tensor([[3, 1], [1, 3], [2, 2]]).sort(dim=0, stable=True))
show("sort inf", lambda: torch.tensor([float("inf"), -float("inf"), 0.0]).sort())
show("msort", lambda: torch.msort(torch.tensor([[3, 1], [1, 3]])))
show("topk sorted", lambda: torch.tensor([1.0, 5.0, 3.0, 4.0]).topk(3))
show("topk smallest", lambda: torch.tensor([1.0, 5.0, 3.0, 4.0]).topk(2, largest=False))
show("topk k too big", lambda: torch.tensor([1.0, 2.0]).topk(3))
show("topk 2d", lambda: torch.tensor([[1.0, 9.0, 3.0], [8.0, 2.0, 7.0]]).topk(2, dim=1))
show("topk int", lambda: torch.tensor([4, 1, 9]).topk(1))
show("kthvalue out of range", lambda: t.kthvalue(7))

# searchsorted and bucketize
s = torch.tensor([1.0, 2.0, 2.0, 2.0, 5.0])
v = torch.tensor([2.0, 0.0, 6.0, 5.0, 3.5])
show("searchsorted left", lambda: torch.searchsorted(s, v))
show("searchsorted right", lambda: torch.searchsorted(s, v, right=True))
show("searchsorted side", lambda: torch.searchsorted(s, v, side="right"))
show("searchsorted int32", lambda: torch.searchsorted(s, v, out_int32=True))
show("searchsorted scalar", lambda: torch.searchsorted(s, 2.0))
show("searchsorted 2d", lambda: torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3], [3]])))
show("searchsorted sorter", lambda: torch.searchsorted(torch.tensor([5.0, 1.0, 3.0]), torch.tensor([2.0, 4.0]),
                                                       sorter=torch.tensor([1, 2, 0])))
show("searchsorted conflicting", lambda: torch.searchsorted(s, v, right=False, side="right"))
show("searchsorted bad side", lambda: torch.searchsorted(s, v, side="middle"))
show("searchsorted dims", lambda: torch.searchsorted(torch.zeros(2, 3), torch.zeros(3)))
show("bucketize", lambda: torch.bucketize(v, s))
show("bucketize right", lambda: torch.bucketize(v, s, right=True))
show("bucketize 2d input", lambda: torch.bucketize(torch.tensor([[0.5, 2.0], [9.0, 1.0]]), s))
show("bucketize int", lambda: torch.bucketize(torch.tensor([1, 4, 7]), torch.tensor([0, 4, 8])))
show("histc", lambda: torch.histc(torch.tensor([0.0, 1.0, 1.0, 2.0, 3.0]), bins=3, min=0, max=3))
show("histogram", lambda: torch.histogram(torch.tensor([0.0, 1.0, 1.0, 2.0, 3.0]), bins=3))
show("bincount", lambda: torch.bincount(torch.tensor([2, 0, 2, 5])))
show("isin", lambda: torch.isin(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4, 6])))
show("isin invert", lambda: torch.isin(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4]), invert=True))
show("unique_consecutive counts", lambda: torch.unique_consecutive(torch.tensor([1, 1, 2, 1]),
                                                                     return_counts=True))
show("sort then unique_consecutive", lambda: torch.unique_consecutive(t.sort().values))
ranks = t.argsort(stable=True).argsort()
show("ranks via double argsort", lambda: ranks)
