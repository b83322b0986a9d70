"""Adaptive 3-D pooling in video heads: AdaptiveAvgPool3d/AdaptiveMaxPool3d with None and non-divisible sizes,
indices, unbatched inputs, spatial-only pyramid pooling (SPP over time), gradients and the errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

x = ((torch.arange(2 * 3 * 5 * 7 * 9, dtype=torch.float32) * 53) % 97).view(2, 3, 5, 7, 9) / 10

for size in [1, (1, 1, 1), (2, 3, 4), (None, 2, 2), (5, None, 1), (3, 7, 9), (7, 9, 11), (None, None, None)]:
    a = nn.AdaptiveAvgPool3d(size)(x)
    m, idx = nn.AdaptiveMaxPool3d(size, return_indices=True)(x)
    print(size, tuple(a.shape), round(a.mean().item(), 4), round(m.mean().item(), 4), idx[1, 2, -1, -1].tolist())
print(nn.AdaptiveAvgPool3d((None, 2, 2)), nn.AdaptiveMaxPool3d(1, return_indices=True))
print("functional idx", F.adaptive_max_pool3d_with_indices(x, (2, 2, 2))[1][0, 0].tolist())
print("module flag", F.adaptive_max_pool3d(x, 2, return_indices=True)[1].dtype)

a = F.adaptive_avg_pool3d(x, (2, 3, 4))
bins_t = [(i * 5 // 2, -(-(i + 1) * 5 // 2)) for i in range(2)]
print("bins t", bins_t, torch.allclose(a[:, :, 1, 0, 0], x[:, :, 2:5, 0:3, 0:3].mean((2, 3, 4))))


def spp(feat, levels=(1, 2, 4)):
    return torch.cat([F.adaptive_max_pool3d(feat, (1, l, l)).flatten(1) for l in levels], 1)


print("spp", tuple(spp(x).shape), round(spp(x).mean().item(), 4))

xg = x.clone().requires_grad_()
F.adaptive_avg_pool3d(xg, (2, 3, 4)).sum().backward()
print("avg grad", round(xg.grad.sum().item(), 4), xg.grad[0, 0, :, 0, 0].round(decimals=4).tolist())
xg.grad = None
F.adaptive_max_pool3d(xg, (2, 3, 4)).sum().backward()
print("max grad", xg.grad.sum().item(), int((xg.grad > 0).sum()), xg.grad.amax().item())
xg.grad = None
F.adaptive_avg_pool3d(xg, (7, 9, 11)).pow(2).sum().backward()
print("upsample grad", round(xg.grad.mean().item(), 4))

unb = F.adaptive_avg_pool3d(x[0], (1, 2, 2))
print("unbatched", tuple(unb.shape), torch.allclose(unb, F.adaptive_avg_pool3d(x, (1, 2, 2))[0]))
print("unbatched max", tuple(F.adaptive_max_pool3d(x[0], 1, return_indices=True)[1].shape))
print("double", F.adaptive_avg_pool3d(x.double(), 1).dtype, F.adaptive_max_pool3d(x.double(), 1).dtype)
for dt in [torch.float16, torch.bfloat16]:
    low = (x * 10 + 100).to(dt)
    head = F.adaptive_avg_pool3d(low, (1, 2, 3))
    print(
        "reduced",
        dt,
        head.dtype,
        head[0, 0].float().view(-1).tolist(),
        F.adaptive_avg_pool3d(low, 1)[1].float().view(-1).tolist(),
    )
cl = x.contiguous(memory_format=torch.channels_last_3d)
print("channels_last", torch.allclose(F.adaptive_avg_pool3d(cl, (2, 3, 4)), a))

for bad in [
    lambda: F.adaptive_avg_pool3d(x, (2, 2)),
    lambda: F.adaptive_avg_pool3d(x[0, 0], 1),
    lambda: F.adaptive_max_pool3d(x, (0, 2, 2)),
    lambda: F.adaptive_avg_pool3d(x.long(), 1),
    lambda: F.adaptive_max_pool3d(x, (2, 2, 2, 2)),
    lambda: F.adaptive_avg_pool3d(torch.zeros(2, 3, 0, 4, 4), 1),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
