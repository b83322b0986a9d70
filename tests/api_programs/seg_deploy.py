"""Deploying a segmenter: Conv-BN fusion with nn.utils.fusion against the eval-mode model, torch.jit.trace of the
network and torch.jit.script of an IoU function, inference_mode with half-precision weights, resizing
logits back to the original image with antialias and area modes, and per-class probability thresholds."""

import io

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class Seg(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=2, dilation=2)
        self.bn2 = nn.BatchNorm2d(8)
        self.cls = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        return F.interpolate(self.cls(y), size=x.shape[-2:], mode="bilinear", align_corners=False)


net = Seg()
net.train()
for _ in range(3):
    net(torch.randn(4, 3, 8, 8) * 2 + 0.5)
net.eval()
x = torch.randn(1, 3, 9, 11)
ref = net(x)
fc1 = nn.utils.fusion.fuse_conv_bn_eval(net.conv1, net.bn1)
fc2 = nn.utils.fusion.fuse_conv_bn_eval(net.conv2, net.bn2)
print("fused", fc1, fc1.bias is not None, fc2.dilation)
fused = nn.Sequential(fc1, nn.ReLU(), fc2, nn.ReLU(), net.cls)
out = F.interpolate(fused(x), size=x.shape[-2:], mode="bilinear", align_corners=False)
print("fused max diff < 1e-5", (out - ref).abs().max().item() < 1e-5, round(out.sum().item(), 4))
w, b = nn.utils.fusion.fuse_conv_bn_weights(
    net.conv1.weight, None, net.bn1.running_mean, net.bn1.running_var, net.bn1.eps, net.bn1.weight, net.bn1.bias
)
print("weights", type(w).__name__, w.requires_grad, tuple(b.shape), torch.allclose(w, fc1.weight))

mixed = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.InstanceNorm2d(4, affine=True), nn.GroupNorm(2, 4))
mixed.train()
for m in mixed.modules():
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        m.eval()
        for p in m.parameters():
            p.requires_grad_(False)
print("frozen", [m.training for m in mixed], [n for n, p in mixed.named_parameters() if p.requires_grad])
print("norm bases", [isinstance(m, nn.modules.batchnorm._NormBase) for m in mixed])
print("sync", [type(m).__name__ for m in nn.SyncBatchNorm.convert_sync_batchnorm(mixed)])
pools = [
    nn.MaxPool1d(2),
    nn.MaxPool2d(2),
    nn.MaxPool3d(2),
    nn.AvgPool3d(2),
    nn.AdaptiveAvgPool1d(1),
    nn.AdaptiveAvgPool2d(1),
    nn.AdaptiveMaxPool3d(1),
]
print(
    "2-d pools", [type(m).__name__ for m in pools if isinstance(m, (nn.MaxPool2d, nn.AvgPool2d, nn.AdaptiveAvgPool2d))]
)
print("pool bases", [type(m).__mro__[1].__name__ for m in pools])
traced = torch.jit.trace(net, x)
print("traced", type(traced).__name__, torch.allclose(traced(x), ref, atol=1e-6))
buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
print("state_dict bytes round trip", sorted(torch.load(buf, weights_only=True).keys())[:3])


@torch.jit.script
def iou(pred: torch.Tensor, target: torch.Tensor, num_classes: int) -> torch.Tensor:
    k = (target >= 0) & (target < num_classes)
    hist = torch.bincount(num_classes * target[k] + pred[k], minlength=num_classes * num_classes)
    hist = hist.reshape(num_classes, num_classes).float()
    return torch.diag(hist) / (hist.sum(0) + hist.sum(1) - torch.diag(hist))


pred = ref.argmax(1)
tgt = torch.randint(0, 4, pred.shape)
print("scripted iou", iou(pred, tgt, 4).round(decimals=4).tolist())

with torch.inference_mode():
    half = Seg()
    half.load_state_dict(net.state_dict())
    half = half.eval().to(torch.bfloat16)
    y = half(x.to(torch.bfloat16))
    print(
        "bf16 inference",
        y.dtype,
        y.requires_grad,
        torch.is_inference(y),
        (y.float().argmax(1) == pred).float().mean().item() > 0.8,
    )

logits = torch.randn(1, 4, 6, 8)
for mode, kw in [
    ("bilinear", {"antialias": True, "align_corners": False}),
    ("bicubic", {"antialias": True, "align_corners": False}),
    ("area", {}),
    ("nearest-exact", {}),
]:
    d = F.interpolate(logits, size=(4, 5), mode=mode, **kw)
    print("down", mode, tuple(d.shape), round(d.sum().item(), 4))
print(
    "area == adaptive avg",
    torch.allclose(F.interpolate(logits, size=(3, 4), mode="area"), F.adaptive_avg_pool2d(logits, (3, 4))),
)
probs = logits.softmax(1)
thr = torch.tensor([0.5, 0.3, 0.3, 0.4]).view(1, 4, 1, 1)
above = probs >= thr
lab = torch.where(above.any(1), (probs * above).argmax(1), torch.full((1, 6, 8), 255))
print("thresholded", torch.bincount(lab.flatten(), minlength=256)[[0, 1, 2, 3, 255]].tolist())

for bad in [
    lambda: nn.utils.fusion.fuse_conv_bn_eval(net.conv1.train(), net.bn1),
    lambda: F.interpolate(logits, size=(4, 5), mode="nearest", antialias=True),
    lambda: F.interpolate(logits, size=(4, 5), mode="area", align_corners=True),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
