"""3-D pooling as video backbones use it: MaxPool3d with ceil_mode, padding, dilation and return_indices feeding
MaxUnpool3d, AvgPool3d's count_include_pad and divisor_override, temporal-only pooling, gradients and errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

x = torch.arange(1 * 2 * 5 * 7 * 7, dtype=torch.float32).view(1, 2, 5, 7, 7)
x = (x * 37 % 101) / 10

cfgs = [
    dict(kernel_size=2),
    dict(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=(2, 3, 3), stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=2, stride=2, dilation=(1, 2, 2)),
    dict(kernel_size=(3, 2, 2), stride=(2, 3, 3), dilation=2, padding=(1, 1, 1), ceil_mode=True),
]
for kw in cfgs:
    pool = nn.MaxPool3d(return_indices=True, **kw)
    y, idx = pool(x)
    print("max", kw, tuple(y.shape), round(y.mean().item(), 4), idx[0, 1, -1, -1].tolist())
    flat = x.flatten(2).gather(2, idx.flatten(2)).view_as(y)
    print("  indices gather", torch.equal(flat, y), idx.dtype)
print(nn.MaxPool3d((1, 3, 3), (1, 2, 2), (0, 1, 1), dilation=1, ceil_mode=True))

yp, ip = F.max_pool3d(x, 2, return_indices=True)
un = F.max_unpool3d(yp, ip, 2, output_size=x.shape[2:])
print("unpool", tuple(un.shape), torch.equal(un.amax(dim=(2, 3, 4)), yp.amax(dim=(2, 3, 4))), int((un != 0).sum()))
un2 = nn.MaxUnpool3d(2)(yp, ip, output_size=x.shape)
print("unpool size", tuple(un2.shape), torch.equal(un2.ne(0).sum(), un.ne(0).sum()))
print(nn.MaxUnpool3d((1, 2, 2), stride=(1, 2, 2)))

for kw in [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, divisor_override=5),
    dict(kernel_size=(2, 3, 3), stride=2, padding=(1, 1, 1), ceil_mode=True),
    dict(kernel_size=(2, 3, 3), stride=2, padding=(1, 1, 1), ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(4, 1, 1), stride=(4, 1, 1), ceil_mode=True),
]:
    y = F.avg_pool3d(x, **kw)
    print(
        "avg", sorted(kw.items()), tuple(y.shape), round(y.mean().item(), 4), y[0, 0, -1, -1].round(decimals=4).tolist()
    )
print(nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False, divisor_override=2))

xg = x.clone().requires_grad_()
F.max_pool3d(xg, (2, 3, 3), stride=2, padding=1, ceil_mode=True).sum().backward()
print("max grad", xg.grad.sum().item(), xg.grad.amax().item(), int((xg.grad > 0).sum()))
xg.grad = None
F.avg_pool3d(xg, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False).sum().backward()
print("avg grad", round(xg.grad.sum().item(), 4), xg.grad[0, 0, 0, 0].round(decimals=4).tolist())
xg.grad = None
F.avg_pool3d(xg, 2, divisor_override=3).sum().backward()
print("override grad", xg.grad.unique().round(decimals=4).tolist())
ties = torch.ones(1, 1, 2, 2, 2, requires_grad=True)
yt, it = F.max_pool3d(ties, 2, return_indices=True)
yt.backward()
print("ties", it.item(), ties.grad.flatten().tolist())

unb = F.max_pool3d(x[0], 2)
print("unbatched", tuple(unb.shape), torch.equal(unb, F.max_pool3d(x, 2)[0]))
print(
    "double",
    F.avg_pool3d(x.double(), 2).dtype,
    "nan",
    F.max_pool3d(torch.tensor([[[[[1.0, float("nan")]]]]]), (1, 1, 2)).item(),
)

for bad in [
    lambda: F.max_pool3d(x, 3, padding=2),
    lambda: F.avg_pool3d(x, 2, divisor_override=0),
    lambda: F.max_pool3d(x, 9),
    lambda: F.avg_pool3d(x.long(), 2).dtype,
    lambda: F.max_pool3d(x[0, 0], 2),
    lambda: F.max_unpool3d(yp, ip, 2, output_size=(3, 3, 3)),
    lambda: F.max_unpool3d(yp[:, :1], ip[:, :1], 2),
    lambda: F.avg_pool3d(x, (2, 2)),
    lambda: F.max_pool3d(x, 2, stride=0),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
