"""The mistakes survival code makes and what torch does with them: NaN from log(0) and 0*log(0), empty risk sets,
int event indicators mixed with float risks, in-place ops on integer tensors, bad shapes, and nan_to_num repairs."""

import warnings

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def show(f):
    try:
        r = f()
        print("ok", r)
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, str(e).split("\n")[0])


surv = torch.tensor([1.0, 0.5, 0.0, 0.0])
print("log S", torch.log(surv), "log(1-S)", torch.log(1 - surv))
print("0*log0", 0 * torch.log(surv), torch.xlogy(torch.zeros(4), surv), torch.special.xlog1py(torch.zeros(4), -surv))
s = surv.clone().requires_grad_()
torch.log(s).sum().backward()
print("grad", s.grad)
s2 = surv.clone().requires_grad_()
torch.log(s2.clamp_min(1e-8)).sum().backward()
print("clamped grad", s2.grad)
s3 = surv.clone().requires_grad_()
torch.xlogy(torch.tensor([1.0, 1.0, 0.0, 0.0]), s3).sum().backward()
print("xlogy grad", s3.grad)

# an empty risk set: the latest event has nobody left after a mask bug
log_h = torch.tensor([0.3, -0.2, 0.5])
at_risk = torch.tensor([[True, True, True], [False, True, True], [False, False, False]])
lse = torch.logsumexp(log_h.masked_fill(~at_risk, float("-inf")), dim=1)
print("lse", lse, "partial", log_h - lse)
lh = log_h.clone().requires_grad_()
torch.logsumexp(lh.masked_fill(~at_risk, float("-inf")), dim=1).sum().backward()
print("lse grad", lh.grad)
print(torch.logsumexp(torch.tensor([]), 0), torch.logsumexp(torch.empty(0, 3), 0), torch.empty(0).sum())
print(torch.empty(0).mean(), torch.empty(0, dtype=torch.float64).max(dim=0, keepdim=False) if False else "")
show(lambda: torch.empty(0).max())
show(lambda: torch.empty(0, 3).amax(0))
show(lambda: torch.empty(0, 3).max(1))
print("mean over empty events", (log_h * torch.zeros(3)).sum() / torch.zeros(3).sum())
print(torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])))
print(torch.nan_to_num(torch.tensor([float("nan"), float("inf")]), nan=0.0, posinf=1.0).dtype)
print(torch.nan_to_num(torch.tensor([float("nan"), float("inf")], dtype=torch.float16)))
print(torch.nanmean(torch.tensor([1.0, float("nan"), 3.0])), torch.nansum(torch.tensor([float("nan")])))

# integer events times float risks
events = torch.tensor([1, 0, 1])
print((events * log_h).dtype, (events / 2).dtype, (events // 2).dtype, events.sum() / 2)
show(lambda: events.mul_(0.5))
show(lambda: events.float().mul_(0.5))
ev = events.clone()
show(lambda: ev.add_(torch.tensor(1.5)))
show(lambda: torch.log(events))
show(lambda: events.mean())
show(lambda: events.float().mean())
show(lambda: torch.cumsum(events, 0).dtype)
show(lambda: torch.cumsum(events.bool(), 0))
show(lambda: torch.cumprod(events.to(torch.int16), 0).dtype)
show(lambda: torch.cumsum(events, 0, dtype=torch.float16))
show(lambda: torch.tensor([1, 0, 1], dtype=torch.uint8).sum().dtype)
show(lambda: torch.tensor([True, False]).sum())
show(lambda: ~events)
show(lambda: ~events.bool())
show(lambda: -torch.tensor([True]))
show(lambda: events - torch.tensor([True, False, True]))
show(lambda: torch.tensor([True, False]) - torch.tensor([True, True]))
show(lambda: log_h[events])
show(lambda: log_h[events.bool()])
show(lambda: log_h[torch.tensor([1, 0, 1], dtype=torch.uint8)])
show(lambda: log_h[torch.tensor([3])])
show(lambda: log_h.masked_fill(events, 0.0))
show(lambda: F.binary_cross_entropy(torch.tensor([0.5, 1.0]), torch.tensor([1, 0])))
show(lambda: F.binary_cross_entropy(torch.tensor([0.5, 1.0]), torch.tensor([1.0, 0.0])))
show(lambda: F.binary_cross_entropy(torch.tensor([0.5, 1.5]), torch.tensor([1.0, 0.0])))
show(lambda: F.binary_cross_entropy_with_logits(torch.tensor([0.5, 1.5]), torch.tensor([1, 0])))
show(lambda: F.binary_cross_entropy_with_logits(torch.tensor([0.5, 100.0]), torch.tensor([1.0, 0.0])))
show(lambda: F.nll_loss(torch.tensor([[0.1, 0.9]]).log(), torch.tensor([1.0])))
show(lambda: F.nll_loss(torch.tensor([[0.1, 0.9]]).log(), torch.tensor([2])))
show(lambda: F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 1]).int()))
show(lambda: torch.sort(torch.tensor([3, 1, 2]), descending=True).values)
show(lambda: torch.argsort(torch.tensor([[3, 1], [0, 2]]), dim=0, descending=True))
show(lambda: torch.stack([log_h, log_h[:2]]))
show(lambda: log_h.view(3, 1) - log_h.view(1, 2))
show(lambda: torch.exp(torch.tensor([88.0, 89.0, 710.0], dtype=torch.float32)))
show(lambda: torch.exp(torch.tensor([1.0, 88.0, 710.0], dtype=torch.float64)))
show(lambda: torch.exp(torch.tensor([11.0, 12.0], dtype=torch.float16)))
show(lambda: torch.log1p(torch.tensor([-1.0, -1.5])))
show(lambda: torch.expm1(torch.tensor([-1e-10, 1e-10, -50.0])))
show(lambda: torch.sqrt(torch.tensor(-1.0)))
show(lambda: torch.pow(torch.tensor(0.0), torch.tensor([-1.0, 0.0, 0.5])))
show(lambda: torch.tensor([2, 3]) ** -1)
show(lambda: torch.tensor([2, 3]) ** torch.tensor(-1))
show(lambda: torch.tensor(2) ** -1.0)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    show(lambda: torch.tensor([1.0, 2.0]).exp_().sum())
    show(lambda: torch.tensor(torch.tensor([1.0])))
    show(lambda: torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]))
    for x in w:
        print(x.category.__name__, str(x.message).split("\n")[0][:90])
show(lambda: torch.tensor([1.0]).item() + torch.tensor([[2]]).item())
show(lambda: torch.tensor([1.0, 2.0]).item())
show(lambda: int(torch.tensor([2.7])))
show(lambda: float(torch.tensor([])))
show(lambda: bool(torch.tensor([True, False])))
show(lambda: torch.clamp(torch.tensor([0.0, 1.0]), min=torch.tensor(0.1), max=0.9))
show(lambda: torch.clamp(torch.tensor([1, 5]), min=0.5))
show(lambda: torch.clamp(torch.tensor([1, 5]), max=torch.tensor(2.5)))
show(lambda: torch.clamp(torch.tensor([1.0, 5.0]), min=3, max=2))
show(
    lambda: torch.clamp(
        torch.tensor([1.0]),
    )
)
