"""The neural tangent kernel of a PINN (Wang, Yu & Perdikaris 2022): Jacobians of u and of the residual u_xx w.r.t.
every parameter with torch.func (jacrev over functional_call, nested in x-derivatives, under vmap), the K_uu / K_rr
blocks, their traces for NTK loss weights, eigvalsh/svdvals/matrix_rank, and autograd.functional.jacobian over a
parameter tuple for comparison."""

import torch
from torch.func import functional_call, jacrev, vmap

nn = torch.nn
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

net = nn.Sequential(nn.Linear(1, 12), nn.Tanh(), nn.Linear(12, 12), nn.Tanh(), nn.Linear(12, 1))
params = {k: v.detach().clone() for k, v in net.named_parameters()}
n_params = sum(v.numel() for v in params.values())
print("n_params", n_params)


def u_fn(p, x):
    return functional_call(net, p, (x.view(1, 1),)).squeeze()


def r_fn(p, x):
    return jacrev(jacrev(u_fn, argnums=1), argnums=1)(p, x)


xb = torch.tensor([0.0, 1.0])
xr = torch.linspace(0, 1, 10)


def flat_jac(fn, xs):
    J = vmap(jacrev(fn, argnums=0), in_dims=(None, 0))(params, xs)
    return torch.cat([J[k].reshape(xs.shape[0], -1) for k in params], 1)


Ju = flat_jac(u_fn, xb)
Jr = flat_jac(r_fn, xr)
print("J shapes", tuple(Ju.shape), tuple(Jr.shape))
Kuu, Krr, Kur = Ju @ Ju.T, Jr @ Jr.T, Ju @ Jr.T
print("Kuu", Kuu.round(decimals=4).tolist())
print("sym", torch.allclose(Krr, Krr.T), "psd", bool(torch.linalg.eigvalsh(Krr).min() > -1e-8), tuple(Kur.shape))
K = torch.cat([torch.cat([Kuu, Kur], 1), torch.cat([Kur.T, Krr], 1)], 0)
ev = torch.linalg.eigvalsh(K)
print(
    "K eig max/min>0",
    round(ev[-1].item(), 2),
    bool(ev[0] > -1e-8),
    "rank",
    torch.linalg.matrix_rank(K, rtol=1e-3).item(),
    "decay",
    [round(v, 4) for v in ev[-4:].tolist()],
)
tr_u, tr_r = Kuu.trace(), Krr.trace()
tr = tr_u + tr_r
print("NTK weights", round((tr / tr_u).item(), 3), round((tr / tr_r).item(), 3))
sv = torch.linalg.svdvals(Jr)
print("svdvals", tuple(sv.shape), round((sv**2).sum().item() / tr_r.item(), 6))
print("cond", round(torch.linalg.cond(Kuu).item(), 3))

# the same Jacobian of u through autograd.functional over a tuple of parameter tensors
names = list(params)


def u_of(*ps):
    return functional_call(net, dict(zip(names, ps)), (xb.view(-1, 1),)).squeeze(1)


Jt = torch.autograd.functional.jacobian(u_of, tuple(params.values()))
print("tuple jac", len(Jt), [tuple(j.shape) for j in Jt][:2])
Jt_flat = torch.cat([j.reshape(2, -1) for j in Jt], 1)
print("agree", torch.allclose(Jt_flat, Ju))
Jv = torch.autograd.functional.jacobian(u_of, tuple(params.values()), vectorize=True)
print("vectorized agree", all(torch.allclose(a, b) for a, b in zip(Jt, Jv)))

# the empirical NTK by the per-sample gradient with autograd for one point
net.zero_grad()
net(xb[1].view(1, 1)).sum().backward()
g = torch.cat([p.grad.reshape(-1) for p in net.parameters()])
print("per-sample grad == J row", torch.allclose(g, Ju[1]))
pinv = torch.linalg.pinv(Jr, rtol=1e-10)
print("pinv", tuple(pinv.shape), torch.allclose(Jr @ pinv @ Jr, Jr, atol=1e-8))
try:
    vmap(jacrev(u_fn, argnums=0), in_dims=(0, 0))(params, xb)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:120])
