"""DenseNet as torchvision writes it (narrow): _DenseLayer with bn_function over torch.cat of the previous features,
memory-efficient mode through torch.utils.checkpoint (use_reentrant False and True), _DenseBlock as an
nn.ModuleDict, _Transition, torch.jit.is_scripting guards, and the checks people run: the efficient and plain models
agree on outputs and gradients, per-block parameter counts, feature shapes, and a growth-rate table."""

from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp

rng = np.random.default_rng(121)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate, memory_efficient=False,
                 use_reentrant=False):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient
        self.use_reentrant = use_reentrant
        self.calls = 0

    def bn_function(self, inputs):
        self.calls += 1
        concated_features = torch.cat(inputs, 1)
        return self.conv1(self.relu1(self.norm1(concated_features)))

    def any_requires_grad(self, input):
        for tensor in input:
            if tensor.requires_grad:
                return True
        return False

    @torch.jit.unused
    def call_checkpoint_bottleneck(self, input):
        def closure(*inputs):
            return self.bn_function(inputs)

        return cp.checkpoint(closure, *input, use_reentrant=self.use_reentrant)

    def forward(self, input):
        if isinstance(input, torch.Tensor):
            prev_features = [input]
        else:
            prev_features = input
        if self.memory_efficient and self.any_requires_grad(prev_features):
            if torch.jit.is_scripting():
                raise Exception("Memory Efficient not supported in JIT")
            bottleneck_output = self.call_checkpoint_bottleneck(prev_features)
        else:
            bottleneck_output = self.bn_function(prev_features)
        new_features = self.conv2(self.relu2(self.norm2(bottleneck_output)))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _DenseBlock(nn.ModuleDict):
    _version = 2

    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate, memory_efficient=False,
                 use_reentrant=False):
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(num_input_features + i * growth_rate, growth_rate=growth_rate, bn_size=bn_size,
                                drop_rate=drop_rate, memory_efficient=memory_efficient, use_reentrant=use_reentrant)
            self.add_module(f"denselayer{i + 1}", layer)

    def forward(self, init_features):
        features = [init_features]
        for name, layer in self.items():
            new_features = layer(features)
            features.append(new_features)
        return torch.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    def __init__(self, growth_rate=4, block_config=(2, 3, 2), num_init_features=8, bn_size=2, drop_rate=0,
                 num_classes=5, memory_efficient=False, use_reentrant=False):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv0", nn.Conv2d(3, num_init_features, kernel_size=3, stride=1, padding=1, bias=False)),
            ("norm0", nn.BatchNorm2d(num_init_features)),
            ("relu0", nn.ReLU(inplace=True)),
            ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
        ]))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = _DenseBlock(num_layers=num_layers, num_input_features=num_features, bn_size=bn_size,
                                growth_rate=growth_rate, drop_rate=drop_rate, memory_efficient=memory_efficient,
                                use_reentrant=use_reentrant)
            self.features.add_module(f"denseblock{i + 1}", block)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = _Transition(num_input_features=num_features, num_output_features=num_features // 2)
                self.features.add_module(f"transition{i + 1}", trans)
                num_features = num_features // 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        features = self.features(x)
        out = F.relu(features, inplace=True)
        out = F.adaptive_avg_pool2d(out, (1, 1))
        out = torch.flatten(out, 1)
        return self.classifier(out)


plain = DenseNet()
with torch.no_grad():
    for p in plain.parameters():
        std = (1.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
print("top-level features", [n for n, _ in plain.features.named_children()])
print("block1", type(plain.features.denseblock1).__name__, list(plain.features.denseblock1.keys()))
print(plain.features.denseblock2.denselayer3)
print(plain.features.transition1)
print("classifier", plain.classifier)
for name, m in plain.features.named_children():
    if isinstance(m, (_DenseBlock, _Transition)):
        print(f"  {name:12s} {sum(p.numel() for p in m.parameters()):6d}")
print("total", sum(p.numel() for p in plain.parameters()))

x = torch.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32))
shapes = []
h = x
for name, m in plain.features.named_children():
    h = m(h)
    shapes.append((name, tuple(h.shape)))
print("shapes", shapes)
print("growth", [getattr(plain.features, n).denselayer1.conv1.in_channels
                 for n in ("denseblock1", "denseblock2", "denseblock3")])

results = {}
for mode, kw in (("plain", {}), ("efficient", {"memory_efficient": True}),
                 ("reentrant", {"memory_efficient": True, "use_reentrant": True})):
    model = DenseNet(**kw)
    model.load_state_dict(plain.state_dict())
    model.train()
    out = model(x.clone().requires_grad_(mode == "reentrant"))
    loss = F.cross_entropy(out, torch.tensor([0, 3]))
    loss.backward()
    calls = sum(m.calls for m in model.modules() if isinstance(m, _DenseLayer))
    results[mode] = (out.detach(), {n: p.grad.clone() for n, p in model.named_parameters()}, model)
    print(mode, "loss", round(loss.item(), 4), "bn_function calls", calls, "grad_fn", out.grad_fn.name())

p_out, p_grads, p_model = results["plain"]
for mode in ("efficient", "reentrant"):
    out, grads, model = results[mode]
    same_out = torch.allclose(out, p_out, atol=1e-5)
    worst = max((grads[n] - p_grads[n]).abs().max().item() for n in p_grads)
    print(mode, "same out", same_out, "grads match", worst < 1e-4, "n grads", len(grads))
    rm = model.features.denseblock1.denselayer2.norm1.running_mean
    tracked = int(model.features.denseblock1.denselayer2.norm1.num_batches_tracked)
    print(mode, "running stats", r(rm, 3), "tracked", tracked)
print("plain running", r(p_model.features.denseblock1.denselayer2.norm1.running_mean, 3))
print("conv0 grad norm", round(p_grads["features.conv0.weight"].norm().item(), 4))

eff = results["efficient"][2]
eff.eval()
with torch.no_grad():
    e = eff(x)
print("eval no_grad skips checkpoint", sum(m.calls for m in eff.modules() if isinstance(m, _DenseLayer)), r(e, 5))
p_model.eval()
print("eval matches plain", torch.allclose(p_model(x), e, atol=1e-5))


def bottleneck(a, b):
    return torch.sigmoid(a) * b.sum(1, keepdim=True)


a = torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32)).requires_grad_()
b = torch.from_numpy(rng.standard_normal((2, 4)).astype(np.float32)).requires_grad_()
y = cp.checkpoint(bottleneck, a, b, use_reentrant=False)
y.sum().backward()
print("checkpoint fn grads", r(a.grad, 3), r(b.grad, 4), y.grad_fn is not None)
seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2))
with torch.no_grad():
    for p in seq.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
z = cp.checkpoint_sequential(seq, 2, a.detach().requires_grad_(), use_reentrant=False)
print("checkpoint_sequential", r(z, 4), z.requires_grad)
