"""Quantization preparation with torch.fx, as FX graph-mode quantization and HuggingFace's fx utilities write it:
insert observer modules after each Linear/Conv, calibrate, fake-quantize through an Interpreter, keep custom
blocks as leaves, wrap helper functions, specialize arguments with concrete_args, and check `torch.fx.Proxy`."""

import torch
import torch.fx as fx
import torch.nn as nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def scaled_residual(x, y, alpha):
    return x + alpha * y


fx.wrap("scaled_residual")


class Attention(nn.Module):
    """A custom block kept whole (a leaf) by the quantization tracer."""

    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1)
        return self.proj(w @ v)


class Block(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x, use_mlp=True):
        if isinstance(x, torch.fx.Proxy):
            hint = "tracing"
        else:
            hint = "eager"
        self.last_mode = hint
        h = scaled_residual(x, self.attn(self.norm(x)), 0.5)
        if use_mlp:
            h = h + self.fc2(torch.relu(self.fc1(h)))
        return h


class MinMaxObserver(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))

    def forward(self, x):
        self.min_val = torch.minimum(self.min_val, x.detach().min())
        self.max_val = torch.maximum(self.max_val, x.detach().max())
        return x

    def qparams(self, bits=8):
        lo, hi = min(self.min_val.item(), 0.0), max(self.max_val.item(), 0.0)
        scale = (hi - lo) / (2 ** bits - 1)
        zero_point = int(round(-lo / scale))
        return scale, zero_point


class QuantTracer(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, (Attention, MinMaxObserver)) or super().is_leaf_module(m, qualname)


def prepare(model, concrete_args=None):
    tracer = QuantTracer()
    graph = tracer.trace(model, concrete_args=concrete_args)
    gm = fx.GraphModule(tracer.root, graph, "Prepared" + type(model).__name__)
    modules = dict(gm.named_modules())
    for node in list(gm.graph.nodes):
        if node.op == "call_module" and isinstance(modules[node.target], (nn.Linear, Attention)):
            name = node.target.replace(".", "_") + "_observer"
            gm.add_submodule(name, MinMaxObserver())
            with gm.graph.inserting_after(node):
                obs = gm.graph.call_module(name, (node,))
            node.replace_all_uses_with(obs)
            obs.update_arg(0, node)
    gm.recompile()
    return gm


def init(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + 0.3 * i).reshape(p.shape) * 0.5)
    return model.eval()


model = init(Block())
x = torch.linspace(-1.5, 1.5, 2 * 3 * 4).reshape(2, 3, 4)
eager = model(x)
print("eager mode seen:", model.last_mode)

prepared = prepare(model, concrete_args={"use_mlp": True})
print("traced mode seen:", model.last_mode)
print(prepared.code)
print(prepared.graph)
print(type(prepared).__name__, [n for n, m in prepared.named_children() if isinstance(m, MinMaxObserver)])

for t in range(3):
    prepared(x * (1 + 0.5 * t), True)
for name, m in prepared.named_children():
    if isinstance(m, MinMaxObserver):
        scale, zp = m.qparams()
        print(f"{name:16s} min={m.min_val.item():.4f} max={m.max_val.item():.4f} scale={scale:.6f} zp={zp}")


class FakeQuant(fx.Interpreter):
    def call_module(self, target, args, kwargs):
        out = super().call_module(target, args, kwargs)
        mod = self.fetch_attr(target)
        if isinstance(mod, MinMaxObserver):
            scale, zp = mod.qparams()
            out = (torch.clamp(torch.round(out / scale) + zp, 0, 255) - zp) * scale
        return out


with torch.no_grad():
    fq = FakeQuant(prepared).run(x, True)
print("fake-quant error:", f"{(fq - eager).abs().max().item():.4f}")
print(fq[0])

try:
    prepared(x, False)
except AssertionError as e:
    print("AssertionError:", e)

no_mlp = prepare(model, concrete_args={"use_mlp": False})
print([n.target for n in no_mlp.graph.nodes if n.op == "call_module"])
print(torch.allclose(no_mlp(x, False), model(x, use_mlp=False), atol=1e-6))

g = fx.Graph()
a = g.placeholder("a")
b = g.call_module("lin", (a,))
c = g.call_function(torch.relu, (b,))
g.output(c)
lin = nn.Linear(4, 2)
init(lin)
gm = fx.GraphModule({"lin": lin}, g, "Manual")
print(gm.code)
print(gm(x[0]))
print(gm.lin is lin, gm.graph.owning_module is gm)
try:
    fx.GraphModule({}, g)
except RuntimeError as e:
    print("RuntimeError:", e)
