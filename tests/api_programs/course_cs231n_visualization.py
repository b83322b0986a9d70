"""CS231n assignment 3, network visualization: saliency maps from input gradients, fooling images by gradient
ascent on a target class, class visualization with L2 regularisation, jitter via torch.roll and periodic blur,
with a small frozen CNN whose weights come from numpy; plus the preprocess/deprocess helpers and their dtypes."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)
SQUEEZENET_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
SQUEEZENET_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


class TinyNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 6, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(6, 8, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(8, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


model = TinyNet()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy((0.5 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
model.eval()
for param in model.parameters():
    param.requires_grad = False
print("frozen", sum(p.requires_grad for p in model.parameters()), sum(p.numel() for p in model.parameters()))


def preprocess(img_uint8):
    """HWC uint8 -> normalised NCHW float, as torchvision's ToTensor + Normalize would do."""
    x = torch.from_numpy(img_uint8).permute(2, 0, 1).float().div(255)
    mean, std = torch.from_numpy(SQUEEZENET_MEAN), torch.from_numpy(SQUEEZENET_STD)
    return ((x - mean[:, None, None]) / std[:, None, None]).unsqueeze(0)


def deprocess(x):
    x = x.squeeze(0) * torch.from_numpy(SQUEEZENET_STD).view(3, 1, 1) + torch.from_numpy(SQUEEZENET_MEAN).view(3, 1, 1)
    return (x.clamp(0, 1) * 255).round().to(torch.uint8).permute(1, 2, 0)


imgs = rng.integers(0, 256, (3, 8, 8, 3), dtype=np.uint8)
X = torch.cat([preprocess(im) for im in imgs], dim=0)
y = torch.tensor([0, 3, 1])
print("preprocess", tuple(X.shape), X.dtype, r(X), X.is_contiguous())
rt = deprocess(X[:1])
print("deprocess", rt.dtype, tuple(rt.shape), int((rt.int() - torch.from_numpy(imgs[0]).int()).abs().max()))


def compute_saliency_maps(X, y, model):
    X = X.clone().requires_grad_()
    scores = model(X)
    correct = scores.gather(1, y.view(-1, 1)).squeeze()
    correct.backward(torch.ones_like(correct))
    saliency, _ = X.grad.abs().max(dim=1)
    return saliency


sal = compute_saliency_maps(X, y, model)
print("saliency", tuple(sal.shape), sal.dtype, r(sal), r(sal.sum((1, 2)), 3))
Xg = X.clone().requires_grad_()
model(Xg)[torch.arange(3), y].sum().backward()
print("saliency via indexing", torch.allclose(Xg.grad.abs().amax(1), sal))


def make_fooling_image(X, target_y, model, lr=1.0, max_iter=100):
    X_fooling = X.clone().requires_grad_()
    for it in range(max_iter):
        scores = model(X_fooling)
        if scores.argmax(dim=1).item() == target_y:
            return X_fooling.detach(), it
        scores[0, target_y].backward()
        with torch.no_grad():
            g = X_fooling.grad
            X_fooling += lr * g / g.norm()
            X_fooling.grad.zero_()
    return X_fooling.detach(), max_iter


orig = model(X[:1]).argmax(1).item()
target = (orig + 2) % 5
X_fool, iters = make_fooling_image(X[:1], target, model)
print("fooling", orig, target, model(X_fool).argmax(1).item(), iters)
print("fool diff", round((X_fool - X[:1]).abs().max().item(), 4), round((X_fool - X[:1]).norm().item(), 4))


def jitter(X, ox, oy):
    if ox != 0:
        X = torch.cat([X[:, :, :, -ox:], X[:, :, :, :-ox]], dim=3)
    if oy != 0:
        X = torch.cat([X[:, :, -oy:], X[:, :, :-oy]], dim=2)
    return X


def blur_image(X, sigma=1.0):
    k = torch.tensor([np.exp(-(i * i) / (2 * sigma * sigma)) for i in (-1, 0, 1)], dtype=X.dtype)
    k = k / k.sum()
    kx = k.view(1, 1, 1, 3).repeat(3, 1, 1, 1)
    X = F.conv2d(F.pad(X, (1, 1, 0, 0), mode="circular"), kx, groups=3)
    return F.conv2d(F.pad(X, (0, 0, 1, 1), mode="circular"), kx.transpose(2, 3), groups=3)


t = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).view(2, 3, 4, 4)
print("jitter == roll", torch.equal(jitter(t, 1, 2), torch.roll(t, shifts=(2, 1), dims=(2, 3))))
print("roll back", torch.equal(torch.roll(torch.roll(t, (2, 1), (2, 3)), (-2, -1), (2, 3)), t))
print("blur keeps mean", round(t.mean().item(), 4), round(blur_image(t).mean().item(), 4), r(blur_image(t), 3))

img = torch.from_numpy((0.1 * rng.standard_normal((1, 3, 8, 8))).astype(np.float32)).requires_grad_()
target_y, l2_reg, lr = 4, 1e-3, 5.0
offsets = rng.integers(-2, 3, (25, 2)).tolist()
for t_ in range(25):
    ox, oy = offsets[t_]
    with torch.no_grad():
        img.data.copy_(torch.roll(img.data, shifts=(ox, oy), dims=(3, 2)))
    score = model(img)[0, target_y] - l2_reg * img.norm() ** 2
    score.backward()
    with torch.no_grad():
        img += lr * img.grad / img.grad.norm()
        img.grad.zero_()
        img.data.copy_(torch.roll(img.data, shifts=(-ox, -oy), dims=(3, 2)))
        for c in range(3):
            lo = float(-SQUEEZENET_MEAN[c] / SQUEEZENET_STD[c])
            hi = float((1.0 - SQUEEZENET_MEAN[c]) / SQUEEZENET_STD[c])
            img.data[:, c].clamp_(min=lo, max=hi)
        if t_ % 10 == 0:
            img.data = blur_image(img.data, sigma=0.5)
    if t_ % 8 == 0 or t_ == 24:
        print("class vis", t_, round(score.item(), 4), model(img).argmax(1).item(), round(img.norm().item(), 4))
print("vis image", deprocess(img.detach()).dtype, r(deprocess(img.detach()).float(), 6))

# Train mode makes dropout active; eval is deterministic. requires_grad_ errors on non-leaf and int tensors.
print("eval determinism", torch.equal(model(X), model(X)), model.training, model.classifier[1].training)
try:
    torch.arange(3).requires_grad_()
except RuntimeError as e:
    print("int requires_grad", type(e).__name__, e)
try:
    X.clone().requires_grad_().mul(2).requires_grad_(False)
except RuntimeError as e:
    print("non-leaf requires_grad_(False)", type(e).__name__, str(e).splitlines()[0])
try:
    model(X).sum().backward()
except RuntimeError as e:
    print("frozen backward", type(e).__name__, e)
