"""Checkpoint handling on a small classic CNN: state_dict round trips through io.BytesIO, strict and non-strict
load_state_dict with missing/unexpected keys and size mismatches (PyTorch's exact messages), stripping a
DataParallel "module." prefix, loading a backbone into a model with a new head, freezing, apply(init_fn)."""

import io
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class SmallNet(nn.Module):
    def __init__(self, num_classes=10, c=6):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(2 * c, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def init_fn(m):
    if isinstance(m, nn.Conv2d):
        nn.init.constant_(m.weight, 0.05)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy(rng.standard_normal(tuple(m.weight.shape)).astype(np.float32)) * 0.3)
        nn.init.constant_(m.bias, 0.1)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


visited = []
net = SmallNet()
ret = net.apply(lambda m: visited.append(type(m).__name__))
print("apply returns self", ret is net, visited)
net.apply(init_fn)
x = torch.from_numpy(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
net.train()
net(x)
net.eval()
ref = net(x)
print("ref", r(ref, 5))

buf = io.BytesIO()
torch.save(net.state_dict(), buf)
print("bytes written > 0", buf.tell() > 0)
buf.seek(0)
sd = torch.load(buf, weights_only=True)
print("loaded type", type(sd).__name__, len(sd))
print("keys", list(sd.keys()))
print("dtypes", sorted({str(v.dtype) for v in sd.values()}))
net2 = SmallNet()
res = net2.load_state_dict(sd)
print("result", res, type(res).__name__, res.missing_keys, res.unexpected_keys)
net2.eval()
print("round trip equal", torch.equal(net2(x), ref))
print("running_var equal", torch.equal(net2.features[1].running_var, net.features[1].running_var),
      int(net2.features[1].num_batches_tracked))

dp_sd = OrderedDict(("module." + k, v) for k, v in sd.items())
try:
    SmallNet().load_state_dict(dp_sd)
except RuntimeError as e:
    msg = str(e)
    print("prefixed:", msg[:160].replace("\n", " | "))
    print("message lines", len(msg.splitlines()))
clean = OrderedDict((k[len("module."):] if k.startswith("module.") else k, v) for k, v in dp_sd.items())
print("stripped loads", SmallNet().load_state_dict(clean))
torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(dp_sd, "module.")
print("consume_prefix", list(dp_sd.keys())[:3], SmallNet().load_state_dict(dp_sd))

partial = {k: v for k, v in sd.items() if not k.startswith("fc.")}
partial["extra.weight"] = torch.zeros(3)
m = SmallNet()
try:
    m.load_state_dict(partial)
except RuntimeError as e:
    print("strict error:", str(e).replace("\n\t", " | ").replace("\n", " | "))
res = m.load_state_dict(partial, strict=False)
print("non-strict", res.missing_keys, res.unexpected_keys)
print("non-strict repr", res)
print("bool of result", bool(res), bool(SmallNet().load_state_dict(sd, strict=False)))

head5 = SmallNet(num_classes=5)
try:
    head5.load_state_dict(sd)
except RuntimeError as e:
    print("size mismatch:", str(e).replace("\n\t", " | ").replace("\n", " | "))
try:
    head5.load_state_dict(sd, strict=False)
except RuntimeError as e:
    print("size mismatch non-strict still raises:", str(e).splitlines()[1].strip())
backbone = {k: v for k, v in sd.items() if k.startswith("features.")}
res = head5.load_state_dict(backbone, strict=False)
print("backbone only", res.missing_keys)
print("backbone copied", torch.equal(head5.features[0].weight, net.features[0].weight))

head5.fc.apply(init_fn)
head5.features.requires_grad_(False)
head5.features.eval()
print("trainable", [n for n, p in head5.named_parameters() if p.requires_grad],
      sum(p.numel() for p in head5.parameters() if p.requires_grad))
opt = torch.optim.Adam([p for p in head5.parameters() if p.requires_grad], lr=0.1)
y = torch.tensor([1, 4])
for i in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(head5(x), y)
    loss.backward()
    opt.step()
print("finetune loss", round(loss.item(), 4), "bn unchanged", int(head5.features[1].num_batches_tracked))
print("frozen grads", head5.features[0].weight.grad is None)

net.fc = nn.Linear(12, 3)
print("replaced head", net.fc, list(net.state_dict().keys())[-2:])
sub = net.features.state_dict(prefix="backbone.")
print("prefixed sub keys", list(sub.keys())[:3])
print("keep_vars", type(net.state_dict(keep_vars=True)["fc.weight"]).__name__,
      type(net.state_dict()["fc.weight"]).__name__, net.state_dict()["fc.weight"].requires_grad)

buf = io.BytesIO()
torch.save({"epoch": 3, "model": net.state_dict(), "arch": "smallnet", "acc": 0.75}, buf)
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
print("checkpoint", sorted(ckpt.keys()), ckpt["epoch"], ckpt["arch"], ckpt["acc"])
try:
    SmallNet().load_state_dict(ckpt)
except RuntimeError as e:
    print("loaded whole ckpt:", str(e).splitlines()[0])
try:
    net.load_state_dict([1, 2])
except TypeError as e:
    print("TypeError:", e)

with torch.no_grad():
    before = net.features[0].weight.clone()
    sd_view = net.state_dict()
    sd_view["features.0.weight"].fill_(1.0)
print("state_dict shares storage", bool((net.features[0].weight == 1).all()),
      not torch.equal(before, net.features[0].weight))
half = {k: (v.half() if v.is_floating_point() else v) for k, v in sd.items()}
n3 = SmallNet()
n3.load_state_dict(half)
print("half loaded dtype", n3.fc.weight.dtype, round((n3.fc.weight - net2.fc.weight).abs().max().item(), 3))
