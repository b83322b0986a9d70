"""Feature extraction with torch.fx, as torchvision's create_feature_extractor does it: trace a small ResNet with a
tracer that records each node's module path, list the graph's node names, cut the graph at the requested nodes and
return them as a dict from a new GraphModule."""

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.down is None else self.down(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


class NodePathTracer(fx.Tracer):
    """Records, for every node, the qualified name of the module whose forward made it (torchvision's idea)."""

    def __init__(self):
        super().__init__()
        self.current = ""
        self.node_to_qualname = {}

    def call_module(self, m, forward, args, kwargs):
        old = self.current
        self.current = self.path_of_module(m)
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.current = old

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)
        if kind == "call_module":
            self.node_to_qualname[proxy.node] = str(target)
        elif kind != "placeholder":
            prefix = self.current + "." if self.current else ""
            self.node_to_qualname[proxy.node] = prefix + proxy.node.name
        return proxy


def get_graph_node_names(model):
    tracer = NodePathTracer()
    graph = tracer.trace(model)
    return [tracer.node_to_qualname[n] for n in graph.nodes if n in tracer.node_to_qualname]


def create_feature_extractor(model, return_nodes):
    tracer = NodePathTracer()
    graph = tracer.trace(model)
    gm = fx.GraphModule(tracer.root, graph, model.__class__.__name__)
    wanted = {tracer.node_to_qualname[n]: n for n in gm.graph.nodes if n in tracer.node_to_qualname}
    missing = [k for k in return_nodes if k not in wanted]
    if missing:
        raise ValueError(f"node: '{missing[0]}' is not present in model")
    for n in reversed(gm.graph.nodes):
        if n.op == "output":
            gm.graph.erase_node(n)
            break
    last = list(gm.graph.nodes)[-1]
    with gm.graph.inserting_after(last):
        gm.graph.output({out: wanted[k] for k, out in return_nodes.items()})
    gm.graph.eliminate_dead_code()
    gm.recompile()
    gm.delete_all_unused_submodules()
    return gm


model = TinyResNet().eval()
with torch.no_grad():
    for i, (name, p) in enumerate(model.named_parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.37 + i).reshape(p.shape) * 0.3)
    for name, b in model.named_buffers():
        if name.endswith("running_var"):
            b.fill_(1.5)
        elif name.endswith("running_mean"):
            b.fill_(0.1)

names = get_graph_node_names(model)
print("node count:", len(names))
for n in names:
    print(" ", n)

x = torch.linspace(-1, 1, 2 * 3 * 8 * 8).reshape(2, 3, 8, 8)
extractor = create_feature_extractor(model, {"layer1.relu_1": "low", "layer2.add_1": "mid", "flatten": "pooled"})
print(type(extractor).__name__, sorted(n for n, _ in extractor.named_children()))
feats = extractor(x)
for k, v in feats.items():
    print(k, tuple(v.shape), f"{v.mean().item():.4f}", f"{v.abs().max().item():.4f}")

print(extractor.code)
print([n.op for n in extractor.graph.nodes].count("call_module"), "module calls kept")
with torch.no_grad():
    ref = torch.flatten(model.pool(model.layer2(model.layer1(model.stem(x)))), 1)
print("pooled matches eager:", torch.allclose(feats["pooled"], ref, atol=1e-6))

try:
    create_feature_extractor(model, {"layer3.conv1": "x"})
except ValueError as e:
    print("ValueError:", e)

full = fx.symbolic_trace(model)
print(torch.allclose(full(x), model(x), atol=1e-6), full.fc is model.fc)
print(full.graph.find_nodes(op="call_module")[0].target, len(full.graph.nodes))
print(full(x))
