"""The hook-based weight and spectral norms still found in older training code (nn.utils.weight_norm and
nn.utils.spectral_norm): their parameters, buffers, pre-hooks, grad_fns and state-dict metadata, power iteration
only in training mode, removal and its errors, and an old weight_norm checkpoint loaded into the
parametrization-based weight_norm."""

import io
import warnings

import torch
from torch import nn
from torch.nn.utils import parametrizations as P

torch.manual_seed(91)
torch.set_printoptions(precision=4)

with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    wn = nn.utils.weight_norm(nn.Linear(3, 2))
print("warned", [(r.category.__name__, str(r.message)[:60]) for r in rec])
print(sorted(wn.state_dict()), tuple(wn.weight_g.shape), [type(h).__name__ for h in wn._forward_pre_hooks.values()])
print("weight", wn.weight)
print("g is row norm", torch.allclose(wn.weight_g.squeeze(1), wn.weight.norm(dim=1)))

# training moves g and v; the hook recomputes the weight before every forward
opt = torch.optim.SGD(wn.parameters(), lr=0.1)
X, Y = torch.randn(8, 3), torch.randn(8, 2)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(wn(X), Y)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), wn.weight_g.grad.squeeze(1), type(wn.weight.grad_fn).__name__)
old_sd = wn.state_dict()

# dim=None normalises the whole tensor; a conv over its first dim
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    whole = nn.utils.weight_norm(nn.Conv2d(2, 3, 3), dim=None)
    per_out = nn.utils.weight_norm(nn.Conv2d(2, 3, 3))
print("dim=None g", whole.weight_g, type(whole.weight.grad_fn).__name__)
print("dim=0 g", tuple(per_out.weight_g.shape), type(per_out.weight.grad_fn).__name__)
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nn.utils.weight_norm(whole)
except RuntimeError as e:
    print("RuntimeError", e)

# an old checkpoint loads into the parametrization API (g/v become original0/original1)
new = P.weight_norm(nn.Linear(3, 2))
print(new.load_state_dict(old_sd))
print("stale until the next forward", torch.allclose(new.weight, wn.weight))
wn(X)
print("same weight", torch.allclose(new.weight, wn.weight), sorted(new.state_dict()))

nn.utils.remove_weight_norm(wn)
print("removed", sorted(wn.state_dict()), type(wn.weight).__name__, len(wn._forward_pre_hooks))
try:
    nn.utils.remove_weight_norm(wn)
except ValueError as e:
    print("ValueError", e)

# spectral_norm with hooks: u/v buffers, weight_orig, power iteration in train mode only
sn = nn.utils.spectral_norm(nn.Linear(5, 4), n_power_iterations=2)
print(sorted(sn.state_dict()), [type(h).__name__ for h in sn._forward_pre_hooks.values()])
print("u", sn.weight_u, "v", sn.weight_v)
hook = next(iter(sn._forward_pre_hooks.values()))
print("hook", hook.name, hook.dim, hook.n_power_iterations, hook.eps)
sigma_true = torch.linalg.matrix_norm(sn.weight_orig, 2).item()
for i in range(3):
    sn(torch.randn(2, 5))
    sigma_est = torch.dot(sn.weight_u, sn.weight_orig @ sn.weight_v).item()
    print("power iter", i, round(sigma_est, 4), round(torch.linalg.matrix_norm(sn.weight, 2).item(), 4))
print("true sigma", round(sigma_true, 4))
sn.eval()
u0 = sn.weight_u.clone()
sn(torch.randn(2, 5))
print("eval keeps u", torch.equal(u0, sn.weight_u))
sd = sn.state_dict()
print("metadata", sd._metadata[""])
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
sn2 = nn.utils.spectral_norm(nn.Linear(5, 4), n_power_iterations=2)
print(sn2.load_state_dict(torch.load(buf, weights_only=True)))
sn2.eval()
print("restored", torch.allclose(sn2(torch.ones(1, 5)), sn(torch.ones(1, 5))))
ct = nn.utils.spectral_norm(nn.ConvTranspose2d(2, 3, 3))
print("convT u/v", tuple(ct.weight_u.shape), tuple(ct.weight_v.shape))
nn.utils.remove_spectral_norm(sn)
print("removed", sorted(sn.state_dict()), type(sn.weight).__name__)
try:
    nn.utils.remove_spectral_norm(sn)
except ValueError as e:
    print("ValueError", e)
try:
    nn.utils.spectral_norm(ct)
except RuntimeError as e:
    print("RuntimeError", e)
