"""module hooks, parametrizations, weight_norm, spectral_norm, checkpoint."""

import numpy as np
import torch
from torch import nn
import torch.nn.utils.parametrize as P
from torch.nn.utils.parametrizations import weight_norm, spectral_norm, orthogonal
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.3)


net = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
det(net)
acts, grads, pre = {}, {}, []


def fwd_hook(name):
    def h(mod, inp, out):
        acts[name] = out.detach()

    return h


hs = [net[0].register_forward_hook(fwd_hook("fc0")), net[2].register_forward_hook(fwd_hook("fc2"))]
hb = net[0].register_full_backward_hook(
    lambda m, gi, go: grads.update(gi=[g.shape if g is not None else None for g in gi], go=[g.shape for g in go])
)
hp = net[0].register_forward_pre_hook(lambda m, inp: pre.append(inp[0].shape))
hk = net[2].register_forward_hook(lambda m, args, kwargs, out: out * 2, with_kwargs=True)
x = T(3, 4).requires_grad_()
y = net(x)
y.sum().backward()
print("acts", sorted(acts), r(acts["fc2"]), r(y))
print("bwd", grads)
print("pre", pre)
for h in hs + [hb, hp, hk]:
    h.remove()
print("removed", len(net[0]._forward_hooks))
rp = net.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
net.zero_grad()
net(x).sum().backward()
print("bwd_pre", net[0].weight.grad.abs().sum().item())
rp.remove()
# global state dict hooks
sdh = net.register_state_dict_pre_hook(lambda m, prefix, keep_vars: None)
print("sdpre", list(net.state_dict().keys()))
lin = nn.Linear(4, 3)
det(lin)
wn = weight_norm(lin, name="weight", dim=0)
print(
    "wn",
    sorted(n for n, _ in wn.named_parameters()),
    r(wn.parametrizations.weight.original0),
    P.is_parametrized(wn, "weight"),
)
print("wn_out", r(wn(T(2, 4))))
lin2 = nn.Linear(4, 3)
det(lin2)
sn = spectral_norm(lin2, n_power_iterations=5)
sn.eval()
print("sn_sigma", round(torch.linalg.matrix_norm(sn.weight, ord=2).item(), 2))


class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


lin3 = nn.Linear(3, 3)
det(lin3)
P.register_parametrization(lin3, "weight", Sym())
print("sym", torch.allclose(lin3.weight, lin3.weight.T), type(lin3).__name__, list(lin3.state_dict().keys()))
with P.cached():
    a = lin3.weight
    b = lin3.weight
    print("cached", a is b)
P.remove_parametrizations(lin3, "weight", leave_parametrized=True)
print("removed_param", list(lin3.state_dict().keys()), type(lin3).__name__)
o = orthogonal(nn.Linear(3, 3))
print("orth", torch.allclose(o.weight @ o.weight.T, torch.eye(3), atol=1e-5))
old = nn.utils.weight_norm(nn.Linear(3, 2))
print("old_wn", sorted(n for n, _ in old.named_parameters()))
nn.utils.remove_weight_norm(old)
print("old_wn_removed", sorted(n for n, _ in old.named_parameters()))
seq = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(4)])
det(seq)
xi = T(2, 4).requires_grad_()
y1 = checkpoint(seq[0], xi, use_reentrant=False)
y2 = checkpoint_sequential(seq, 2, xi, use_reentrant=False)
y2.sum().backward()
g_ck = xi.grad.clone()
xi.grad = None
seq(xi).sum().backward()
print("ckpt", torch.allclose(g_ck, xi.grad), r(y2))
print("apply", sum(1 for m in seq.modules()), [n for n, _ in seq.named_children()][:2], len(list(seq.named_modules())))
print("get_submodule", type(seq.get_submodule("0.1")).__name__, seq.get_parameter("1.0.bias").shape)
print("repr", repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU())))
print(
    "extra_repr",
    repr(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)),
    repr(nn.BatchNorm1d(4)),
    repr(nn.Dropout(0.2)),
    repr(nn.LSTM(3, 4, batch_first=True)),
)
print("OK")
