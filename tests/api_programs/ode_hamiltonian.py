"""Hamiltonian and Lagrangian neural networks (Greydanus et al., Cranmer et al.): a learned scalar H(q, p) whose
symplectic gradient is taken with create_graph=True and trained against a pendulum's time derivatives, a leapfrog
integrator that conserves the learned energy, and a Lagrangian network whose accelerations come from the Hessian
and mixed Jacobian of L (torch.autograd.functional.hessian/jacobian, vectorize and create_graph) solved with
torch.linalg.solve / pinv."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
AF = torch.autograd.functional


class HNN(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1, bias=False)
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def time_derivative(self, x, create_graph=True):
        x = x if x.requires_grad else x.detach().requires_grad_(True)
        H = self(x)
        (dH,) = torch.autograd.grad(H.sum(), x, create_graph=create_graph)
        dq, dp = dH.chunk(2, dim=-1)
        return torch.cat([dp, -dq], dim=-1)


def pendulum(x):
    q, p = x.unbind(-1)
    return torch.stack([p, -3.0 * torch.sin(q)], dim=-1)


def energy(x):
    return 0.5 * x[..., 1] ** 2 + 3.0 * (1 - torch.cos(x[..., 0]))


x = torch.rand(128, 2) * 4 - 2
dx = pendulum(x)
model = HNN()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(40):
    opt.zero_grad()
    loss = F.mse_loss(model.time_derivative(x), dx)
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print("hnn step", step, round(loss.item(), 4))

v = model.time_derivative(x[:3])
print("vector field", v.shape, v.grad_fn.name(), v.requires_grad)
xs = x[:3].requires_grad_()
print("view made a leaf", xs.is_leaf, xs._base is x, x.requires_grad)
try:
    torch.autograd.grad(model(xs).sum(), x, allow_unused=True)
except Exception as e:
    print(type(e).__name__, e)
print(
    "unused leaf",
    torch.autograd.grad(
        model(xs).sum(), [xs, torch.ones(1, requires_grad=True)], allow_unused=True, materialize_grads=True
    )[1],
)


def leapfrog(grad_fn, q, p, h, n):
    traj = []
    for _ in range(n):
        p = p - h / 2 * grad_fn(q, p)[0]
        q = q + h * grad_fn(q, p)[1]
        p = p - h / 2 * grad_fn(q, p)[0]
        traj.append(torch.stack([q, p], -1))
    return torch.stack(traj)


def true_grads(q, p):
    return 3.0 * torch.sin(q), p


x0 = torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=torch.float64)
traj = leapfrog(true_grads, x0[:, 0], x0[:, 1], 0.1, 100)
E = energy(traj)
print("leapfrog energy", E[0].round(decimals=4).tolist(), "drift", round((E - E[0]).abs().max().item(), 4))
eul = [x0]
for _ in range(100):
    eul.append(eul[-1] + 0.1 * pendulum(eul[-1]))
print("euler energy growth", (energy(eul[-1]) / energy(x0)).round(decimals=4).tolist())

# Lagrangian network: acc = (d2L/dqd2)^-1 (dL/dq - d2L/dq_dqd qd)
lnn = nn.Sequential(nn.Linear(2, 32), nn.Softplus(), nn.Linear(32, 32), nn.Softplus(), nn.Linear(32, 1)).double()


def L(qqd):
    return lnn(qqd).sum()


def true_L(qqd):
    q, qd = qqd[..., 0], qqd[..., 1]
    return (0.5 * qd**2 - 3.0 * (1 - torch.cos(q))).sum()


def accel(Lf, qqd, create_graph=False):
    Hs = AF.hessian(Lf, qqd, create_graph=create_graph)
    J = AF.jacobian(Lf, qqd, create_graph=create_graph)
    qd = qqd[1:]
    rhs = J[:1] - Hs[1:, :1] @ qd
    return torch.linalg.solve(Hs[1:, 1:], rhs)


s = torch.tensor([0.7, -0.3], dtype=torch.float64)
print("true accel", accel(true_L, s).round(decimals=4).tolist(), round(-3 * torch.sin(torch.tensor(0.7)).item(), 4))
Hs = AF.hessian(L, s)
print("lnn hessian", tuple(Hs.shape), Hs.dtype, torch.allclose(Hs, Hs.T))
Hv = AF.hessian(L, s, vectorize=True)
print("vectorized same", torch.allclose(Hs, Hv))
Hf = AF.hessian(L, s, vectorize=True, outer_jacobian_strategy="forward-mode")
print("forward-over-reverse same", torch.allclose(Hs, Hf))
a = accel(L, s, create_graph=True)
print("lnn accel", a.shape, a.requires_grad, a.grad_fn.name())
a.sum().backward()
print("grad reaches weights", lnn[0].weight.grad.abs().sum().item() > 0)
print(
    "pinv solve", (torch.linalg.pinv(Hs[1:, 1:]) @ (AF.jacobian(L, s)[:1] - Hs[1:, :1] @ s[1:])).allclose(accel(L, s))
)

batch = torch.randn(5, 2, dtype=torch.float64)
Hb = AF.hessian(lambda b: lnn(b).sum(), batch)
print("batched hessian", tuple(Hb.shape), torch.diagonal(Hb.view(10, 10)).round(decimals=4).tolist()[:4])
try:
    AF.hessian(lambda b: lnn(b), batch)
except Exception as e:
    print(type(e).__name__, e)
try:
    AF.hessian(L, s, outer_jacobian_strategy="forward-mode")
except Exception as e:
    print(type(e).__name__, e)
try:
    AF.jacobian(L, s, strategy="sideways")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.zeros(2, 2, dtype=torch.float64), torch.ones(2, dtype=torch.float64))
except Exception as e:
    print(type(e).__name__, e)
