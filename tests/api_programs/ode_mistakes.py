"""The mistakes neural-ODE and PINN code makes with autograd, and PyTorch's exact words for them: an in-place update
of a state the solver saved, writing steps into a preallocated trajectory that is a leaf, integrating under no_grad
then calling backward, second derivatives of a linear field, Laplacians without create_graph, mismatched
grad_outputs (counted, shaped and typed), inference-mode buffers, anomaly detection's NaN check on a sqrt at zero,
and the repaired version of each printed next to the error."""

import warnings

import torch

nn = torch.nn
torch.manual_seed(0)
field = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
y0 = torch.randn(4, 2, requires_grad=True)


def attempt(tag, fn):
    try:
        out = fn()
        print(tag, "ok", out)
    except Exception as e:
        print(tag, type(e).__name__, e)


def inplace_euler():
    y = y0 * 1.0
    for _ in range(3):
        dy = field(y)
        y += 0.1 * dy  # the next field call saved y for its backward
    y.sum().backward()


def fixed_euler():
    y = y0 * 1.0
    for _ in range(3):
        y = y + 0.1 * field(y)
    y.sum().backward()
    return y0.grad.sum().round(decimals=4).item()


attempt("in-place state", inplace_euler)
y0.grad = None
attempt("out-of-place", fixed_euler)


def leaf_buffer():
    traj = torch.zeros(4, 4, 2, requires_grad=True)
    traj[0] = y0


def list_buffer():
    traj = [y0]
    for _ in range(3):
        traj.append(traj[-1] + 0.1 * field(traj[-1]))
    return tuple(torch.stack(traj).shape), torch.stack(traj).grad_fn.name()


attempt("leaf trajectory", leaf_buffer)
attempt("stacked trajectory", list_buffer)


def no_grad_solve():
    with torch.no_grad():
        y = y0 + 0.1 * field(y0)
    y.sum().backward()


attempt("no_grad solve", no_grad_solve)
x = torch.linspace(0, 1, 5).unsqueeze(-1).requires_grad_(True)
lin = nn.Linear(1, 1)


def second_derivative_linear():
    u = lin(x)
    (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
    return torch.autograd.grad(du.sum(), x)


def second_derivative_allow_unused():
    u = lin(x)
    (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
    return du.requires_grad, du.grad_fn.name()


def laplacian_without_create_graph():
    u = torch.sin(3 * x)
    (du,) = torch.autograd.grad(u.sum(), x)
    return torch.autograd.grad(du.sum(), x)


def laplacian_with_create_graph():
    u = torch.sin(3 * x)
    (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
    (d2u,) = torch.autograd.grad(du.sum(), x)
    return (d2u + 9 * u).abs().max().item() < 1e-5


attempt("linear second derivative", second_derivative_linear)
attempt("linear first derivative", second_derivative_allow_unused)
attempt("no create_graph", laplacian_without_create_graph)
attempt("create_graph", laplacian_with_create_graph)
u = field(y0)
attempt("count", lambda: torch.autograd.grad([u.sum(), u.mean()], y0, [torch.ones(())]))
attempt("count after shapes", lambda: torch.autograd.backward([u.sum(), u.mean()], [torch.ones(1)]))
attempt("shape", lambda: torch.autograd.grad(u, y0, torch.ones(4, 3)))
attempt("complex dtype", lambda: torch.autograd.grad(u, y0, torch.ones(4, 2, dtype=torch.complex64)))
attempt(
    "double is cast",
    lambda: torch.autograd.grad(u, y0, torch.ones(4, 2, dtype=torch.float64), retain_graph=True)[0].dtype,
)
attempt("implicit non-scalar", lambda: torch.autograd.grad(u, y0))
attempt("integer output", lambda: torch.autograd.grad(u.sum(), torch.ones(2, dtype=torch.long)))

with torch.inference_mode():
    cached = field(y0.detach())


def use_inference_tensor():
    return (field(y0) * cached).sum().backward()


attempt("inference tensor", use_inference_tensor)
attempt("clone fixes it", lambda: (field(y0) * cached.clone()).sum().backward())
print("is_inference", cached.is_inference(), cached.clone().is_inference(), cached.requires_grad)


def nan_gradient():
    r = torch.zeros(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            torch.sqrt(r).sum().backward()


def eps_fix():
    r = torch.zeros(3, requires_grad=True)
    torch.sqrt(r + 1e-12).sum().backward()
    return r.grad.tolist()


attempt("anomaly", nan_gradient)
attempt("eps", eps_fix)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    v = field(y0)
    _ = v.grad
    v.retain_grad()
    v.sum().backward()
print([str(c.message)[:60] for c in caught], v.grad.shape)
attempt("requires_grad on non-leaf", lambda: v.requires_grad_(False))
attempt("backward twice", lambda: [v.sum().backward() for _ in range(2)])
