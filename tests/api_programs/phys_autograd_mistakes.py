"""The autograd mistakes of first PINN attempts and PyTorch's exact words for them: differentiating w.r.t. inputs
without requires_grad, a second derivative without create_graph, grad_outputs of the wrong shape, in-place edits of
collocation points after use, requires_grad on non-leaves, numpy() of a graph tensor, integer points, no_grad inside
the residual, and backward twice; then the working versions."""

import torch

nn = torch.nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))


def attempt(label, fn):
    try:
        out = fn()
        print(label, "ok", out)
    except Exception as e:
        print(label, type(e).__name__, "|", e)


x = torch.linspace(0, 1, 5).unsqueeze(1)
attempt("no requires_grad", lambda: torch.autograd.grad(net(x).sum(), x))
xr = x.clone().requires_grad_(True)
u = net(xr)
ux = torch.autograd.grad(u.sum(), xr, retain_graph=True)[0]
print("u_x without create_graph", ux.requires_grad, ux.grad_fn)
attempt("second derivative", lambda: torch.autograd.grad(ux.sum(), xr))
attempt("grad_outputs shape", lambda: torch.autograd.grad(u, xr, grad_outputs=torch.ones(5), retain_graph=True))
attempt("grad_outputs dtype", lambda: torch.autograd.grad(u, xr, grad_outputs=torch.ones(5, 1, dtype=torch.float64),
                                                          retain_graph=True)[0].dtype)
attempt("non-scalar backward", lambda: u.backward())
attempt("integer points", lambda: torch.arange(5).requires_grad_())
attempt("integer tensor()", lambda: torch.tensor([1, 2], requires_grad=True))
attempt("non-leaf flag", lambda: u.requires_grad_(False))
attempt("numpy", lambda: u.numpy())
attempt("detach numpy", lambda: u.detach().numpy().shape)


def inplace_after_use():
    z = torch.linspace(0, 1, 4).requires_grad_()
    w = z * 1.0
    y = torch.sin(w)
    w.add_(1.0)
    return torch.autograd.grad(y.sum(), z)


attempt("in-place after use", inplace_after_use)
attempt("leaf in-place", lambda: xr.mul_(2))


def no_grad_residual():
    z = torch.linspace(0, 1, 4).unsqueeze(1).requires_grad_()
    with torch.no_grad():
        uu = net(z)
    return torch.autograd.grad(uu.sum(), z)


attempt("no_grad residual", no_grad_residual)


def twice():
    z = torch.ones(3, requires_grad=True)
    y = (z.exp() * z).sum()
    y.backward()
    y.backward()


attempt("backward twice", twice)
attempt("unrelated input", lambda: torch.autograd.grad(net(xr).sum(), torch.ones(1, requires_grad=True)))
attempt("inputs empty", lambda: torch.autograd.grad(net(xr).sum(), []))
attempt("outputs/grad len", lambda: torch.autograd.grad([u, u], xr, grad_outputs=[torch.ones_like(u)]))


def leaf_grad_warning():
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        z = torch.ones(2, requires_grad=True)
        y = z * 2
        (y * y).sum().backward()
        g = y.grad
    return g, [str(m.message)[:60] for m in w]


attempt("non-leaf .grad", leaf_grad_warning)

# the working versions
xr = torch.linspace(0, 1, 5).unsqueeze(1).requires_grad_()
u = net(xr)
ux = torch.autograd.grad(u, xr, torch.ones_like(u), create_graph=True)[0]
uxx = torch.autograd.grad(ux, xr, torch.ones_like(ux), create_graph=True)[0]
print("u_xx", uxx.grad_fn.name(), tuple(uxx.shape), round(uxx.sum().item(), 4))
ux.retain_grad()
(uxx ** 2).mean().backward(inputs=list(net.parameters()))
print("grad via inputs=", net[0].weight.grad is not None, xr.grad, ux.grad)
attempt("backward through the freed graph", lambda: u.sum().backward())


def gradient_enhanced():
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        z = torch.linspace(0, 1, 3).requires_grad_()
        (z ** 3).sum().backward(create_graph=True)
        g = z.grad
        (z ** 3).sum().backward(create_graph=True)
    return g.grad_fn.name(), z.grad.grad_fn.name(), g.tolist(), [str(m.message)[:56] for m in w]


attempt("backward(create_graph=True)", gradient_enhanced)
u = net(xr)
u.sum().backward(retain_graph=True)
u.sum().backward()
print("retained twice", round(net[2].bias.grad.item(), 4))
