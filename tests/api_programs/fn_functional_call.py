"""torch.func.functional_call with params and buffers dicts, strict, tie_weights, and per-sample gradients."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).replace("\n", " / "))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 3)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x)))) * self.scale


net = Net().eval()
x = torch.randn(5, 4)
params = dict(net.named_parameters())
buffers = dict(net.named_buffers())
print("params", list(params))
print("buffers", list(buffers))

out = functional_call(net, (params, buffers), (x,))
print("same as module", torch.allclose(out, net(x)))

# replacing a subset of parameters and a buffer
zero_w = {"fc2.weight": torch.zeros(3, 8)}
print("fc2 zeroed", functional_call(net, zero_w, (x,))[0])
print("scale=1", torch.allclose(functional_call(net, {"scale": torch.tensor(1.0)}, x) * 2, out))
print("module restored", torch.allclose(net(x), out), net.fc2.weight.abs().sum().item() > 0)

# kwargs and a tuple of dicts
class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x, shift=0.0):
        return x * self.w + shift


aff = Affine()
print("kwargs", functional_call(aff, {"w": torch.full((3,), 2.0)}, (torch.ones(3),), {"shift": 1.0}))
show("dup keys", lambda: functional_call(aff, ({"w": torch.ones(3)}, {"w": torch.ones(3)}), (torch.ones(3),)))

# strict
show("strict missing", lambda: functional_call(net, {"fc1.weight": torch.zeros(8, 4)}, (x,), strict=True).shape)
show("strict unexpected", lambda: functional_call(aff, {"w": torch.ones(3), "v": torch.ones(3)}, (torch.ones(3),),
                                                  strict=True))
show("nonstrict unexpected", lambda: functional_call(aff, {"w": torch.ones(3), "v": torch.ones(3)}, (torch.ones(3),)))

# tie_weights
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.out = nn.Linear(3, 5, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return self.out(self.emb(idx))


tied = Tied()
print("tied names", [n for n, _ in tied.named_parameters()])
new_w = torch.arange(15.0).reshape(5, 3) / 10
idx = torch.tensor([0, 4])
print("tied", functional_call(tied, {"emb.weight": new_w}, (idx,)))
untied = functional_call(tied, {"emb.weight": new_w}, (idx,), tie_weights=False)
print("untied uses old out.weight", torch.allclose(untied, new_w[idx] @ tied.out.weight.T))
show("tied conflict", lambda: functional_call(tied, {"emb.weight": new_w, "out.weight": new_w + 1}, (idx,)))

# gradients through functional_call w.r.t. the dict
model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
p = {k: v.detach() for k, v in model.named_parameters()}
X = torch.randn(8, 4)
Y = torch.randn(8, 1)


def loss_fn(p, xb, yb):
    return F.mse_loss(functional_call(model, p, (xb,)), yb)


g = grad(loss_fn)(p, X, Y)
model.zero_grad()
F.mse_loss(model(X), Y).backward()
print("grad matches backward", all(torch.allclose(g[k], model.get_parameter(k).grad, atol=1e-6) for k in g))

# per-sample gradients
def sample_loss(p, xb, yb):
    return loss_fn(p, xb.unsqueeze(0), yb.unsqueeze(0))


ps = vmap(grad(sample_loss), in_dims=(None, 0, 0))(p, X, Y)
print("per-sample shapes", {k: tuple(v.shape) for k, v in ps.items()})
manual = torch.stack([grad(sample_loss)(p, X[i], Y[i])["0.weight"] for i in range(8)])
print("per-sample match", torch.allclose(ps["0.weight"], manual, atol=1e-6))
print("mean = full", torch.allclose(ps["2.bias"].mean(0), g["2.bias"], atol=1e-6))
norms = torch.stack([v.flatten(1).norm(dim=1) for v in ps.values()]).norm(dim=0)
print("per-sample norms", norms)

# DP-SGD-style clip then average
clip = 0.5
factor = (clip / (norms + 1e-6)).clamp(max=1.0)
clipped = {k: (v * factor.view(-1, *[1] * (v.dim() - 1))).mean(0) for k, v in ps.items()}
print("clipped bias", clipped["2.bias"])

# a functional SGD step leaves the module untouched
new_p = {k: v - 0.1 * g[k] for k, v in p.items()}
before = loss_fn(p, X, Y).item()
after = loss_fn(new_p, X, Y).item()
print("loss", round(before, 4), "->", round(after, 4))
copy_model = copy.deepcopy(model)
print("module unchanged", torch.equal(copy_model[0].weight, model[0].weight))
