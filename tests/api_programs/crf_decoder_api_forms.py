"""The less common call forms decoding code meets: out= tuples for max/topk/sort/cummax, out= for gather,
index_select and logsumexp, legacy size_average/reduce loss arguments, named return types and their reprs,
PackedSequence and loss-module reprs, tensors holding -inf/nan printed, and the out= errors."""

import torch

nn = torch.nn
F = torch.nn.functional
rnn_utils = torch.nn.utils.rnn
torch.manual_seed(15)

x = torch.randn(3, 5)
v, i = torch.empty(3), torch.empty(3, dtype=torch.long)
r = torch.max(x, 1, out=(v, i))
print("max out", type(r).__name__, r.values is v, v.round(decimals=4).tolist(), i.tolist())
tv, ti = torch.empty(0), torch.empty(0, dtype=torch.long)
torch.topk(x, 2, dim=1, largest=True, sorted=True, out=(tv, ti))
print("topk out", tv.shape, ti.tolist())
sv, si = torch.empty(3, 5), torch.empty(3, 5, dtype=torch.long)
torch.sort(x, dim=0, descending=True, out=(sv, si))
print("sort out", si.tolist())
cv, ci = torch.empty(3, 5), torch.empty(3, 5, dtype=torch.long)
torch.cummax(x, 1, out=(cv, ci))
print("cummax out", ci.tolist())
g = torch.empty(3, 2)
torch.gather(x, 1, torch.tensor([[0, 4], [1, 1], [2, 0]]), out=g)
print("gather out", g.round(decimals=4).tolist())
s = torch.empty(2, 5)
torch.index_select(x, 0, torch.tensor([2, 0]), out=s)
print("index_select out", s.round(decimals=4).tolist())
l = torch.empty(3)
torch.logsumexp(x, 1, out=l)
print("logsumexp out", l.round(decimals=4).tolist())
am = torch.empty(3, dtype=torch.long)
torch.argmax(x, 1, out=am)
print("argmax out", am.tolist(), torch.argmax(x), torch.argmin(x, dim=0, keepdim=True).tolist())

print(torch.cummax(torch.tensor([1, 3, 2]), 0))
print(torch.sort(torch.tensor([2.0, float("nan"), 1.0, float("-inf")])))
print(torch.topk(torch.tensor([1.0, float("nan"), 3.0]), 2))
print(torch.kthvalue(torch.tensor([3.0, 1.0, 2.0]), 2))
print(torch.mode(torch.tensor([1, 2, 2, 3, 3])))
print(torch.aminmax(torch.tensor([[1.0, float("-inf")], [4.0, 2.0]]), dim=1))
print(torch.tensor([[0.0, float("-inf"), -10000.0], [float("nan"), 1.5, float("inf")]]))
print(torch.tensor([float("-inf"), -1e4]), torch.tensor([-1e-5, 12345.678]))

logp = F.log_softmax(torch.randn(4, 3), 1)
tgt = torch.tensor([0, 2, 1, 2])
for kw in [
    dict(size_average=False),
    dict(reduce=False),
    dict(size_average=True, reduce=True),
    dict(reduce=False, size_average=False),
]:
    print("legacy", kw, F.nll_loss(logp, tgt, **kw).round(decimals=4).tolist())
print(nn.NLLLoss(size_average=False), nn.NLLLoss(size_average=False).reduction)
print(nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True), nn.CrossEntropyLoss(ignore_index=5).ignore_index)
print(nn.CrossEntropyLoss(weight=torch.ones(3), label_smoothing=0.1))
ps = rnn_utils.pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0])])
print(ps)
print(rnn_utils.pack_sequence([torch.tensor([1, 2]), torch.tensor([3, 4, 5])], enforce_sorted=False))

for bad in [
    lambda: torch.max(x, 1, out=(torch.empty(3), torch.empty(3))),
    lambda: torch.gather(x, 1, torch.tensor([[0], [1], [2]]), out=torch.empty(3, 1, dtype=torch.long)),
    lambda: torch.logsumexp(x, 1, out=torch.empty(3, dtype=torch.long)),
    lambda: torch.sort(x, out=(torch.empty(3, 5), torch.empty(3, 5))),
    lambda: torch.gather(x, 1, torch.tensor([[0], [1], [2]]), out=torch.empty(3, 1, dtype=torch.float64)),
    lambda: torch.index_select(x, 0, torch.tensor([0]), out=torch.empty(1, 5, dtype=torch.float64)),
    lambda: torch.amax(x, 1, out=torch.empty(3, dtype=torch.float64)),
    lambda: x.max(dim=(0, 1)),
    lambda: x.gather(1.0, torch.tensor([[0]])),
    lambda: torch.logsumexp(x, ()),
    lambda: F.ctc_loss(torch.zeros(4, 1, 3, 1), torch.tensor([[1]]), [4], [1]),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
