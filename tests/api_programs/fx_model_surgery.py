"""Model surgery with torch.fx, as PyTorch's FX tutorials write it: fuse Conv2d+BatchNorm2d by rewriting the
graph, swap activations with a Transformer, rewrite a pattern with replace_pattern, insert and erase nodes by hand,
propagate shapes and count ops with an Interpreter."""

import operator

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(4)
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = x.mean(dim=(2, 3))
        return torch.sigmoid(self.head(x)) * 2 - 1


def init(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.61 + i).reshape(p.shape) * 0.4)
        for name, b in model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.linspace(-0.2, 0.2, b.numel()))
            elif name.endswith("running_var"):
                b.copy_(torch.linspace(0.5, 1.5, b.numel()))
    return model.eval()


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    if conv_b is None:
        conv_b = torch.zeros_like(bn_rm)
    scale = bn_w * torch.rsqrt(bn_rv + bn_eps)
    w = conv_w * scale.reshape(-1, 1, 1, 1)
    b = (conv_b - bn_rm) * scale + bn_b
    return nn.Parameter(w), nn.Parameter(b)


def fuse(model):
    gm = fx.symbolic_trace(model)
    modules = dict(gm.named_modules())
    fused = 0
    for node in list(gm.graph.nodes):
        if node.op != "call_module" or not isinstance(modules[node.target], nn.BatchNorm2d):
            continue
        prev = node.args[0]
        if prev.op != "call_module" or not isinstance(modules[prev.target], nn.Conv2d) or len(prev.users) > 1:
            continue
        conv, bn = modules[prev.target], modules[node.target]
        new_conv = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding)
        new_conv.weight, new_conv.bias = fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean,
                                                              bn.running_var, bn.eps, bn.weight, bn.bias)
        parent, _, name = prev.target.rpartition(".")
        setattr(modules[parent] if parent else gm, name, new_conv)
        node.replace_all_uses_with(prev)
        gm.graph.erase_node(node)
        fused += 1
    gm.graph.lint()
    gm.delete_all_unused_submodules()
    gm.recompile()
    return gm, fused


model = init(Net())
x = torch.linspace(-1, 1, 2 * 2 * 5 * 5).reshape(2, 2, 5, 5)
fused, count = fuse(model)
print("fused pairs:", count)
print(fused.code)
print("same output:", torch.allclose(fused(x), model(x), atol=1e-5))
print(fused(x))
print(sorted(n for n, _ in fused.named_modules() if n))


class ReluToGelu(fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target in (torch.relu, F.relu):
            return super().call_function(torch.tanh, (args[0],), {})
        return super().call_function(target, args, kwargs)


tanh_model = ReluToGelu(fx.symbolic_trace(model)).transform()
print(tanh_model.code)
print([n.name for n in tanh_model.graph.nodes])
with torch.no_grad():
    print(tanh_model(x))


def pattern(x):
    return torch.sigmoid(x) * 2 - 1


def replacement(x):
    return torch.tanh(x / 2)


gm = fx.symbolic_trace(model)
matches = fx.replace_pattern(gm, pattern, replacement)
print(len(matches), [n.name for n in matches[0].nodes_map.values()])
print(gm.code)
print("tanh identity holds:", torch.allclose(gm(x), model(x), atol=1e-6))

g = fx.symbolic_trace(model)
for node in g.graph.nodes:
    if node.op == "call_method" and node.target == "mean":
        with g.graph.inserting_after(node):
            clamped = g.graph.call_function(torch.clamp, (node,), {"min": -0.25, "max": 0.25})
        node.replace_all_uses_with(clamped)
        clamped.update_arg(0, node)
        break
dead = g.graph.call_function(operator.mul, (list(g.graph.nodes)[0], 3))
print("dead node users:", len(dead.users))
print("eliminated:", g.graph.eliminate_dead_code())
g.recompile()
print(g.graph)
print(g(x))

ShapeProp(fx.symbolic_trace(model)).propagate(x)
traced = fx.symbolic_trace(model)
ShapeProp(traced).propagate(x)
for node in traced.graph.nodes:
    meta = node.meta.get("tensor_meta")
    if meta is not None:
        print(f"{node.name:8s} {node.op:14s} {tuple(meta.shape)} {meta.dtype} stride={meta.stride}")


class OpCounter(fx.Interpreter):
    def __init__(self, module):
        super().__init__(module)
        self.counts = {}

    def run_node(self, n):
        key = n.op if n.op != "call_module" else type(self.fetch_attr(n.target)).__name__
        self.counts[key] = self.counts.get(key, 0) + 1
        return super().run_node(n)


counter = OpCounter(traced)
out = counter.run(x)
print(sorted(counter.counts.items()))
print(torch.equal(out, traced(x)))
