"""Norm reparametrizations in compression code: orthogonal maps, spectral and weight norm (new and legacy forms)."""

import torch

nn = torch.nn
F = torch.nn.functional
PZ = torch.nn.utils.parametrizations

torch.manual_seed(0)
for m in ["matrix_exp", "cayley", "householder"]:
    torch.manual_seed(0)
    lin = PZ.orthogonal(nn.Linear(4, 3), orthogonal_map=m)
    W = lin.weight
    print(m, round((W @ W.T - torch.eye(3)).abs().max().item(), 4), sorted(lin.state_dict()))
    (W * torch.arange(12.0).reshape(3, 4)).sum().backward()
    print("  grad", round(lin.parametrizations.weight.original.grad.abs().sum().item(), 4))
tall = PZ.orthogonal(nn.Linear(3, 5), use_trivialization=False)
Wt = tall.weight
print("tall", tuple(Wt.shape), round((Wt.T @ Wt - torch.eye(3)).abs().max().item(), 4), tall.parametrizations.weight[0])
conv = PZ.orthogonal(nn.Conv2d(2, 3, 2))
Wc = conv.weight
print("conv", tuple(Wc.shape), round((Wc @ Wc.transpose(-2, -1) - torch.eye(2)).abs().max().item(), 4))
# assigning an orthogonal matrix goes through right_inverse
q = torch.linalg.qr(torch.randn(4, 4)).Q
sq = PZ.orthogonal(nn.Linear(4, 4, bias=False))
sq.weight = q
print("assigned", round((sq.weight - q).abs().max().item(), 4))

sn = PZ.spectral_norm(nn.Linear(5, 4), n_power_iterations=3)
print(sn)
print(sorted(sn.state_dict()), round(torch.linalg.matrix_norm(sn.weight, 2).item(), 4))
print("u", sn.parametrizations.weight[0]._u.round(decimals=4).tolist())
sn.eval()
w_eval = sn.weight
print("eval sigma", round(torch.linalg.matrix_norm(w_eval, 2).item(), 4), w_eval.round(decimals=4)[0].tolist())
snt = PZ.spectral_norm(nn.ConvTranspose2d(3, 2, 3))
print("convT", tuple(snt.parametrizations.weight[0]._u.shape), tuple(snt.parametrizations.weight[0]._v.shape))

wn = PZ.weight_norm(nn.Linear(3, 2))
print(
    wn.parametrizations.weight[0],
    [tuple(t.shape) for t in (wn.parametrizations.weight.original0, wn.parametrizations.weight.original1)],
)
print("g", wn.parametrizations.weight.original0.round(decimals=4).flatten().tolist())
wn1 = PZ.weight_norm(nn.Linear(5, 4), dim=1)
print("dim1", tuple(wn1.parametrizations.weight.original0.shape))
wnn = PZ.weight_norm(nn.Conv2d(2, 3, 3), dim=None)
print(
    "dimNone",
    tuple(wnn.parametrizations.weight.original0.shape),
    round(wnn.parametrizations.weight.original0.item(), 4),
)
print(
    "dim-2",
    tuple(PZ.weight_norm(nn.Conv2d(2, 3, 3), dim=-2).parametrizations.weight.original0.shape),
    "dim-1",
    tuple(PZ.weight_norm(nn.Conv2d(2, 3, 3), dim=-1).parametrizations.weight.original0.shape),
)
try:
    PZ.weight_norm(nn.Conv2d(2, 3, 3), dim=5)
except Exception as e:
    print(type(e).__name__, e)
out = wn(torch.ones(1, 3)).sum()
out.backward()
print(
    "wn grads",
    wn.parametrizations.weight.original0.grad.round(decimals=4).flatten().tolist(),
    round(wn.parametrizations.weight.original1.grad.abs().sum().item(), 4),
)

# legacy hook-based forms
old_sn = nn.utils.spectral_norm(nn.Conv2d(2, 3, 3), n_power_iterations=2)
print(sorted(old_sn.state_dict()), list(old_sn._forward_pre_hooks.keys()) != [])
y = old_sn(torch.randn(1, 2, 4, 4))
print("legacy sn", tuple(y.shape), old_sn.weight_u.round(decimals=4).tolist())
old_wn = nn.utils.weight_norm(nn.Linear(5, 4), name="weight", dim=0)
print(sorted(old_wn.state_dict()), tuple(old_wn.weight_g.shape))
nn.utils.remove_weight_norm(old_wn)
nn.utils.remove_spectral_norm(old_sn)
print(sorted(old_wn.state_dict()), sorted(old_sn.state_dict()))
for fn, arg in [(nn.utils.remove_weight_norm, old_wn), (nn.utils.remove_spectral_norm, old_sn)]:
    try:
        fn(arg)
    except Exception as e:
        print(type(e).__name__, e)
for kw in [dict(orthogonal_map="qr"), dict(name="foo")]:
    try:
        PZ.orthogonal(nn.Linear(3, 3), **kw)
    except Exception as e:
        print(type(e).__name__, e)
try:
    PZ.orthogonal(nn.Linear(3, 3), name="bias")
except Exception as e:
    print(type(e).__name__, e)
try:
    PZ.spectral_norm(nn.Linear(3, 3), name="scale")
except Exception as e:
    print(type(e).__name__, e)
