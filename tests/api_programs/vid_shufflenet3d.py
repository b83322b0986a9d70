"""3-D ShuffleNet/MobileNet blocks for video: channel shuffle by view/transpose/contiguous and F.channel_shuffle,
grouped and depthwise Conv3d, channel split with chunk/narrow, temporal padding modes (reflect, replicate,
circular, negative crops), a one-channel saliency head and the layout and errors they produce."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def shuffle(x, groups):
    b, c, t, h, w = x.shape
    return x.view(b, groups, c // groups, t, h, w).transpose(1, 2).contiguous().view(b, c, t, h, w)


class ShuffleUnit3d(nn.Module):
    def __init__(self, c, stride=1):
        super().__init__()
        self.stride = stride
        half = c // 2
        self.branch = nn.Sequential(
            nn.Conv3d(half if stride == 1 else c, half, 1, bias=False),
            nn.BatchNorm3d(half),
            nn.ReLU(inplace=True),
            nn.Conv3d(half, half, 3, stride=stride, padding=1, groups=half, bias=False),
            nn.BatchNorm3d(half),
            nn.Conv3d(half, half, 1, bias=False),
            nn.BatchNorm3d(half),
            nn.ReLU(inplace=True),
        )
        self.proj = (
            None
            if stride == 1
            else nn.Sequential(
                nn.Conv3d(c, c, 3, stride=stride, padding=1, groups=c, bias=False),
                nn.BatchNorm3d(c),
                nn.Conv3d(c, half, 1, bias=False),
                nn.BatchNorm3d(half),
                nn.ReLU(inplace=True),
            )
        )

    def forward(self, x):
        if self.stride == 1:
            a, b = x.chunk(2, dim=1)
            out = torch.cat((a, self.branch(b)), 1)
        else:
            out = torch.cat((self.proj(x), self.branch(x)), 1)
        return shuffle(out, 2)


x = torch.arange(2 * 6 * 2 * 1 * 1, dtype=torch.float32).view(2, 6, 2, 1, 1)
s = shuffle(x, 3)
print(
    "shuffle",
    s[0, :, 0, 0, 0].tolist(),
    torch.equal(s, F.channel_shuffle(x, 3)),
    torch.equal(s, nn.ChannelShuffle(3)(x)),
)
print("inverse", torch.equal(shuffle(s, 2), x), nn.ChannelShuffle(3))
print("shuffle 3-D input", F.channel_shuffle(torch.arange(6.0).view(1, 6, 1), 2).view(-1).tolist())
print(
    "narrow split",
    x.narrow(1, 0, 3).shape,
    x.narrow(1, torch.tensor(3), 3)[0, :, 0, 0, 0].tolist(),
    [t.shape[1] for t in x.split([2, 4], 1)],
    [t.shape[1] for t in x.tensor_split(4, 1)],
)

net = nn.Sequential(
    ShuffleUnit3d(8), ShuffleUnit3d(8, stride=2), nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(8, 3)
)
clip = torch.randn(2, 8, 4, 8, 8)
net.eval()
y = net(clip)
print("logits", y.round(decimals=4).tolist())
net.train()
y = net(clip)
F.cross_entropy(y, torch.tensor([0, 2])).backward()
print("dw grad", tuple(net[0].branch[3].weight.grad.shape), round(net[0].branch[3].weight.grad.abs().sum().item(), 4))

head = nn.Conv3d(8, 1, (1, 3, 3), padding=(0, 1, 1))
sal = head(clip)
print("saliency", tuple(sal.shape), sal.stride(), sal.is_contiguous(), round(sal.sigmoid().mean().item(), 4))
print("pooled map", F.conv3d(clip, torch.ones(2, 8, 4, 1, 1) / 32).stride())

for mode in ["reflect", "replicate", "circular"]:
    p = F.pad(x, (0, 0, 0, 0, 1, 1), mode=mode)
    crop = F.pad(x, (0, 0, 0, 0, -1, 1), mode=mode)
    print(mode, p[0, 0, :, 0, 0].tolist(), crop[0, 0, :, 0, 0].tolist(), crop.stride(), crop.is_contiguous())
    conv = nn.Conv3d(6, 2, (3, 1, 1), padding=(1, 0, 0), padding_mode=mode, bias=False)
    with torch.no_grad():
        conv.weight.fill_(0.1)
    print("  conv", conv(x)[0, :, :, 0, 0].round(decimals=4).tolist())
xr = x.clone().requires_grad_()
out = F.pad(xr, (0, 0, 0, 0, -1, 1), mode="replicate")
out.sum().backward()
print("crop grad", type(out.grad_fn).__name__, xr.grad[0, 0, :, 0, 0].tolist())

for bad in [
    lambda: F.channel_shuffle(x, 4),
    lambda: F.channel_shuffle(x[:, :, 0, 0, 0], 2),
    lambda: F.pad(x, (0, 0, 0, 0, 2, 0), mode="reflect"),
    lambda: F.pad(x, (0, 0, 1, 0, 0, 0), mode="reflect"),
    lambda: F.pad(x, (0, 0, 0, 0, 3, 0), mode="circular"),
    lambda: x.narrow(1, torch.tensor(1.0), 2),
    lambda: nn.CircularPad3d((0, 0, 0, 0, 1, 1))(x[0, 0]),
    lambda: nn.Conv3d(6, 4, 3, groups=4),
    lambda: F.conv3d(x, torch.ones(6, 1, 1, 1, 1), groups=3),
]:
    try:
        print("ok", bad().shape)
    except Exception as e:
        print(type(e).__name__, e)
