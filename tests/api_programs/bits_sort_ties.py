"""Sorting, ranking and counting integer data with ties, as label and histogram code does: argmax/argmin
on ties, stable sorts, unique with inverse and counts, bincount, searchsorted and the dtypes they return."""

import torch

torch.manual_seed(0)
labels = torch.randint(0, 5, (20,), dtype=torch.int16)
print("labels", labels.tolist())
print(
    "argmax ties",
    torch.tensor([1, 9, 9, 3]).argmax().item(),
    torch.tensor([[4, 4], [1, 4]]).argmax(1).tolist(),
    torch.tensor([[4, 4], [1, 4]]).argmax().item(),
    torch.tensor([2, 0, 0], dtype=torch.uint8).argmin().item(),
)
print("max ties", torch.tensor([[3, 7, 7]]).max(1), torch.tensor([5, 1, 1]).min(0).indices.item())
print("bool argmax", torch.tensor([False, True, True]).int().argmax().item())
v, i = torch.sort(labels, stable=True)
print("sorted", v.tolist(), v.dtype)
print("stable idx", i.tolist())
print("desc stable", torch.sort(labels, descending=True, stable=True).indices.tolist())
print("argsort", torch.argsort(labels, stable=True).tolist() == i.tolist(), torch.argsort(labels).dtype)
print("msort", torch.msort(labels.view(4, 5)).tolist())

u, inv, cnt = torch.unique(labels, return_inverse=True, return_counts=True)
print("unique", u.tolist(), u.dtype, "counts", cnt.tolist(), cnt.dtype, "inverse ok", torch.equal(u[inv], labels))
print(
    "mode",
    tuple(x.item() for x in torch.mode(labels)),
    "median",
    labels.median().item(),
    "kthvalue",
    tuple(x.item() for x in labels.kthvalue(10)),
)
print("nanmedian int", torch.tensor([3, 1, 2, 2]).nanmedian().item())
pairs = torch.stack([labels[:10] % 2, labels[:10] // 2], 1)
up, ip, cp = torch.unique(pairs, dim=0, return_inverse=True, return_counts=True)
print("unique rows", up.tolist(), ip.tolist(), cp.tolist())
print("unique cols", torch.unique(torch.tensor([[1, 1, 0], [2, 2, 0]], dtype=torch.int8), dim=1).tolist())
uc, ic, cc = torch.unique_consecutive(torch.sort(labels).values, return_inverse=True, return_counts=True)
print("unique_consecutive", uc.tolist(), cc.tolist(), ic[:6].tolist())

print("bincount", torch.bincount(labels.long()).tolist(), torch.bincount(labels.long(), minlength=7).tolist())
w = torch.linspace(0, 1, 20, dtype=torch.float64)
print(
    "weighted",
    torch.bincount(labels.long(), weights=w).round(decimals=4).tolist(),
    torch.bincount(labels.long(), weights=w.float()).dtype,
    torch.bincount(labels.int(), weights=w.half()).dtype,
)
print(
    "bincount uint8",
    torch.bincount(labels.to(torch.uint8)).dtype,
    torch.bincount(torch.tensor([], dtype=torch.long)).tolist(),
)
for bad in [
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(labels.float()),
    lambda: torch.bincount(torch.zeros(2, 2, dtype=torch.long)),
    lambda: torch.bincount(labels.long(), minlength=-1),
]:
    try:
        print(bad())
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
print("histc int", end=" ")
try:
    print(torch.histc(labels, bins=5))
except RuntimeError as e:
    print(type(e).__name__, e)
print("histc float", torch.histc(labels.float(), bins=5, min=0, max=5).tolist())
print("histogram", torch.histogram(labels.double(), bins=5).hist.tolist())

edges = torch.tensor([0, 2, 2, 4], dtype=torch.int32)
q = torch.tensor([-1, 0, 2, 3, 4, 9], dtype=torch.int32)
print(
    "searchsorted",
    torch.searchsorted(edges, q).tolist(),
    torch.searchsorted(edges, q, right=True).tolist(),
    torch.searchsorted(edges, q, side="right").dtype,
    torch.searchsorted(edges, q, out_int32=True).dtype,
)
print("bucketize", torch.bucketize(q, edges).tolist(), torch.bucketize(q, edges, right=True).tolist())
print(
    "sorter", torch.searchsorted(torch.tensor([4, 0, 2]), torch.tensor([1, 3]), sorter=torch.tensor([1, 2, 0])).tolist()
)
print("scalar query", torch.searchsorted(edges, 2), torch.bucketize(3, edges))
print(
    "topk ties",
    torch.topk(torch.tensor([5, 7, 7, 1, 7]), 2).indices.tolist(),
    torch.topk(torch.tensor([5, 7, 7, 1, 7]), 2, largest=False).indices.tolist(),
)
print(
    "cummax",
    torch.tensor([1, 3, 3, 2, 5]).cummax(0).indices.tolist(),
    torch.tensor([4, 2, 2, 5]).cummin(0).indices.tolist(),
)
print("count_nonzero", torch.count_nonzero(labels.view(4, 5), dim=1).tolist(), (labels == 2).sum().dtype)
rank = torch.empty_like(i)
rank[i] = torch.arange(len(i))
print("ranks", rank.tolist())
