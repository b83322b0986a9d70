"""A QAT workflow without torch.ao's quantized modules: swapping Linear/Conv2d for QAT subclasses by walking
named_children, observers as (non-)persistent buffers that update in train mode and freeze in eval, weight
fake-quantization as a parametrization (register_parametrization, cached), BN folding with fuse_modules before
conversion, and the converted model's integer weights in its state_dict."""

import torch
import torch.nn.utils.parametrize as parametrize

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class FakeQuantWeight(nn.Module):
    def __init__(self, channels, bits=8):
        super().__init__()
        self.qmax = 2 ** (bits - 1) - 1
        self.register_buffer("scale", torch.ones(channels))

    def forward(self, w):
        amax = w.detach().abs().flatten(1).amax(1).clamp(min=1e-8)
        self.scale.copy_(amax / self.qmax)
        zp = torch.zeros(w.shape[0], dtype=torch.int32)
        return torch.fake_quantize_per_channel_affine(w, self.scale, zp, 0, -self.qmax, self.qmax)


class ActObserver(nn.Module):
    def __init__(self, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("min_val", torch.tensor(0.0))
        self.register_buffer("max_val", torch.tensor(0.0))
        self.register_buffer("calls", torch.tensor(0), persistent=False)

    def forward(self, x):
        if self.training:
            mn, mx = torch.aminmax(x.detach())
            if self.calls == 0:
                self.min_val.copy_(mn)
                self.max_val.copy_(mx)
            else:
                self.min_val.lerp_(mn, self.momentum)
                self.max_val.lerp_(mx, self.momentum)
            self.calls += 1
        scale = ((self.max_val - self.min_val) / 255).clamp(min=1e-8)
        zp = torch.clamp(torch.round(-self.min_val / scale), 0, 255).to(torch.int32)
        return torch.fake_quantize_per_tensor_affine(x, scale, zp, 0, 255)


def prepare_qat(module):
    for name, child in module.named_children():
        if isinstance(child, (nn.Linear, nn.Conv2d)):
            channels = child.weight.shape[0]
            parametrize.register_parametrization(child, "weight", FakeQuantWeight(channels))
            setattr(module, name, nn.Sequential(child, ActObserver()))
        else:
            prepare_qat(child)
    return module


net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
X = torch.randn(16, 1, 8, 8)
Y = torch.randint(0, 3, (16,))
prepare_qat(net)
print(net)
print("parametrized", parametrize.is_parametrized(net[0][0]), parametrize.is_parametrized(net[0][0], "bias"))
print("params", [n for n, _ in net.named_parameters()])
print("buffers", [n for n, _ in net.named_buffers()])
print("state_dict", list(net.state_dict().keys()))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(15):
    loss = F.cross_entropy(net(X), Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(
            "step",
            step,
            "loss",
            round(loss.item(), 4),
            "act range",
            round(net[0][1].min_val.item(), 4),
            round(net[0][1].max_val.item(), 4),
            "calls",
            net[0][1].calls.item(),
        )
net.eval()
frozen = (net[3][1].min_val.clone(), net[3][1].max_val.clone())
net(X)
print("eval keeps observer", torch.equal(frozen[0], net[3][1].min_val), net[3][1].calls.item())
with parametrize.cached():
    a = net[0][0].weight
    b = net[0][0].weight
    print("cached same object", a is b)
print("uncached new object", net[0][0].weight is not net[0][0].weight)
orig = net[0][0].parametrizations.weight.original
wscale = net[0][0].parametrizations.weight[0].scale.view(-1, 1, 1, 1)
print("original grad", orig.grad is not None, "levels", torch.unique(torch.round(net[0][0].weight / wscale)).numel())

# convert: bake the fake-quantized weights, store int8 + scale
converted = {}
for name, seq in (("0", net[0]), ("3", net[3])):
    layer = seq[0]
    scale = layer.parametrizations.weight[0].scale.clone()
    parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
    shape = (-1,) + (1,) * (layer.weight.dim() - 1)
    converted[name + ".weight_int8"] = torch.round(layer.weight.detach() / scale.view(shape)).to(torch.int8)
    converted[name + ".scale"] = scale
print("after remove", parametrize.is_parametrized(net[0][0]), type(net[0][0].weight).__name__)
print("int8 keys", {k: (tuple(v.shape), str(v.dtype)) for k, v in converted.items()})
w_back = converted["3.weight_int8"].float() * converted["3.scale"].unsqueeze(1)
print("dequant == baked", torch.allclose(w_back, net[3][0].weight, atol=1e-6))

plain = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU()).eval()
fused = torch.ao.quantization.fuse_modules(plain, [["0", "1", "2"]])
print("fused", [type(m).__name__ for m in fused], torch.allclose(fused(X), plain(X), atol=1e-5))
try:
    parametrize.remove_parametrizations(net[0][0], "weight")
except Exception as e:
    print(type(e).__name__, e)
try:
    parametrize.register_parametrization(nn.Linear(2, 2), "weight", nn.Linear(2, 3))
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
