"""SqueezeNet 1.0/1.1 fire modules as torchvision writes them (narrow), the final-conv classifier with
AdaptiveAvgPool, and the inspection utilities people reach for: get_submodule/get_parameter, named_modules with
duplicates, global module hooks, pre-hooks with kwargs, backward hooks, parameters_to_vector, dtype casts,
extra_repr, zero_grad(set_to_none=False), deepcopy and the model's repr after surgery."""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.init as init
from torch.nn.utils import parameters_to_vector, vector_to_parameters

rng = np.random.default_rng(10)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)

    def extra_repr(self):
        return f"inplanes={self.inplanes}"


class SqueezeNet(nn.Module):
    def __init__(self, version="1_0", num_classes=7, dropout=0.5):
        super().__init__()
        self.num_classes = num_classes
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 12, kernel_size=7, stride=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(12, 2, 8, 8), Fire(16, 2, 8, 8), Fire(16, 4, 16, 16),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(32, 4, 16, 16), Fire(32, 6, 24, 24),
            )
        elif version == "1_1":
            self.features = nn.Sequential(
                nn.Conv2d(3, 8, kernel_size=3, stride=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(8, 2, 8, 8), Fire(16, 2, 8, 8),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(16, 4, 16, 16), Fire(32, 6, 24, 24),
            )
        else:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        final_conv = nn.Conv2d(self.features[-1].expand1x1.out_channels * 2, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.features(x)
        x = self.classifier(x)
        return torch.flatten(x, 1)


try:
    SqueezeNet("1_2")
except ValueError as e:
    print("ValueError:", e)
nets = {v: SqueezeNet(v) for v in ("1_0", "1_1")}
for v, net in nets.items():
    with torch.no_grad():
        for p in net.parameters():
            std = (2.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else 0.05
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
    print(v, "params", sum(p.numel() for p in net.parameters()),
          "fires", sum(isinstance(m, Fire) for m in net.modules()))
net = nets["1_1"]
print(net.features[3])
print("classifier", net.classifier)

print("get_submodule", net.get_submodule("features.3.expand3x3"))
print("get_parameter", tuple(net.get_parameter("classifier.1.weight").shape))
try:
    net.get_submodule("features.3.expand5x5")
except AttributeError as e:
    print("AttributeError:", e)
try:
    net.get_parameter("features.3.squeeze_activation")
except AttributeError as e:
    print("AttributeError:", e)

x = torch.from_numpy(rng.standard_normal((2, 3, 33, 33)).astype(np.float32))
net.eval()
with torch.no_grad():
    out = net(x)
print("out", tuple(out.shape), r(out, 7))
v0 = nets["1_0"].eval()
with torch.no_grad():
    print("1_0 out", tuple(v0(x).shape), "features", tuple(v0.features(x).shape))

shared = nn.ReLU()
seq = nn.Sequential(nn.Linear(2, 2), shared, nn.Linear(2, 2), shared)
print("dedup", [n for n, _ in seq.named_modules()])
print("dup", [n for n, _ in seq.named_modules(remove_duplicate=False)])
tied = nn.Sequential(nn.Linear(3, 3, bias=False), nn.Linear(3, 3, bias=False))
tied[1].weight = tied[0].weight
print("tied params", len(list(tied.parameters())), len(list(tied.named_parameters(remove_duplicate=False))))
print("state_dict keeps both", list(tied.state_dict().keys()))

calls = []
g1 = torch.nn.modules.module.register_module_forward_pre_hook(lambda m, i: calls.append(type(m).__name__))
g2 = torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: None)
with torch.no_grad():
    net.features[3](torch.zeros(1, 8, 4, 4))
g1.remove()
g2.remove()
print("global pre-hook order", calls)


def pre_kw(module, args, kwargs):
    return (args[0] * 2,), kwargs


class Scaled(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale


s = Scaled()
h = s.register_forward_pre_hook(pre_kw, with_kwargs=True)
print("pre-hook with kwargs", s(torch.ones(2), scale=3.0).tolist())
h.remove()
h = s.register_forward_hook(lambda m, args, kwargs, out: out + kwargs.get("scale", 0), with_kwargs=True)
print("hook with kwargs", s(torch.ones(2), scale=3.0).tolist())
h.remove()

grads_seen = []
fire = net.features[3]
bh = fire.register_full_backward_hook(lambda m, gi, go: grads_seen.append((len(gi), len(go), tuple(go[0].shape))))
net.train()
net.classifier[0].eval()
fire.squeeze_activation.inplace = False
loss = net(x).logsumexp(1).mean()
loss.backward()
bh.remove()
print("backward hook", grads_seen, "loss", round(loss.item(), 4))
vec = parameters_to_vector(net.parameters())
gvec = parameters_to_vector(p.grad for p in net.parameters())
print("vector", vec.shape, vec.dtype, "grad norm", round(gvec.norm().item(), 4))
net.zero_grad(set_to_none=False)
print("zeroed", all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in net.parameters()))
net.zero_grad()
print("none", all(p.grad is None for p in net.parameters()))
vector_to_parameters(torch.zeros_like(vec), net.parameters())
print("after vector_to_parameters", net.features[0].weight.abs().sum().item())
try:
    vector_to_parameters(torch.zeros(3), net.parameters())
except RuntimeError as e:
    print("short vector:", type(e).__name__)

clone = copy.deepcopy(v0)
clone.double()
print("double", clone.features[0].weight.dtype, v0.features[0].weight.dtype,
      clone.features[0].weight.data_ptr() != v0.features[0].weight.data_ptr())
with torch.no_grad():
    o64 = clone(x.double())
    o32 = v0(x)
print("f64 vs f32 close", torch.allclose(o64.float(), o32, atol=1e-4), o64.dtype)
h16 = copy.deepcopy(v0).half()
print("half params", {p.dtype for p in h16.parameters()}, h16.features[0].bias.dtype)
v0.classifier[1] = nn.Conv2d(48, 3, kernel_size=1)
print("new classifier", v0.classifier)
print("children types", [type(c).__name__ for c in v0.children()])
