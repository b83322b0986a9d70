"""The adjoint sensitivity method written by hand, as in Chen et al.'s neural ODE paper: the augmented state
[z, a, a_theta] packed with cat/split/flatten and unflatten, vector-Jacobian products by torch.autograd.grad with
grad_outputs and allow_unused (time-independent parameters come back as None), a custom autograd.Function
wrapping the solver, and the gradients compared with plain backpropagation through the same RK4 steps."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
f64 = torch.float64


class Field(nn.Module):
    def __init__(self, dim=3, hidden=16):
        super().__init__()
        self.l1 = nn.Linear(dim, hidden)
        self.l2 = nn.Linear(hidden, dim)
        self.unused = nn.Parameter(torch.zeros(2))  # never touched by forward

    def forward(self, t, z):
        return self.l2(torch.tanh(self.l1(z))) * torch.cos(t)


def rk4(f, z, t0, t1, n):
    h = (t1 - t0) / n
    t = t0
    for _ in range(n):
        k1 = f(t, z)
        k2 = f(t + h / 2, z + h / 2 * k1)
        k3 = f(t + h / 2, z + h / 2 * k2)
        k4 = f(t + h, z + h * k3)
        z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + h
    return z


field = Field().double()
params = [p for p in field.parameters()]
shapes = [p.shape for p in params]
numels = [p.numel() for p in params]
print("params", [tuple(s) for s in shapes], sum(numels))


def aug_dynamics(t, state, B, D):
    z, a = state[:, :D], state[:, D : 2 * D]
    with torch.enable_grad():
        z = z.detach().requires_grad_(True)
        f = field(t, z)
        grads = torch.autograd.grad(f, (z, *params), grad_outputs=-a, allow_unused=True)
    a_dot, p_dot = grads[0], grads[1:]
    flat = torch.cat([torch.zeros(n, dtype=f64) if g is None else g.flatten() for g, n in zip(p_dot, numels)])
    return torch.cat([f, a_dot, flat.unsqueeze(0).expand(B, -1) / B], dim=1)


class ODEAdjoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z0, t0, t1, *ps):
        with torch.no_grad():
            z1 = rk4(field, z0, t0, t1, 40)
        ctx.save_for_backward(z1)
        ctx.t = (t0, t1)
        return z1

    @staticmethod
    def backward(ctx, grad_z1):
        (z1,) = ctx.saved_tensors
        t0, t1 = ctx.t
        B, D = z1.shape
        state = torch.cat([z1, grad_z1, torch.zeros(B, sum(numels), dtype=f64)], dim=1)
        state = rk4(lambda t, s: aug_dynamics(t, s, B, D), state, t1, t0, 40)
        z0, a0, ap = torch.split(state, [D, D, sum(numels)], dim=1)
        flat = ap.sum(0)
        pg = [g.view(s) for g, s in zip(flat.split(numels), shapes)]
        return (a0, None, None, *pg)


z0 = torch.randn(4, 3, dtype=f64)
target = torch.randn(4, 3, dtype=f64)
t0, t1 = torch.tensor(0.0, dtype=f64), torch.tensor(1.5, dtype=f64)

z0a = z0.clone().requires_grad_(True)
z1 = ODEAdjoint.apply(z0a, t0, t1, *params)
loss = F.mse_loss(z1, target)
loss.backward()
adj = [p.grad.clone() for p in params]
print("z1", z1.grad_fn.name(), z1[0].round(decimals=4).tolist(), "loss", round(loss.item(), 6))
print("dL/dz0", z0a.grad[0].round(decimals=4).tolist())

field.zero_grad()
z0b = z0.clone().requires_grad_(True)
loss_b = F.mse_loss(rk4(field, z0b, t0, t1, 40), target)
direct = torch.autograd.grad(loss_b, [z0b, *params], allow_unused=True)
print("direct unused", [g is None for g in direct])
print("z0 grad diff", f"{(direct[0] - z0a.grad).abs().max().item():.1e}")
for (name, _), ga, gd in zip(field.named_parameters(), adj, direct[1:]):
    gd = torch.zeros_like(ga) if gd is None else gd
    print(name, tuple(ga.shape), round(ga.norm().item(), 4), (ga - gd).abs().max().item() < 1e-6)

# unflatten a flat parameter vector back into a batch of weight matrices
flat = torch.cat([p.detach().flatten() for p in params])
w1 = flat[numels[0] : numels[0] + numels[1]].unflatten(0, (16, 3))
print("unflatten", tuple(w1.shape), torch.equal(w1, field.l1.weight.detach()))
print(torch.arange(24).unflatten(-1, (2, -1)).shape, torch.arange(24).view(2, 12).unflatten(1, (3, 2, 2)).shape)
print(torch.randn(2, 3, 4).flatten(0, 1).shape, torch.randn(2, 3, 4).flatten(-2).shape, torch.tensor(5.0).flatten())
try:
    torch.arange(24).unflatten(0, (5, -1))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(loss_b, [field.unused])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(field(t0, z0b), z0b)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(field(t0, z0b).sum(), z0b, grad_outputs=torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
g = torch.autograd.grad(field(t0, z0b), z0b, grad_outputs=torch.ones(4, 3, dtype=f64), retain_graph=True)
print("vjp ones", g[0].sum().round(decimals=4).item(), len(g))
g = torch.autograd.grad(
    [field(t0, z0b).sum(), z0b.pow(2).sum()], [z0b], grad_outputs=[None, torch.tensor(2.0, dtype=f64)]
)
print("two outputs", (g[0] - 4 * z0b).abs().max().round(decimals=4).item() > 0)
