"""Depth-estimation losses and the KITTI/NYU evaluation: scale-invariant log loss (Eigen, with lambda and the
AdaBins variance form), median scaling with torch.median/nanmedian/quantile, Garg/Eigen crops as boolean masks,
abs_rel/sq_rel/RMSE/RMSE-log/delta thresholds, gradient-matching and shift-invariant (MiDaS) losses with least
squares for scale and shift, and the NaN handling of masked statistics."""

import torch

torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


B, H, W = 3, 12, 16
gt = torch.rand(B, 1, H, W) * 70 + 1.0
gt[:, :, :3] = 0.0
gt[0, 0, 5, 5:9] = 0.0
pred = gt * (0.8 + 0.4 * torch.rand(B, 1, H, W)) + 0.5
pred[gt == 0] = torch.rand(int((gt == 0).sum().item())) * 10 + 0.1
pred.requires_grad_(True)

valid = (gt > 1e-3) & (gt < 80)
crop = torch.zeros_like(valid)
crop[..., int(0.40810811 * H) : int(0.99189189 * H), int(0.03594771 * W) : int(0.96405229 * W)] = True
mask = valid & crop
print("mask", mask.sum().item(), mask.dtype, tuple(mask.nonzero().shape))


def silog(pred, gt, mask, lam=0.85):
    d = torch.log(pred[mask]) - torch.log(gt[mask])
    return torch.sqrt((d**2).mean() - lam * d.mean() ** 2) * 10.0


def silog_var(pred, gt, mask, lam=0.85):
    d = torch.log(pred[mask]) - torch.log(gt[mask])
    return torch.sqrt(torch.var(d, unbiased=False) + (1 - lam) * d.mean() ** 2) * 10.0


l1, l2 = silog(pred, gt, mask), silog_var(pred, gt, mask)
print("silog", round(l1.item(), 4), round(l2.item(), 4), l1.grad_fn.name())
(l1 + l2).backward()
print("grad nonzero", (pred.grad != 0).sum().item(), round(pred.grad.abs().sum().item(), 4))

p = pred.detach()
ratios = []
for b in range(B):
    m = mask[b]
    r = torch.median(gt[b][m]) / torch.median(p[b][m])
    ratios.append(round(r.item(), 4))
print("median ratios", ratios)
masked_gt = torch.where(mask, gt, torch.full_like(gt, float("nan")))
masked_p = torch.where(mask, p, torch.tensor(float("nan")))
med_gt = masked_gt.flatten(1).nanmedian(dim=1)
print("nanmedian", s(med_gt.values, 3), med_gt.indices.tolist(), type(med_gt).__name__)
scale = med_gt.values / masked_p.flatten(1).nanmedian(dim=1).values
print("vectorised ratios", s(scale, 3))
q = torch.tensor([0.05, 0.5, 0.95])
print(
    "quantile",
    s(torch.quantile(gt[mask], q), 3),
    s(torch.quantile(gt[mask], q, interpolation="nearest"), 3),
    s(torch.quantile(gt[mask], 0.5, interpolation="midpoint").reshape(1), 1),
)
print(
    "nanquantile",
    s(torch.nanquantile(masked_gt.flatten(1), 0.25, dim=1), 3),
    tuple(torch.nanquantile(masked_gt.flatten(1), q, dim=1, keepdim=True).shape),
)
print("median even", torch.tensor([1.0, 2.0, 3.0, 4.0]).median().item(), torch.tensor([[4, 1], [2, 3]]).median(dim=0))
print("nanmean", s(masked_gt.flatten(1).nanmean(dim=1), 3), "nansum", round(masked_gt.nansum().item(), 1))


def compute_errors(gt, pred):
    thresh = torch.maximum(gt / pred, pred / gt)
    a1 = (thresh < 1.25).float().mean()
    a2 = (thresh < 1.25**2).float().mean()
    a3 = (thresh < 1.25**3).float().mean()
    rmse = torch.sqrt(((gt - pred) ** 2).mean())
    rmse_log = torch.sqrt(((torch.log(gt) - torch.log(pred)) ** 2).mean())
    abs_rel = torch.mean(torch.abs(gt - pred) / gt)
    sq_rel = torch.mean((gt - pred) ** 2 / gt)
    log10 = (torch.log10(gt) - torch.log10(pred)).abs().mean()
    return [round(v.item(), 4) for v in (abs_rel, sq_rel, rmse, rmse_log, log10, a1, a2, a3)]


for b in range(B):
    pb = (p[b][mask[b]] * scale[b]).clamp(1e-3, 80)
    print("errors", b, compute_errors(gt[b][mask[b]], pb))


def scale_shift(pred, gt, mask):
    m = mask.float()
    a00 = (m * pred * pred).sum((1, 2))
    a01 = (m * pred).sum((1, 2))
    a11 = m.sum((1, 2))
    b0 = (m * pred * gt).sum((1, 2))
    b1 = (m * gt).sum((1, 2))
    A = torch.stack([torch.stack([a00, a01], -1), torch.stack([a01, a11], -1)], -2)
    return torch.linalg.solve(A, torch.stack([b0, b1], -1))


disp_gt = torch.where(mask, 1.0 / gt.clamp_min(1e-3), torch.zeros_like(gt)).squeeze(1)
disp_pred = 3.0 * disp_gt + 0.1 + 0.01 * torch.randn(B, H, W)
x = scale_shift(disp_pred, disp_gt, mask.squeeze(1))
print("scale/shift", s(x, 6))
A = torch.stack([disp_pred[0][mask[0, 0]], torch.ones(int(mask[0].sum()))], 1)
sol = torch.linalg.lstsq(A, disp_gt[0][mask[0, 0]].unsqueeze(1))
print("lstsq", s(sol.solution, 2), sol.residuals.shape, sol.rank, sol.singular_values)
aligned = x[:, :1, None] * disp_pred + x[:, 1:, None]
diff = (aligned - disp_gt) * mask.squeeze(1)
grad_x = (diff[:, :, 1:] - diff[:, :, :-1]).abs() * (mask[..., 1:] & mask[..., :-1]).squeeze(1)
grad_y = (diff[:, 1:] - diff[:, :-1]).abs() * (mask[..., 1:, :] & mask[..., :-1, :]).squeeze(1)
print("gradient matching", round((grad_x.sum() + grad_y.sum()).item() / mask.sum().item(), 6))
t = torch.median(disp_pred.flatten(1), dim=1).values
s_ = (disp_pred - t[:, None, None]).abs().mean((1, 2))
print("ssi normalise", s(t, 3), s(s_, 3))
empty = torch.tensor([])
print("empty mean", empty.mean().item(), "empty nanmedian", torch.tensor([float("nan")]).nanmedian().item())
for bad in (
    lambda: torch.quantile(gt[mask], 1.5),
    lambda: torch.quantile(gt[mask].int(), 0.5),
    lambda: torch.median(empty),
    lambda: torch.quantile(gt[mask], q, interpolation="cubic"),
):
    try:
        print("no error", bad())
    except Exception as e:
        print(type(e).__name__, e)
