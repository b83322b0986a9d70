"""Mutual information for multi-modal registration: Parzen-window soft histograms with Gaussian kernels (broadcast,
einsum/bmm joint histograms), hard histograms (histc, histogram, bincount, searchsorted/bucketize), entropies with
xlogy and masked logs, normalised MI, and its gradient flowing back to the warped image."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
fixed = torch.rand(2, 1, 6, 7, dtype=torch.float64)
moving = (0.7 * fixed + 0.3 * torch.rand(2, 1, 6, 7, dtype=torch.float64)) ** 2


def parzen(x, bins, sigma):
    centers = torch.linspace(0, 1, bins, dtype=x.dtype, device=x.device)
    d = x.flatten(1).unsqueeze(-1) - centers
    w = torch.exp(-0.5 * (d / sigma) ** 2) / (sigma * (2 * torch.pi) ** 0.5)
    return w / w.sum(-1, keepdim=True)


def mutual_info(a, b, bins=8, sigma=0.1, normalized=False):
    wa, wb = parzen(a, bins, sigma), parzen(b, bins, sigma)
    pab = torch.bmm(wa.transpose(1, 2), wb) / wa.shape[1]
    pa, pb = pab.sum(2), pab.sum(1)
    ha = -torch.special.xlogy(pa, pa).sum(1)
    hb = -torch.special.xlogy(pb, pb).sum(1)
    hab = -torch.xlogy(pab, pab).sum((1, 2))
    if normalized:
        return (ha + hb) / hab
    return ha + hb - hab


print("mi", mutual_info(fixed, moving).round(decimals=4), mutual_info(fixed, fixed).round(decimals=4))
print("nmi", mutual_info(fixed, moving, normalized=True).round(decimals=4))
pab = torch.einsum("bni,bnj->bij", parzen(fixed, 5, 0.2), parzen(moving, 5, 0.2))
print("einsum joint", pab.shape, pab.sum((1, 2)).round(decimals=4), pab[0, 2].round(decimals=4))
m = moving.clone().requires_grad_(True)
loss = -mutual_info(fixed, m).mean()
loss.backward()
print("mi grad", round(loss.item(), 4), round(m.grad.abs().sum().item(), 4), m.grad[0, 0, 0, :3].tolist() != [0, 0, 0])
print(m.grad[1, 0, 2].round(decimals=4))

f32 = fixed.float().flatten()
print("histc", torch.histc(f32, bins=5, min=0, max=1))
print("histc auto", torch.histc(f32 * 3 - 1, bins=4))
print("histc const", torch.histc(torch.full((4,), 2.0), bins=3))
print("histc out of range", torch.histc(torch.tensor([-1.0, 0.5, 1.0, 2.0]), bins=2, min=0, max=1))
h, edges = torch.histogram(fixed.flatten(), bins=4, range=(0.0, 1.0), density=True)
print("histogram", h.round(decimals=4), edges, h.dtype)
h2, e2 = torch.histogram(f32, bins=torch.tensor([0.0, 0.1, 0.5, 1.0]), weight=torch.ones_like(f32) * 0.5)
print("histogram edges", h2, e2)
hd, ed = torch.histogramdd(torch.stack([fixed.flatten(), moving.flatten()], 1), bins=[3, 2])
print("histogramdd", hd, [e.round(decimals=4) for e in ed])
idx = torch.bucketize(f32, torch.linspace(0, 1, 5))
print("bucketize", idx[:10], idx.dtype, torch.bucketize(f32, torch.linspace(0, 1, 5), right=True)[:10])
q = (f32 * 4).long().clamp(max=3)
print("bincount", torch.bincount(q), torch.bincount(q, minlength=6), torch.bincount(q, weights=f32).round(decimals=4))
joint = torch.bincount(q * 4 + (moving.flatten().float() * 4).long().clamp(max=3), minlength=16).view(4, 4)
print("joint hard", joint)
print(
    "searchsorted", torch.searchsorted(torch.tensor([0.0, 0.25, 0.5, 0.75]), torch.tensor([[0.25, 0.6], [1.0, -1.0]]))
)
print(torch.searchsorted(torch.tensor([0.0, 0.25, 0.5]), torch.tensor([0.25]), side="right", out_int32=True))
p = joint.double() / joint.sum()
print("entropy masked", round(-(p[p > 0] * p[p > 0].log()).sum().item(), 4), round(-torch.xlogy(p, p).sum().item(), 4))
print("log0", (p * p.log()).isnan().sum().item(), torch.special.entr(p).sum().round(decimals=4))
print("xlogy scalar", torch.xlogy(0, torch.tensor([0.0, float("nan")])), torch.xlogy(torch.tensor([0.0, 2]), 3))
print("xlog1py", torch.special.xlog1py(torch.tensor([0.0, 1.0]), torch.tensor([-1.0, 1.0])))

cases = [
    lambda: torch.histc(torch.arange(4), bins=2),
    lambda: torch.histc(f32, bins=0),
    lambda: torch.histc(f32, bins=3, min=2, max=1),
    lambda: torch.histogram(torch.arange(4), bins=2),
    lambda: torch.histogram(f32, bins=torch.tensor([1.0, 0.0])),
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(q.view(-1, 2)),
    lambda: torch.bincount(f32),
    lambda: torch.bincount(q, weights=f32[:3]),
    lambda: torch.searchsorted(torch.tensor([3.0, 1.0]), torch.tensor([2.0]), sorter=torch.tensor([1, 0])),
    lambda: torch.searchsorted(torch.tensor([[0.0, 1.0]]), torch.tensor([0.5])),
    lambda: torch.bucketize(torch.tensor([0.5]), torch.tensor([[0.0, 1.0]])),
    lambda: torch.histc(torch.tensor([0.5, float("nan")]), bins=2, min=0, max=1),
    lambda: torch.histc(torch.tensor([0.5, float("inf")]), bins=2),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", r)
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:160])
