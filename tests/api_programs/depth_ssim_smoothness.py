"""Monodepth2's photometric loss pieces: SSIM computed with avg_pool2d over a reflection-padded image (module and
functional forms, count_include_pad and ceil_mode variants), the 0.85 SSIM/L1 mix, per-pixel minimum reprojection
with auto-masking, edge-aware disparity smoothness from image gradients, mean-normalised inverse depth, and grads."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


class SSIM(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu_x_pool = nn.AvgPool2d(3, 1)
        self.mu_y_pool = nn.AvgPool2d(3, 1)
        self.sig_x_pool = nn.AvgPool2d(3, 1)
        self.sig_y_pool = nn.AvgPool2d(3, 1)
        self.sig_xy_pool = nn.AvgPool2d(3, 1)
        self.refl = nn.ReflectionPad2d(1)
        self.C1 = 0.01**2
        self.C2 = 0.03**2

    def forward(self, x, y):
        x, y = self.refl(x), self.refl(y)
        mu_x, mu_y = self.mu_x_pool(x), self.mu_y_pool(y)
        sigma_x = self.sig_x_pool(x**2) - mu_x**2
        sigma_y = self.sig_y_pool(y**2) - mu_y**2
        sigma_xy = self.sig_xy_pool(x * y) - mu_x * mu_y
        n = (2 * mu_x * mu_y + self.C1) * (2 * sigma_xy + self.C2)
        d = (mu_x**2 + mu_y**2 + self.C1) * (sigma_x + sigma_y + self.C2)
        return torch.clamp((1 - n / d) / 2, 0, 1)


ssim = SSIM()
print(ssim)
B, H, W = 2, 8, 10
target = torch.rand(B, 3, H, W)
preds = [torch.clamp(target + 0.1 * torch.randn(B, 3, H, W), 0, 1) for _ in range(2)]
identity = [torch.rand(B, 3, H, W), target.roll(1, dims=3)]
print("ssim", s(ssim(preds[0], target).mean((1, 2, 3)), 2), round(ssim(target, target).max().item(), 6))


def reprojection(pred, tgt):
    l1 = (tgt - pred).abs().mean(1, True)
    return 0.85 * ssim(pred, tgt).mean(1, True) + 0.15 * l1


rep = torch.cat([reprojection(p, target) for p in preds], 1)
idr = torch.cat([reprojection(p, target) for p in identity], 1)
idr = idr + torch.randn(idr.shape) * 1e-5
combined = torch.cat((idr, rep), dim=1)
to_opt, idxs = torch.min(combined, dim=1)
automask = (idxs > idr.shape[1] - 1).float()
print("min reproj", s(to_opt.mean((1, 2)), 2), "automask", automask.mean().item(), idxs.dtype)
vals, where = combined.min(dim=1, keepdim=True)
print("keepdim min", tuple(vals.shape), tuple(where.shape), torch.equal(where.squeeze(1), idxs))

disp = torch.sigmoid(torch.randn(B, 1, H, W, requires_grad=True))
mean_disp = disp.mean(2, True).mean(3, True)
norm_disp = disp / (mean_disp + 1e-7)
grad_disp_x = torch.abs(norm_disp[:, :, :, :-1] - norm_disp[:, :, :, 1:])
grad_disp_y = torch.abs(norm_disp[:, :, :-1, :] - norm_disp[:, :, 1:, :])
grad_img_x = torch.mean(torch.abs(target[:, :, :, :-1] - target[:, :, :, 1:]), 1, keepdim=True)
grad_img_y = torch.mean(torch.abs(target[:, :, :-1, :] - target[:, :, 1:, :]), 1, keepdim=True)
grad_disp_x *= torch.exp(-grad_img_x)
grad_disp_y *= torch.exp(-grad_img_y)
smooth = grad_disp_x.mean() + grad_disp_y.mean()
print("smooth", round(smooth.item(), 4), smooth.grad_fn.name(), grad_disp_x.grad_fn.name())
print("torch.diff", torch.allclose(torch.diff(norm_disp, dim=3).abs() * torch.exp(-grad_img_x), grad_disp_x))
gy, gx = torch.gradient(target[0, 0], spacing=1.0)
print("torch.gradient", s(gx[0], 4), s(gy[:, 0], 4))
gx2 = torch.gradient(target[0, 0], dim=1, edge_order=2)[0]
print("edge_order 2", s(gx2[0], 4))

sobel = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
kernel = torch.stack([sobel, sobel.t()]).unsqueeze(1).repeat(3, 1, 1, 1)
edges = F.conv2d(F.pad(target, (1, 1, 1, 1), mode="replicate"), kernel, groups=3)
print("sobel", tuple(edges.shape), round(edges.abs().mean().item(), 4))

loss = (to_opt * automask).sum() / automask.sum().clamp_min(1) + 1e-3 * smooth
loss.backward()
print("loss", round(loss.item(), 4))

for kw in (
    {"count_include_pad": True},
    {"count_include_pad": False},
    {"ceil_mode": True},
    {"ceil_mode": True, "count_include_pad": False},
    {"divisor_override": 2},
):
    out = F.avg_pool2d(target[:1, :1], 3, stride=2, padding=1, **kw)
    print("avg_pool2d", kw, tuple(out.shape), round(out.sum().item(), 4))
print("avg_pool1d", s(F.avg_pool1d(torch.arange(7.0).view(1, 1, 7), 3, 2, 1, ceil_mode=True), 5))
print("avg_pool3d", tuple(F.avg_pool3d(torch.rand(1, 1, 4, 5, 6), (2, 3, 2), stride=(1, 2, 2)).shape))
print(nn.AvgPool2d(3, 1, padding=1, ceil_mode=True, count_include_pad=False), nn.ReflectionPad2d((1, 2, 0, 1)))
print("reflect pad", s(F.pad(torch.arange(4.0).view(1, 1, 1, 4), (2, 3, 0, 0), mode="reflect"), 9))
print("circular pad", s(F.pad(torch.arange(4.0).view(1, 1, 4), (1, 2), mode="circular"), 7))
for bad in (
    lambda: F.pad(torch.arange(4.0).view(1, 1, 4), (4, 0), mode="reflect"),
    lambda: F.avg_pool2d(target, 3, padding=2),
    lambda: nn.ReflectionPad2d(3)(torch.rand(1, 1, 2, 2)),
):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
