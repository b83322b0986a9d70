"""The Adam-then-LBFGS schedule of PINN training: Adam warm-up, then torch.optim.LBFGS with strong-Wolfe line search
on a damped-oscillator ODE residual, with the optimizer's state (func_evals, n_iter), its repr and state_dict, the
options' effect on evaluation counts, and LBFGS's own errors."""

import math

import torch

nn = torch.nn
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
ZETA, W0 = 0.2, 3.0

net = nn.Sequential(nn.Linear(1, 12), nn.Tanh(), nn.Linear(12, 12), nn.Tanh(), nn.Linear(12, 1))
t = torch.linspace(0, 2, 40).unsqueeze(1).requires_grad_(True)
t0 = torch.zeros(1, 1, requires_grad=True)


def loss_fn():
    u = net(t)
    ut = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
    utt = torch.autograd.grad(ut, t, torch.ones_like(ut), create_graph=True)[0]
    r = utt + 2 * ZETA * W0 * ut + W0**2 * u
    u0 = net(t0)
    v0 = torch.autograd.grad(u0, t0, torch.ones_like(u0), create_graph=True)[0]
    return r.pow(2).mean() / W0**4 + (u0 - 1).pow(2).sum() + v0.pow(2).sum()


adam = torch.optim.Adam(net.parameters(), lr=1e-2)
for i in range(40):
    adam.zero_grad()
    L = loss_fn()
    L.backward()
    adam.step()
print("after adam", round(L.item(), 4))

lbfgs = torch.optim.LBFGS(
    net.parameters(),
    lr=1.0,
    max_iter=20,
    history_size=10,
    line_search_fn="strong_wolfe",
    tolerance_grad=1e-9,
    tolerance_change=1e-12,
)
print(lbfgs)
calls = []


def closure():
    lbfgs.zero_grad()
    L = loss_fn()
    L.backward()
    calls.append(L.item())
    return L


for outer in range(3):
    out = lbfgs.step(closure)
    st = lbfgs.state[lbfgs._params[0]]
    print(
        "outer",
        outer,
        "returned",
        round(out.item(), 4),
        "n_iter",
        st["n_iter"],
        "evals>=iters",
        st["func_evals"] >= st["n_iter"],
    )
print("final", round(loss_fn().item(), 4), "monotone-ish", calls[-1] <= calls[0])
sd = lbfgs.state_dict()
print("state keys", sorted(sd["state"][0].keys()))
print("group keys", sorted(k for k in sd["param_groups"][0] if k != "params"), sd["param_groups"][0]["params"])
print("history len", len(sd["state"][0]["old_dirs"]), sd["state"][0]["d"].shape)

with torch.no_grad():
    tt = torch.linspace(0, 2, 5).unsqueeze(1)
    wd = W0 * math.sqrt(1 - ZETA**2)
    exact = torch.exp(-ZETA * W0 * tt) * (torch.cos(wd * tt) + ZETA * W0 / wd * torch.sin(wd * tt))
    print("pred", net(tt).squeeze(1).round(decimals=3).tolist())
    print("exact", exact.squeeze(1).round(decimals=4).tolist())

# plain LBFGS (no line search) on a quadratic: counts and the max_eval default
A = torch.tensor([[3.0, 1.0], [1.0, 2.0]])
x = torch.zeros(2, requires_grad=True)
opt = torch.optim.LBFGS([x], lr=0.5, max_iter=7)
print("max_eval default", opt.defaults["max_eval"], "line_search", opt.defaults["line_search_fn"])


def quad():
    opt.zero_grad()
    f = 0.5 * x @ A @ x - x.sum()
    f.backward()
    return f


opt.step(quad)
print(
    "x", x.detach().round(decimals=4).tolist(), "solve", torch.linalg.solve(A, torch.ones(2)).round(decimals=4).tolist()
)

for label, fn in [
    ("groups", lambda: torch.optim.LBFGS([{"params": [x]}, {"params": [torch.zeros(1, requires_grad=True)]}])),
    ("bad line search", lambda: torch.optim.LBFGS([x], line_search_fn="armijo").step(quad)),
    ("no closure", lambda: torch.optim.LBFGS([x]).step()),
    ("lr", lambda: torch.optim.LBFGS([x], lr=-1)),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, e)
