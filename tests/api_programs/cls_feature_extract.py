"""Reading a classic ResNet from the inside: torchvision's IntermediateLayerGetter (an nn.ModuleDict that keeps the
children up to the last requested layer), multi-scale features, Grad-CAM from a forward hook plus a tensor hook,
the empirical receptive field from input gradients, eval/train differences layer by layer, and model.apply with
a weight-init function whose effect is checked."""

from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(33)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class IntermediateLayerGetter(nn.ModuleDict):
    _version = 2
    __annotations__ = {"return_layers": dict}

    def __init__(self, model, return_layers):
        if not set(return_layers).issubset([name for name, _ in model.named_children()]):
            raise ValueError("return_layers are not present in model")
        orig_return_layers = return_layers
        return_layers = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            if name in return_layers:
                del return_layers[name]
            if not return_layers:
                break
        super().__init__(layers)
        self.return_layers = orig_return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        return F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))) + idt)


class ResNetLike(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = Block(8, 8, 1)
        self.layer2 = Block(8, 16, 2)
        self.layer3 = Block(16, 16, 2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(self.dropout(torch.flatten(self.avgpool(x), 1)))


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)


model = ResNetLike()
visited = []
model.apply(lambda m: visited.append(type(m).__name__) if not list(m.children()) else None)
model.apply(init_weights)
print("leaves visited", len(visited), visited[:5])
w = model.layer2.conv1.weight
fan_out = w.shape[0] * w.shape[2] * w.shape[3]
print("kaiming std close", abs(w.std().item() - (2 / fan_out) ** 0.5) < 0.05, "bn", model.bn1.weight.unique().tolist())
bound = (6 / (16 + 4)) ** 0.5
print("xavier within bound", bool(model.fc.weight.abs().max() <= bound), "fc bias", model.fc.bias.tolist())
print("gain", nn.init.calculate_gain("relu"), round(nn.init.calculate_gain("leaky_relu", 0.1), 4),
      nn.init._calculate_fan_in_and_fan_out(w))

with torch.no_grad():
    for p in model.parameters():
        std = (1.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_var.fill_(0.8)
            m.running_mean.fill_(0.05)

try:
    IntermediateLayerGetter(model, {"layer9": "x"})
except ValueError as e:
    print("ValueError:", e)
getter = IntermediateLayerGetter(model, return_layers={"layer1": "c1", "layer3": "c3"})
print("getter children", list(getter.keys()), "return", getter.return_layers, type(getter).__mro__[1].__name__)
print("getter shares weights", getter["layer1"].conv1.weight is model.layer1.conv1.weight)
x = torch.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32))
model.eval()
with torch.no_grad():
    feats = getter(x)
print("features", {k: tuple(v.shape) for k, v in feats.items()}, type(feats).__name__)
print("c3 stats", r(feats["c3"].mean((0, 2, 3)), 4))
print("getter state keys", len(getter.state_dict()), "model", len(model.state_dict()))

acts, grads = {}, {}


def save_act(module, inp, out):
    acts["layer3"] = out.detach()
    out.register_hook(lambda g: grads.__setitem__("layer3", g.detach()))


h = model.layer3.register_forward_hook(save_act)
logits = model(x)
cls = logits.argmax(1)
print("pred", cls.tolist(), r(logits, 4))
logits.gather(1, cls[:, None]).sum().backward()
h.remove()
weights = grads["layer3"].mean(dim=(2, 3), keepdim=True)
raw = (weights * acts["layer3"]).sum(1, keepdim=True)
print("raw cam", r(raw.amax((1, 2, 3)), 2), r(raw.amin((1, 2, 3)), 2),
      "grad norm", round(grads["layer3"].norm().item(), 4))
cam = F.relu(raw)
cam = F.interpolate(cam, size=x.shape[-2:], mode="bilinear", align_corners=False)
cam_min = cam.flatten(1).min(1)[0].view(-1, 1, 1, 1)
cam_max = cam.flatten(1).max(1)[0].view(-1, 1, 1, 1)
cam = (cam - cam_min) / (cam_max - cam_min + 1e-8)
print("cam", tuple(cam.shape), "peak", [divmod(int(i), 16) for i in cam.flatten(1).argmax(1)],
      "mean", r(cam.mean((1, 2, 3)), 2))

model.zero_grad()
inp = torch.zeros(1, 3, 16, 16, requires_grad=True)
out = IntermediateLayerGetter(model, {"layer2": "c2"})(inp)["c2"]
out[0, :, 4, 4].sum().backward()
nz = inp.grad.abs().sum(1)[0] != 0
rows, cols = nz.nonzero(as_tuple=True)
print("receptive field of layer2 pixel (4,4):", rows.min().item(), rows.max().item(), cols.min().item(),
      cols.max().item(), "size", rows.max().item() - rows.min().item() + 1)

model.train()
with torch.no_grad():
    torch.manual_seed(1)
    tr1 = model(x)
    torch.manual_seed(1)
    tr2 = model(x)
model.eval()
with torch.no_grad():
    ev = model(x)
print("train repeatable with seed", torch.equal(tr1, tr2), "train != eval", not torch.allclose(tr1, ev))
diffs = {}
for name, module in (("bn1", model.bn1), ("dropout", model.dropout)):
    z = torch.from_numpy(rng.standard_normal((4, 8, 2, 2) if name == "bn1" else (4, 16)).astype(np.float32))
    module.eval()
    e = module(z)
    module.train()
    t = module(z)
    diffs[name] = bool(torch.allclose(e, t))
print("eval equals train per layer", diffs)
print("tracked", int(model.bn1.num_batches_tracked), r(model.bn1.running_mean, 3))
