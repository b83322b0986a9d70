"""R(2+1)D video backbone: factorized spatial (1,k,k) and temporal (t,1,1) Conv3d with strides, dilation, groups,
padding='same' and every padding_mode, the mid-channel formula of Tran et al., gradients and the errors."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def mid_channels(cin, cout, t, k):
    return int(math.floor((t * k * k * cin * cout) / (k * k * cin + t * cout)))


class SpatioTemporalConv(nn.Module):
    def __init__(self, cin, cout, t=3, k=3, stride=(1, 1, 1), t_dilation=1, padding_mode="zeros"):
        super().__init__()
        mid = mid_channels(cin, cout, t, k)
        self.spatial = nn.Conv3d(
            cin,
            mid,
            (1, k, k),
            stride=(1, stride[1], stride[2]),
            padding=(0, k // 2, k // 2),
            bias=False,
            padding_mode=padding_mode,
        )
        self.bn = nn.BatchNorm3d(mid)
        self.temporal = nn.Conv3d(
            mid,
            cout,
            (t, 1, 1),
            stride=(stride[0], 1, 1),
            padding=(t_dilation * (t // 2), 0, 0),
            dilation=(t_dilation, 1, 1),
            bias=False,
        )

    def forward(self, x):
        return self.temporal(F.relu(self.bn(self.spatial(x))))


block = SpatioTemporalConv(3, 8, stride=(2, 2, 2))
print(block)
print("mid", mid_channels(3, 8, 3, 3), mid_channels(64, 64, 3, 3), mid_channels(64, 128, 3, 3))
clip = torch.randn(2, 3, 8, 16, 16)
out = block(clip)
print("out", tuple(out.shape), round(out.sum().item(), 4), round(out.std().item(), 4))
out.pow(2).mean().backward()
print("grad spatial", tuple(block.spatial.weight.grad.shape), round(block.spatial.weight.grad.abs().sum().item(), 4))
print("grad temporal", round(block.temporal.weight.grad.abs().sum().item(), 4))

for mode in ["zeros", "reflect", "replicate", "circular"]:
    torch.manual_seed(1)
    b = SpatioTemporalConv(3, 4, padding_mode=mode, t_dilation=2)
    y = b(clip[:1])
    print(mode, tuple(y.shape), round(y.sum().item(), 4), b.spatial.padding_mode, b.spatial.padding)

x = torch.arange(2 * 4 * 5 * 6 * 6, dtype=torch.float32).reshape(2, 4, 5, 6, 6) / 100
w = torch.linspace(-1, 1, 4 * 2 * 3 * 3 * 3).reshape(4, 2, 3, 3, 3)
for kw in [
    dict(groups=2),
    dict(groups=2, stride=(1, 2, 2), dilation=(2, 1, 1), padding=(2, 1, 1)),
    dict(padding="same", dilation=(1, 2, 2), groups=2),
    dict(padding="valid", groups=2, stride=2),
]:
    y = F.conv3d(x, w, torch.tensor([0.1, -0.1, 0.2, 0.0]), **kw)
    print(sorted(kw), tuple(y.shape), round(y.mean().item(), 4), y[0, :, 0, 0, 0].round(decimals=4).tolist())

same = nn.Conv3d(4, 4, (2, 3, 4), padding="same", dilation=(1, 1, 1), groups=4)
print("same even kernel", tuple(same(x).shape), same.padding)

unbatched = F.conv3d(x[0], w, groups=2, padding=1)
print("unbatched", tuple(unbatched.shape), torch.allclose(unbatched, F.conv3d(x[:1], w, groups=2, padding=1)[0]))

depthwise = nn.Conv3d(4, 8, 3, groups=4, padding=1, bias=False)
print("depthwise weight", tuple(depthwise.weight.shape), depthwise)

xg = x[:1].clone().requires_grad_()
wg = w.clone().requires_grad_()
y = F.conv3d(xg, wg, stride=(1, 2, 1), groups=2, padding=(1, 0, 1))
y.sum().backward()
print("grad_fn", type(y.grad_fn).__name__)
print("grad x", round(xg.grad.abs().mean().item(), 4), xg.grad[0, 0, 2, 1, :].round(decimals=4).tolist())
print("grad w", round(wg.grad.mean().item(), 4), wg.grad[0, 0, 1, 1].round(decimals=4).tolist())

for bad in [
    lambda: nn.Conv3d(4, 4, 3, padding="same", stride=2),
    lambda: nn.Conv3d(4, 6, 3, groups=4),
    lambda: F.conv3d(x, w),
    lambda: F.conv3d(x[0, 0], w),
    lambda: F.conv3d(x[:, :, :2], w, groups=2),
    lambda: nn.Conv3d(4, 4, 3, padding="full"),
]:  # the sets in these messages print in hash order
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).split(", should")[0])
try:
    nn.Conv3d(4, 4, 3, padding_mode="mirror")
except ValueError as e:
    print("ValueError", str(e).split(",")[-1])
