"""The pixel and structure losses restoration papers train with: Charbonnier (with its eps and the sqrt(0)
gradient), total variation in its anisotropic, isotropic and squared forms via torch.diff and slicing,
torch.gradient-based edge loss, Sobel/Laplacian edge losses with padding='same', smooth_l1/huber with
their beta/delta (including beta=0), weighted and masked L1 with reduction='none', a gradient-variance loss
with unfold, a cosine colour loss, loss reductions and the errors the loss functions raise."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
yy, xx = torch.meshgrid(torch.linspace(0, 1, 12), torch.linspace(0, 1, 14), indexing="ij")
target = torch.stack([torch.sin(6 * xx) * 0.5 + 0.5, yy, (xx > 0.5).float()]).unsqueeze(0).repeat(2, 1, 1, 1)
target[1] = target[1].flip(-1)
noise = torch.randn(target.shape, generator=torch.Generator().manual_seed(4))
pred = (target + 0.1 * noise).clamp(0, 1)


class CharbonnierLoss(nn.Module):
    def __init__(self, eps=1e-12, reduction="mean"):
        super().__init__()
        self.eps, self.reduction = eps, reduction

    def forward(self, p, t, weight=None):
        loss = torch.sqrt((p - t) ** 2 + self.eps)
        if weight is not None:
            loss = loss * weight
        return {"mean": loss.mean, "sum": loss.sum, "none": lambda: loss}[self.reduction]()


def tv(x, kind="aniso"):
    dh = torch.diff(x, dim=-2)
    dw = torch.diff(x, dim=-1)
    if kind == "aniso":
        return dh.abs().mean() + dw.abs().mean()
    if kind == "sq":
        return dh.pow(2).sum() / dh.numel() + dw.pow(2).sum() / dw.numel()
    return torch.sqrt(dh[..., :, :-1] ** 2 + dw[..., :-1, :] ** 2 + 1e-8).mean()


for eps in (1e-12, 1e-6, 1e-3):
    print("charbonnier", eps, round(CharbonnierLoss(eps)(pred, target).item(), 4))
print(
    "charb none",
    tuple(CharbonnierLoss(reduction="none")(pred, target).shape),
    round(CharbonnierLoss(reduction="sum")(pred, target).item(), 4),
)
x = target.clone().requires_grad_(True)
torch.sqrt((x - target) ** 2).mean().backward()
print("sqrt(0) grad nan", torch.isnan(x.grad).all().item())
x.grad = None
CharbonnierLoss(1e-6)(x, target).backward()
print("eps grad finite", torch.isfinite(x.grad).all().item(), x.grad.abs().max().item())

for kind in ("aniso", "sq", "iso"):
    print("tv", kind, round(tv(pred, kind).item(), 4), round(tv(target, kind).item(), 4))
print(
    "diff prepend",
    torch.diff(torch.tensor([1.0, 4.0, 9.0]), prepend=torch.tensor([0.0]), append=torch.tensor([16.0])).tolist(),
    torch.diff(torch.arange(10).view(2, 5), n=2, dim=1).tolist(),
)

gy, gx = torch.gradient(target, dim=(-2, -1))
print("gradient", tuple(gy.shape), round(gx.abs().sum().item(), 4), round(gy.abs().sum().item(), 4))
g2 = torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]), spacing=2.0)
coords = (torch.tensor([0.0, 1.0, 3.0, 4.0]),)
print(
    "gradient spacing",
    g2[0].tolist(),
    torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]), spacing=coords)[0].round(decimals=4).tolist(),
)
print("gradient edge2", torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0, 25.0]), edge_order=2)[0].tolist())
edge = sum(F.l1_loss(a, b) for a, b in zip(torch.gradient(pred, dim=(-2, -1)), (gy, gx)))
print("edge loss", round(edge.item(), 4))

sobel = torch.tensor([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]])
kx = sobel.expand(3, 1, 3, 3)
ky = sobel.t().expand(3, 1, 3, 3)
lap = torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]]).expand(3, 1, 3, 3)


def edges(x):
    ex = F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), kx, groups=3)
    ey = F.conv2d(x, ky, padding="same", groups=3)
    return torch.sqrt(ex**2 + ey**2 + 1e-6), F.conv2d(x, lap, padding="same", groups=3)


(mp, lp), (mt, lt) = edges(pred), edges(target)
print("sobel", round(F.l1_loss(mp, mt).item(), 4), "laplacian", round(F.mse_loss(lp, lt).item(), 4), tuple(mp.shape))

d = pred - target
for beta in (0.0, 0.05, 1.0):
    print("smooth_l1", beta, round(F.smooth_l1_loss(pred, target, beta=beta).item(), 5))
for delta in (0.05, 1.0):
    print(
        "huber",
        delta,
        round(F.huber_loss(pred, target, delta=delta).item(), 5),
        round(nn.HuberLoss(reduction="sum", delta=delta)(pred, target).item(), 4),
    )
print("l1==smooth0", torch.allclose(F.smooth_l1_loss(pred, target, beta=0.0), F.l1_loss(pred, target)))

mask = (target[:, :1] > 0.3).float()
w_l1 = (F.l1_loss(pred, target, reduction="none") * mask).sum() / mask.expand_as(pred).sum().clamp_min(1)
print("masked l1", round(w_l1.item(), 4), "none shape", tuple(F.mse_loss(pred, target, reduction="none").shape))


def gradient_variance(p, t, patch=4):
    def var_map(x):
        g = torch.gradient(x.mean(1, keepdim=True), dim=-1)[0]
        cols = F.unfold(g, patch, stride=patch)
        return torch.var(cols, dim=1)

    return F.mse_loss(var_map(p), var_map(t))


print("grad variance", round(gradient_variance(pred, target).item(), 6))
print(
    "var_mean",
    [round(v.item(), 4) for v in torch.var_mean(d, correction=0)],
    round(torch.std(d, dim=(1, 2, 3), unbiased=False).mean().item(), 4),
)
cos = 1 - F.cosine_similarity(pred, target, dim=1, eps=1e-8)
print("colour cos", tuple(cos.shape), round(cos.mean().item(), 5))

net = nn.Conv2d(3, 3, 3, padding=1)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    out = pred + net(pred)
    loss = CharbonnierLoss(1e-6)(out, target) + 0.1 * tv(out, "iso") + 0.05 * edge
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))

for bad in [
    lambda: F.smooth_l1_loss(pred, target, beta=-1.0),
    lambda: F.huber_loss(pred, target, delta=0.0),
    lambda: F.l1_loss(pred, target, reduction="avg"),
    lambda: torch.gradient(target, dim=(-2, -1), spacing=[1.0]),
    lambda: torch.gradient(torch.tensor([1.0]), edge_order=1),
    lambda: torch.gradient(target, spacing=([0.0, 1.0],)),
    lambda: torch.gradient(target, spacing=torch.arange(14.0), dim=-1),
    lambda: torch.gradient(target, dim=(-1, 3)),
    lambda: torch.diff(torch.tensor(3.0)),
    lambda: F.cosine_similarity(pred, target[:, :2], dim=1),
]:
    try:
        r = bad()
        print("ok", r.shape if isinstance(r, torch.Tensor) else len(r))
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
