"""Adaptive loss weighting for PINNs (learning-rate annealing by gradient norms, Wang et al. 2021): per-term
gradients through autograd.grad(retain_graph=True, allow_unused=True, materialize_grads=True), weights updated as an
EMA of max/mean ratios, nn.utils.get_total_norm/clip_grads_with_norm_/clip_grad_norm_, and parameters_to_vector."""

import math

import torch

nn = torch.nn
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
extra = nn.Parameter(torch.zeros(3))  # unused by the losses
params = list(net.parameters())
x = torch.linspace(0, 1, 32).unsqueeze(1).requires_grad_()
xb = torch.tensor([[0.0], [1.0]])
K = 4 * math.pi


def losses():
    u = net(x)
    ux = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    uxx = torch.autograd.grad(ux.sum(), x, create_graph=True)[0]
    pde = (uxx + K ** 2 * torch.sin(K * x)).pow(2).mean()
    bc = net(xb).pow(2).mean()
    return pde, bc


pde, bc = losses()
try:
    torch.autograd.grad(pde, params, retain_graph=True)
except Exception as e:
    print(type(e).__name__, e)
g_pde = torch.autograd.grad(pde, params, retain_graph=True, allow_unused=True, materialize_grads=True)
print("pde ignores the output bias", g_pde[-1].tolist())
g_bc = torch.autograd.grad(bc, params + [extra], retain_graph=True, allow_unused=True)
print("unused grad", g_bc[-1])
g_bc_m = torch.autograd.grad(bc, params + [extra], retain_graph=True, allow_unused=True, materialize_grads=True)
print("materialized", g_bc_m[-1], g_bc_m[-1].dtype)
try:
    torch.autograd.grad(bc, params + [extra], retain_graph=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(bc, [extra], materialize_grads=True, allow_unused=False)
except Exception as e:
    print(type(e).__name__, e)

max_pde = torch.max(torch.stack([g.abs().max() for g in g_pde]))
mean_bc = torch.mean(torch.cat([g.abs().flatten() for g in g_bc[:-1]]))
print("max|g_pde|", round(max_pde.item(), 3), "mean|g_bc|", round(mean_bc.item(), 4))
vec = nn.utils.parameters_to_vector(g_pde)
print("vec", tuple(vec.shape), round(vec.norm().item(), 3))
tn = nn.utils.get_total_norm(g_pde, norm_type=2.0)
print("total norm", round(tn.item(), 3), torch.allclose(tn, vec.norm()))
print("inf norm", round(nn.utils.get_total_norm(g_pde, norm_type="inf").item(), 3))

lam = torch.tensor(1.0)
alpha = 0.9
opt = torch.optim.Adam(params, lr=1e-3)
for step in range(30):
    pde, bc = losses()
    if step % 10 == 0:
        gp = torch.autograd.grad(pde, params[:-1], retain_graph=True)
        gb = torch.autograd.grad(bc, params, retain_graph=True)
        ratio = torch.stack([g.abs().max() for g in gp]).max() / torch.cat([g.abs().flatten() for g in gb]).mean()
        lam = alpha * lam + (1 - alpha) * ratio.detach()
        print("step", step, "lambda", round(lam.item(), 3))
    loss = pde + lam * bc
    opt.zero_grad()
    loss.backward()
    total = nn.utils.clip_grad_norm_(params, max_norm=100.0, norm_type=2.0, foreach=True)
    opt.step()
print("last clip norm", round(total.item(), 2), "loss", round(loss.item(), 2))

# clip by hand with the split helpers
for p in params:
    p.grad = torch.ones_like(p)
tn = nn.utils.get_total_norm([p.grad for p in params])
nn.utils.clip_grads_with_norm_(params, max_norm=1.0, total_norm=tn)
print("after clip", round(nn.utils.get_total_norm([p.grad for p in params]).item(), 4), round(tn.item(), 4))
params[0].grad[0, 0] = float("nan")
try:
    nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
v = nn.utils.parameters_to_vector(params)
nn.utils.vector_to_parameters(v * 0 + 0.5, params)
print("set", params[0].view(-1)[:3].tolist(), params[-1].item())
try:
    nn.utils.vector_to_parameters(v[:5], params)
except Exception as e:
    print(type(e).__name__, str(e)[:80])
try:
    print("tensor as iterable", tuple(nn.utils.parameters_to_vector(params[0]).shape))
except Exception as e:
    print(type(e).__name__, e)
