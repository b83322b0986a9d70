"""Making a CNN DP-compatible before private federated training: BatchNorm swapped for GroupNorm by module surgery
(named_children, setattr), per-sample conv gradients via unfold (im2col) checked against torch.func, and ghost
clipping's per-sample norm computed from activations and output gradients without materialising the gradients."""

import torch
from torch.func import functional_call, grad, vmap

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16, 3)
)


def replace_bn(module, groups=2):
    for name, child in module.named_children():
        if isinstance(child, nn.BatchNorm2d):
            setattr(module, name, nn.GroupNorm(min(groups, child.num_features), child.num_features))
        else:
            replace_bn(child, groups)
    return module


replace_bn(model)
print(model[1], [type(m).__name__ for m in model])
print("buffers", list(model.named_buffers()))
X = torch.randn(5, 1, 6, 6)
Y = torch.tensor([0, 1, 2, 1, 0])

conv = model[0]
acts, gouts = {}, {}
hooks = [
    conv.register_forward_hook(lambda m, i, o: acts.__setitem__("a", i[0].detach())),
    conv.register_full_backward_hook(lambda m, gi, go: gouts.__setitem__("g", go[0].detach())),
]
loss = F.cross_entropy(model(X), Y, reduction="sum")
loss.backward()
a, g = acts["a"], gouts["g"]
cols = F.unfold(a, kernel_size=3)
print("unfold", tuple(cols.shape), "grad_out", tuple(g.shape))
gw = torch.einsum("nol,nkl->nok", g.flatten(2), cols).view(5, *conv.weight.shape)
gb = g.sum(dim=(2, 3))
print(
    "sum matches",
    torch.allclose(gw.sum(0), conv.weight.grad, atol=1e-5),
    torch.allclose(gb.sum(0), conv.bias.grad, atol=1e-5),
)

for h in hooks:
    h.remove()  # full backward hooks are autograd.Functions without setup_context: no torch.func through them
params = {k: v.detach() for k, v in model.named_parameters()}


def one(p, x, y):
    return F.cross_entropy(functional_call(model, p, (x[None],)), y[None], reduction="sum")


ps = vmap(grad(one), in_dims=(None, 0, 0))(params, X, Y)
print("func agrees", torch.allclose(ps["0.weight"], gw, atol=1e-5), tuple(ps["1.weight"].shape))

# ghost norm: ||g_i^T a_i||_F^2 = sum over (l, l') of (a_i a_i^T)(g_i g_i^T)
aa = torch.einsum("nkl,nkm->nlm", cols, cols)
gg = torch.einsum("nol,nom->nlm", g.flatten(2), g.flatten(2))
ghost = (aa * gg).sum(dim=(1, 2)).sqrt()
direct = gw.flatten(1).norm(dim=1)
print("ghost norms", ghost.round(decimals=4).tolist(), torch.allclose(ghost, direct, rtol=1e-4))
lin_a, lin_g = [], []
h1 = model[5].register_forward_hook(lambda m, i, o: lin_a.append(i[0].detach()))
h2 = model[5].register_full_backward_hook(lambda m, gi, go: lin_g.append(go[0].detach()))
model.zero_grad()
F.cross_entropy(model(X), Y, reduction="sum").backward()
lin_norm = lin_a[0].norm(dim=1) * lin_g[0].norm(dim=1)
print("linear ghost", torch.allclose(lin_norm, ps["5.weight"].flatten(1).norm(dim=1), rtol=1e-4))
h1.remove()
h2.remove()
try:
    with torch.nn.modules.module.register_module_full_backward_hook(lambda m, gi, go: None):
        pass
except Exception as e:
    print(type(e).__name__, e)

gn = nn.GroupNorm(2, 4, affine=False)
z = gn(torch.arange(32.0).view(1, 4, 2, 4))
print("groupnorm", z[0, :, 0, 0].round(decimals=4).tolist(), gn, list(gn.parameters()))
print("per-sample independent", torch.allclose(model[1](model[0](X))[:2], model[1](model[0](X[:2]))))
print(
    "fold back",
    torch.allclose(F.fold(F.unfold(a, 3), (6, 6), 3) / F.fold(F.unfold(torch.ones_like(a), 3), (6, 6), 3), a),
)

try:
    nn.GroupNorm(3, 4)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.unfold(torch.zeros(2, 3), 2)
except Exception as e:
    print(type(e).__name__, e)
try:
    model[1](torch.zeros(2, 6, 3, 3))
except Exception as e:
    print(type(e).__name__, e)
