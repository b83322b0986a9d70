"""A small UNet and a ResNet-ish backbone with an FPN head, forward and backward on tiny inputs, as segmentation
and detection repositories write them: double-conv blocks with BatchNorm/GroupNorm, max-pool down and
ConvTranspose/bilinear up paths with center-cropping or padding of odd sizes, skip concatenation, FPN lateral
1x1 convs with nearest upsampling and an extra P6 by max-pool, IntermediateLayerGetter-style feature dicts,
parameter counts, gradient norms, a few SGD steps, channels_last and eval-mode checks."""

from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout, norm="bn"):
        def nrm(c):
            return nn.BatchNorm2d(c) if norm == "bn" else nn.GroupNorm(2, c)
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nrm(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nrm(cout), nn.ReLU(inplace=True))


class Up(nn.Module):
    def __init__(self, cin, cout, bilinear):
        super().__init__()
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            self.conv = DoubleConv(cin, cout, norm="gn")
        else:
            self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
            self.conv = DoubleConv(cin, cout)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        dy, dx = x2.size(2) - x1.size(2), x2.size(3) - x1.size(3)
        x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class UNet(nn.Module):
    def __init__(self, n_channels=3, n_classes=2, bilinear=False, base=4):
        super().__init__()
        f = 2 if bilinear else 1
        self.inc = DoubleConv(n_channels, base)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base, base * 2))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base * 2, base * 4 // f))
        self.up1 = Up(base * 4 if not bilinear else base * 4, base * 2 // f, bilinear) if not bilinear else \
            Up(base * 2 + base * 2, base * 2 // f, bilinear)
        self.up2 = Up(base * 2, base, bilinear)
        self.outc = nn.Conv2d(base, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x = self.up1(x3, x2)
        x = self.up2(x, x1)
        return self.outc(x)


for bilinear in (False, True):
    torch.manual_seed(1)
    net = UNet(bilinear=bilinear)
    n_params = sum(p.numel() for p in net.parameters())
    x = torch.randn(2, 3, 13, 17)
    y = torch.randint(0, 2, (2, 13, 17))
    out = net(x)
    loss = F.cross_entropy(out, y)
    loss.backward()
    gn = torch.sqrt(sum(p.grad.pow(2).sum() for p in net.parameters()))
    print("unet", bilinear, n_params, tuple(out.shape), round(loss.item(), 4), round(gn.item(), 4))
    print("  grads", [round(net.inc[0].weight.grad.abs().sum().item(), 4),
                      round(net.outc.bias.grad.sum().item(), 4)], type(out.grad_fn).__name__)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        ll = F.cross_entropy(net(x), y)
        ll.backward()
        opt.step()
        losses.append(round(ll.item(), 4))
    print("  sgd", losses)
    net.eval()
    with torch.no_grad():
        pe = net(x)
        pcl = net(x.to(memory_format=torch.channels_last))
    print("  eval", round(pe.mean().item(), 4), "channels_last same", torch.allclose(pe, pcl, atol=1e-5),
          pcl.is_contiguous(memory_format=torch.channels_last))
    bn = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    if bn:
        print("  bn stats", round(bn[0].running_mean.sum().item(), 4), round(bn[0].running_var.mean().item(), 4),
              bn[0].num_batches_tracked.item())


def crop_center(t, h, w):
    dh, dw = (t.size(2) - h) // 2, (t.size(3) - w) // 2
    return t[:, :, dh:dh + h, dw:dw + w]


print("center crop", tuple(crop_center(torch.randn(1, 2, 9, 11), 5, 6).shape))


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)) \
            if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        return F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))) + self.down(x))


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = Block(8, 8, 1)
        self.layer2 = Block(8, 16, 2)
        self.layer3 = Block(16, 24, 2)

    def forward(self, x):
        feats = OrderedDict()
        x = self.stem(x)
        for name in ("layer1", "layer2", "layer3"):
            x = getattr(self, name)(x)
            feats[name] = x
        return feats


class FPN(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.inner = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)
        self.layer = nn.ModuleList(nn.Conv2d(out_channels, out_channels, 3, padding=1) for _ in in_channels)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                nn.init.constant_(m.bias, 0)

    def forward(self, feats):
        names, xs = list(feats.keys()), list(feats.values())
        last = self.inner[-1](xs[-1])
        results = [self.layer[-1](last)]
        for idx in range(len(xs) - 2, -1, -1):
            lateral = self.inner[idx](xs[idx])
            top_down = F.interpolate(last, size=lateral.shape[-2:], mode="nearest")
            last = lateral + top_down
            results.insert(0, self.layer[idx](last))
        names.append("pool")
        results.append(F.max_pool2d(results[-1], 1, 2, 0))
        return OrderedDict(zip(names, results))


torch.manual_seed(2)
body = Backbone()
fpn = FPN([8, 16, 24], 6)
img = torch.randn(2, 3, 30, 42, requires_grad=True)
feats = body(img)
print("backbone", {k: tuple(v.shape) for k, v in feats.items()})
pyr = fpn(feats)
print("fpn", {k: tuple(v.shape) for k, v in pyr.items()})
print("fpn means", [round(v.mean().item(), 4) for v in pyr.values()])
head = nn.Conv2d(6, 3, 3, padding=1)
obj = sum(head(v).sigmoid().mean() for v in pyr.values())
obj.backward()
print("obj", round(obj.item(), 4), "img grad", round(img.grad.abs().sum().item(), 4),
      "lateral grads", [round(m.weight.grad.norm().item(), 4) for m in fpn.inner])
print("params", sum(p.numel() for p in body.parameters()), sum(p.numel() for p in fpn.parameters()),
      "buffers", sum(b.numel() for b in body.buffers()))
print([n for n, _ in body.named_children()], len(list(fpn.named_modules())))
sd = fpn.state_dict()
print("state_dict", list(sd.keys())[:4], tuple(sd["layer.2.weight"].shape))
