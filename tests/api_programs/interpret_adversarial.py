"""Vision interpretability and robustness code: Grad-CAM through forward and full-backward hooks, guided backprop
with ReLU backward hooks returning modified gradients, integrated gradients, occlusion maps, FGSM/PGD attacks with
tensor-valued clamp bounds, adversarial training, and feature extraction by named_modules/get_submodule."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(6)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(),
            nn.Conv2d(6, 8, 3, padding=1, stride=2), nn.ReLU(),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(8, 4)

    def forward(self, x):
        f = self.features(x)
        return self.classifier(F.adaptive_avg_pool2d(f, 1).flatten(1))


net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(T(*p.shape) * (0.4 if p.dim() > 1 else 0.05))
net.eval()
x = torch.from_numpy(rng.uniform(0, 1, (2, 3, 8, 8)).astype(np.float32))
print("modules", [n for n, _ in net.named_modules()][:5], type(net.get_submodule("features.4")).__name__)

store = {}
target_layer = net.get_submodule("features.4")
h1 = target_layer.register_forward_hook(lambda m, i, o: store.__setitem__("act", o.detach()))
h2 = target_layer.register_full_backward_hook(lambda m, gi, go: store.__setitem__("grad", go[0].detach()))
logits = net(x)
cls = logits.argmax(1)
net.zero_grad()
logits.gather(1, cls[:, None]).sum().backward()
weights = store["grad"].mean(dim=(2, 3), keepdim=True)
cam = F.relu((weights * store["act"]).sum(1, keepdim=True))
cam = F.interpolate(cam, size=x.shape[-2:], mode="bilinear", align_corners=False)
cam = cam / cam.amax(dim=(2, 3), keepdim=True).clamp_min(1e-8)
print("gradcam", cls.tolist(), tuple(cam.shape), r(cam[0, 0, 0]), r(store["grad"].abs().sum(dim=(1, 2, 3))))
h1.remove()
h2.remove()
print("hooks left", len(target_layer._forward_hooks), len(target_layer._backward_hooks))

xs = x.clone().requires_grad_(True)
net(xs).gather(1, cls[:, None]).sum().backward()
sal = xs.grad.abs().amax(dim=1)
print("saliency", tuple(sal.shape), r(sal[0, 0]))

handles = [m.register_full_backward_hook(lambda m, gi, go: (gi[0].clamp(min=0.0),))
           for m in net.modules() if isinstance(m, nn.ReLU)]
xg = x.clone().requires_grad_(True)
net(xg).gather(1, cls[:, None]).sum().backward()
print("guided", r(xg.grad[0, 0, 0]), bool((xg.grad != xs.grad).any()))
for h in handles:
    h.remove()

baseline = torch.zeros_like(x[:1])
alphas = torch.linspace(0, 1, 9).view(-1, 1, 1, 1)
path = (baseline + alphas * (x[:1] - baseline)).requires_grad_(True)
out = net(path)[:, cls[0]]
(g,) = torch.autograd.grad(out.sum(), path)
ig = (x[:1] - baseline) * torch.trapezoid(g, dx=1.0 / 8, dim=0)
print("integrated", r(ig.sum()), r(out[-1] - out[0]), r(ig[0, 0, 0]))

with torch.no_grad():
    base = F.softmax(net(x[:1]), 1)[0, cls[0]]
    occl = []
    for i in range(0, 8, 4):
        for j in range(0, 8, 4):
            xo = x[:1].clone()
            xo[..., i:i + 4, j:j + 4] = 0.5
            occl.append((base - F.softmax(net(xo), 1)[0, cls[0]]).item())
print("occlusion", [round(v, 4) for v in occl])

y = cls.clone()
eps, alpha = 8 / 255, 2 / 255
xa = x.clone().requires_grad_(True)
loss = F.cross_entropy(net(xa), y)
(gx,) = torch.autograd.grad(loss, xa)
fgsm = (x + eps * gx.sign()).clamp(0, 1).detach()
print("fgsm", r(F.cross_entropy(net(fgsm), y)), r((fgsm - x).abs().max()), r(gx.sign()[0, 0, 0]))
lo, hi = (x - eps).clamp(min=0), (x + eps).clamp(max=1)
adv = x + torch.from_numpy(rng.uniform(-eps, eps, x.shape).astype(np.float32))
adv = torch.clamp(adv, lo, hi)
for _ in range(3):
    adv.requires_grad_(True)
    (gp,) = torch.autograd.grad(F.cross_entropy(net(adv), y), adv)
    adv = torch.max(torch.min(adv.detach() + alpha * gp.sign(), hi), lo)
print("pgd", r(F.cross_entropy(net(adv), y)), bool(((adv - x).abs() <= eps + 1e-6).all()), r(adv.clamp(lo, hi) - adv))

net.train()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for step in range(3):
    xa = x.clone().requires_grad_(True)
    (gx,) = torch.autograd.grad(F.cross_entropy(net(xa), y), xa)
    x_adv = (x + eps * gx.sign()).clamp(0, 1)
    loss = 0.5 * F.cross_entropy(net(x), y) + 0.5 * F.cross_entropy(net(x_adv), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("adv step", step, round(loss.item(), 4))

feats = {}
hs = [m.register_forward_hook(lambda m, i, o, name=name: feats.__setitem__(name, o.shape))
      for name, m in net.named_modules() if isinstance(m, nn.Conv2d)]
net(x)
print("features", {k: tuple(v) for k, v in feats.items()})
for h in hs:
    h.remove()
pre = net.features[0].register_forward_pre_hook(lambda m, args: (args[0] * 0,))
print("pre hook", r(net(x)[0]), r(net.classifier.bias))
pre.remove()
kw = net.register_forward_hook(lambda m, args, kwargs, out: out * 0 + 1, with_kwargs=True)
print("kw hook", r(net(x)[0]))
kw.remove()
