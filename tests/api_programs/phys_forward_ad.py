"""Forward-mode derivatives for PINN residuals: torch.autograd.forward_ad dual numbers through an MLP for u_x,
forward-over-reverse for the second derivative, is_grads_batched=True for whole Jacobians in one autograd.grad
call, and the errors of dual tensors used outside their level or with mismatched tangents."""

import torch
import torch.autograd.forward_ad as fwAD

nn = torch.nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 10), nn.Tanh(), nn.Linear(10, 10), nn.SiLU(), nn.Linear(10, 1)).double()
z = torch.tensor([[0.1, 0.5], [0.4, -0.2], [-0.3, 0.9]], dtype=torch.float64)
ex = torch.tensor([1.0, 0.0], dtype=torch.float64).expand_as(z)

with fwAD.dual_level():
    dual = fwAD.make_dual(z, ex)
    print("is dual input", fwAD.unpack_dual(dual).tangent is not None)
    out = net(dual)
    up = fwAD.unpack_dual(out)
    print(type(up).__name__, up._fields, tuple(up.primal.shape))
    u_x_fwd = up.tangent.squeeze(1)
print("after level", fwAD.unpack_dual(out).tangent)

zr = z.clone().requires_grad_()
u = net(zr)
g = torch.autograd.grad(u.sum(), zr, create_graph=True)[0]
print("u_x", u_x_fwd.round(decimals=4).tolist(), torch.allclose(u_x_fwd, g[:, 0]))

# forward-over-reverse: directional derivative of the gradient
with fwAD.dual_level():
    zd = fwAD.make_dual(z.clone().requires_grad_(), ex)
    ud = net(zd)
    gd = torch.autograd.grad(ud.sum(), zd, create_graph=True)[0]
    hess_col = fwAD.unpack_dual(gd).tangent
u_xx = torch.autograd.grad(g[:, 0].sum(), zr, retain_graph=True)[0]
print("H e_x", hess_col.round(decimals=4).tolist(), torch.allclose(hess_col, u_xx))

# whole Jacobian of the per-point gradient with is_grads_batched
eye = torch.eye(2, dtype=torch.float64).unsqueeze(1).expand(2, 3, 2)
H_rows = torch.autograd.grad(g, zr, grad_outputs=eye, is_grads_batched=True, retain_graph=True)[0]
print("batched", tuple(H_rows.shape), "laplacian", (H_rows[0, :, 0] + H_rows[1, :, 1]).round(decimals=4).tolist())
Jout = torch.autograd.grad(u, zr, grad_outputs=torch.eye(3, dtype=torch.float64).unsqueeze(-1), is_grads_batched=True,
                           retain_graph=True)[0]
print("per-point jac", tuple(Jout.shape), torch.allclose(Jout.sum(0), g))

# a hand-written jvp for a custom function
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_forward(x)
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, go):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * go

    @staticmethod
    def jvp(ctx, tx):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * tx


x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
with fwAD.dual_level():
    y = Cube.apply(fwAD.make_dual(x, torch.ones(3, dtype=torch.float64)))
    print("custom jvp", fwAD.unpack_dual(y).tangent.tolist())
print("jacfwd custom", torch.func.jacfwd(Cube.apply)(x).diagonal().tolist())

for label, fn in [
    ("outside level", lambda: fwAD.make_dual(x, x)),
    ("tangent shape", lambda: (fwAD.dual_level().__enter__(), fwAD.make_dual(x, torch.ones(2, dtype=torch.float64)))),
    ("tangent dtype", lambda: fwAD.make_dual(x, torch.ones(3))),
    ("batched shape", lambda: torch.autograd.grad(u, zr, grad_outputs=torch.ones(3, 1, dtype=torch.float64),
                                                  is_grads_batched=True, retain_graph=True)),
]:
    try:
        r = fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0])
fwAD.exit_dual_level()
