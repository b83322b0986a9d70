"""Temporal pooling heads compared in action-recognition papers: power-average (LPPool3d with p = 1, 2, 3 and the
max limit p = inf), fractional max pooling over space-time with fixed samples, temporal max-unpooling for
localisation, adaptive pyramids, and the misconfigurations PyTorch refuses."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

feats = ((torch.arange(2 * 3 * 6 * 4 * 4, dtype=torch.float32) * 41) % 29).view(2, 3, 6, 4, 4) / 10 - 1.2

for p in [1, 2, 3.0, float("inf"), -float("inf")]:
    pool = nn.LPPool3d(p, (2, 2, 2))
    y = pool(feats)
    print(pool, tuple(y.shape), round(y.mean().item(), 4), y[1, 2, -1, -1].round(decimals=4).tolist())
print("inf == max|x|", torch.equal(F.lp_pool3d(feats, float("inf"), 2), F.max_pool3d(feats.abs(), 2)))
print(
    "lp2d inf", F.lp_pool2d(feats[:, :, 0], float("inf"), 2, stride=1, ceil_mode=True)[0, 0].round(decimals=4).tolist()
)
print("lp1d inf", F.lp_pool1d(feats[:, :, :, 0, 0], float("inf"), 3, stride=2)[0].round(decimals=4).tolist())
xg = feats.clone().requires_grad_()
F.lp_pool3d(xg, float("inf"), 2).sum().backward()
print("inf grad", xg.grad.abs().sum().item(), xg.grad.unique().tolist())
xg.grad = None
F.lp_pool3d(xg.abs() + 0.1, 2, (2, 1, 1)).sum().backward()
print("p=2 grad", round(xg.grad.abs().sum().item(), 4))

samples = torch.tensor([[[0.1, 0.5, 0.9], [0.3, 0.7, 0.2], [0.6, 0.4, 0.8]]] * 2)
y, idx = F.fractional_max_pool3d(feats, (2, 2, 2), output_size=(3, 2, 2), return_indices=True, _random_samples=samples)
print("fractional", tuple(y.shape), y[0, 0].view(-1).round(decimals=4).tolist(), idx[1, 2].view(-1).tolist())
ratio = nn.FractionalMaxPool3d((1, 2, 2), output_ratio=(0.5, 0.5, 0.5), _random_samples=samples)
print(ratio, tuple(ratio(feats).shape))
print(
    "fractional 4-D",
    tuple(F.fractional_max_pool3d(feats[0], 2, output_size=(2, 2, 2), _random_samples=samples[:1]).shape),
)

t_feats = feats.mean((3, 4), keepdim=True)
pooled, where = F.max_pool3d(t_feats, (2, 1, 1), return_indices=True)
restored = F.max_unpool3d(pooled, where, (2, 1, 1))
print("temporal unpool", restored[0, 0].view(-1).round(decimals=4).tolist(), where[0, 0].view(-1).tolist())
print(
    nn.MaxUnpool3d((2, 1, 1), stride=(2, 1, 1)),
    tuple(nn.MaxUnpool3d((2, 1, 1))(pooled, where, output_size=(7, 1, 1)).shape),
)

pyr = torch.cat([F.adaptive_max_pool3d(feats, (t, 1, 1)).flatten(2) for t in (1, 2, 4)], 2)
print("temporal pyramid", tuple(pyr.shape), pyr[0, 0].round(decimals=4).tolist())

for bad in [
    lambda: F.max_unpool3d(pooled, where, (2, 1)),
    lambda: F.max_unpool3d(pooled, where, (2,)),
    lambda: F.max_unpool3d(pooled, where, 2, stride=(2, 1)),
    lambda: F.max_unpool2d(pooled[:, :, :, 0], where[:, :, :, 0], (2,)),
    lambda: F.fractional_max_pool3d(feats, 2, output_size=(5, 2, 2), _random_samples=samples),
    lambda: F.fractional_max_pool3d(feats, 2, output_size=(2, 2, 3), _random_samples=samples),
    lambda: F.fractional_max_pool3d(feats, 2, output_size=(2, 3, 2), _random_samples=samples),
    lambda: F.fractional_max_pool3d(feats, 2, _random_samples=samples),
    lambda: F.adaptive_max_pool3d(feats, (2, -1, 1)),
    lambda: F.adaptive_avg_pool3d(feats, (2, 1, -4)),
    lambda: F.adaptive_avg_pool3d(feats, (-2, 1, 1)),
    lambda: F.adaptive_max_pool2d(feats[0, 0], (-3, 2)),
    lambda: F.adaptive_avg_pool2d(feats[0, 0], (1, -2)),
    lambda: nn.LPPool3d(2, 2)(feats[0, 0]),
]:
    try:
        print("ok", tuple(bad().shape))
    except Exception as e:
        print(type(e).__name__, e)
