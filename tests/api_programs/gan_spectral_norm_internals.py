"""Spectral normalisation as SN-GAN/BigGAN code inspects it: the parametrization's _u/_v buffers, power iterations in
train and eval, dim for ConvTranspose2d, state_dict keys and loading, the legacy hook's weight_orig/weight_u, its
removal, and the errors of misuse."""

import torch
import torch.nn as nn

F = torch.nn.functional
P = torch.nn.utils.parametrizations
torch.manual_seed(0)

lin = P.spectral_norm(nn.Linear(6, 4))
sn = lin.parametrizations.weight[0]
print(type(sn).__name__, sn.n_power_iterations, sn.dim, sn.eps)
print(sorted(k for k, _ in lin.named_buffers()))
print(sorted(lin.state_dict().keys()))
print("u", tuple(sn._u.shape), "v", tuple(sn._v.shape), round(sn._u.norm().item(), 4), round(sn._v.norm().item(), 4))
W0 = lin.parametrizations.weight.original
print("original", tuple(W0.shape), type(W0).__name__, W0.requires_grad)
sigma_true = torch.linalg.matrix_norm(W0.detach(), ord=2)
for i in range(4):
    w = lin.weight
    print(
        "step",
        i,
        "sigma(W_sn)",
        round(torch.linalg.matrix_norm(w.detach(), 2).item(), 4),
        "u.Wv",
        round(torch.dot(sn._u, torch.mv(W0.detach(), sn._v)).item(), 4),
    )
print("true sigma", round(sigma_true.item(), 4))
lin.eval()
u_before = sn._u.clone()
_ = lin.weight
print("eval keeps u", torch.equal(u_before, sn._u))
lin.train()

# Gradient flows to the original through sigma.
x = torch.randn(3, 6)
lin(x).pow(2).sum().backward()
print("grad original", round(W0.grad.abs().sum().item(), 4), lin.weight.grad_fn is not None)

# ConvTranspose2d uses dim=1; more iterations converge closer.
ct = P.spectral_norm(nn.ConvTranspose2d(3, 5, 4, 2, 1), n_power_iterations=5)
print(
    "convT dim",
    ct.parametrizations.weight[0].dim,
    tuple(ct.parametrizations.weight[0]._u.shape),
    tuple(ct.parametrizations.weight[0]._v.shape),
)
mat = ct.weight.detach().transpose(0, 1).reshape(5, -1)
print("convT sigma", round(torch.linalg.matrix_norm(mat, 2).item(), 4))
conv = P.spectral_norm(nn.Conv2d(3, 8, 3), n_power_iterations=3, eps=1e-6)
print("conv", tuple(conv.parametrizations.weight[0]._u.shape), tuple(conv.parametrizations.weight[0]._v.shape))
print("conv sigma", round(torch.linalg.matrix_norm(conv.weight.detach().flatten(1), 2).item(), 4))

# Embedding with dim given explicitly (projection discriminator).
emb = P.spectral_norm(nn.Embedding(5, 4), dim=0)
print("emb", tuple(emb.weight.shape), tuple(emb.parametrizations.weight[0]._u.shape))

# Save and load into a fresh parametrized module.
sd = lin.state_dict()
lin2 = P.spectral_norm(nn.Linear(6, 4))
lin2.load_state_dict(sd)
lin2.eval()
lin.eval()
print("reloaded equal", torch.allclose(lin2(x), lin(x)))
print(repr(lin).splitlines()[0], "|", repr(lin).count("_SpectralNorm"))
torch.nn.utils.parametrize.remove_parametrizations(lin, "weight")
print("removed", type(lin.weight).__name__, sorted(lin.state_dict().keys()))

# The legacy hook API.
old = nn.utils.spectral_norm(nn.Conv2d(2, 4, 3), n_power_iterations=2)
print(sorted(old.state_dict().keys()))
print(
    "weight_u", tuple(old.weight_u.shape), "weight_v", tuple(old.weight_v.shape), isinstance(old.weight, nn.Parameter)
)
y = old(torch.randn(1, 2, 5, 5))
print("legacy out", tuple(y.shape), round(torch.linalg.matrix_norm(old.weight.detach().flatten(1), 2).item(), 4))
print("hooks", len(old._forward_pre_hooks), [type(h).__name__ for h in old._forward_pre_hooks.values()])
nn.utils.remove_spectral_norm(old)
print("after remove", sorted(old.state_dict().keys()), isinstance(old.weight, nn.Parameter))

# Errors.
try:
    nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2)))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.utils.remove_spectral_norm(nn.Linear(2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    P.spectral_norm(nn.Linear(2, 2), name="bias_x")
except Exception as e:
    print(type(e).__name__, e)
try:
    P.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.nn.utils.parametrize.remove_parametrizations(nn.Linear(2, 2), "weight")
except Exception as e:
    print(type(e).__name__, e)
