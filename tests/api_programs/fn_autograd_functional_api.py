"""torch.autograd.functional: jacobian (vectorize, strategy), hessian, vjp/jvp/hvp/vhp, create_graph, strict, errors."""

import torch
import torch.autograd.functional as AF

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).replace("\n", " / "))


def rosen(x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def field(x, y):
    return torch.stack([x[0] * y, x[1] ** 2 + y.sin()]), x.exp() * y


x = torch.tensor([0.5, -0.3, 1.2])
print("rosen", round(rosen(x).item(), 4))
J = AF.jacobian(rosen, x)
print("grad via jacobian", J)
Jv = AF.jacobian(rosen, x, vectorize=True)
print("vectorize same", torch.allclose(J, Jv))
Jf = AF.jacobian(rosen, x, vectorize=True, strategy="forward-mode")
print("forward-mode same", torch.allclose(J, Jf, atol=1e-5))
show("forward-mode needs vectorize", lambda: AF.jacobian(rosen, x, strategy="forward-mode"))
show("bad strategy", lambda: AF.jacobian(rosen, x, strategy="sideways"))

# several inputs and outputs: nested tuples of Jacobians
a = torch.tensor([1.0, 2.0])
y = torch.tensor(0.7)
jac = AF.jacobian(field, (a, y))
print("nested", len(jac), len(jac[0]), [tuple(t.shape) for row in jac for t in row])
print("d out0 / d a", jac[0][0])
print("d out1 / d y", jac[1][1])

# hessian, its vectorized form and its outer-product structure
H = AF.hessian(rosen, x)
print("hessian", H)
print("hessian vectorized", torch.allclose(H, AF.hessian(rosen, x, vectorize=True)))
Hf = AF.hessian(rosen, x, vectorize=True, outer_jacobian_strategy="forward-mode")
print("hessian fwd-over-rev", torch.allclose(H, Hf, atol=1e-4))
Hs = AF.hessian(lambda p, q: (p * q.sum()).pow(2).sum(), (a, a + 1))
print("hessian two inputs", [[tuple(t.shape) for t in row] for row in Hs], Hs[0][1])

# vjp / jvp / hvp / vhp
v = torch.tensor([1.0, 0.0, -1.0])
out, vj = AF.vjp(lambda t: t.sin() * t, x, v)
print("vjp", out, vj)
out, jv = AF.jvp(lambda t: t.sin() * t, x, v)
print("jvp", jv)
val, hv = AF.hvp(rosen, x, v)
print("hvp", round(val.item(), 4), hv, torch.allclose(hv, H @ v, atol=1e-4))
val, vh = AF.vhp(rosen, x, v)
print("vhp == hvp (symmetric)", torch.allclose(vh, hv, atol=1e-4))
show("vjp needs v", lambda: AF.vjp(lambda t: t * 2, x))
show("vjp scalar ok", lambda: AF.vjp(rosen, x)[1])
show("jvp needs v", lambda: AF.jvp(lambda t: t * 2, x))
show("v shape", lambda: AF.vjp(lambda t: t * 2, x, torch.ones(2)))

# create_graph: differentiate through the Jacobian (a Jacobian penalty)
w = torch.tensor([0.3, -0.2, 0.5], requires_grad=True)


def layer(inp):
    return torch.tanh(w * inp)


Jl = AF.jacobian(layer, x, create_graph=True)
penalty = Jl.pow(2).sum()
penalty.backward()
print("penalty", round(penalty.item(), 4), "w.grad", w.grad)
J_ng = AF.jacobian(layer, x)
print("without create_graph requires_grad", J_ng.requires_grad, "with", Jl.requires_grad)

# strict: outputs independent of the inputs
show("strict", lambda: AF.jacobian(lambda t: torch.ones(2), x, strict=True))
print("non-strict zeros", AF.jacobian(lambda t: torch.ones(2), x))
show("strict+vectorize", lambda: AF.jacobian(rosen, x, strict=True, vectorize=True))
show("hvp non-scalar", lambda: AF.hvp(lambda t: t * 2, x, v))
show("non-tensor output", lambda: AF.jacobian(lambda t: 1.0, x))
show("int input", lambda: AF.jacobian(lambda t: t * 2, torch.arange(3)))

# a Newton step on the Rosenbrock function, as optimisation code does
z = torch.tensor([-1.2, 1.0], dtype=torch.float64)
for it in range(6):
    g = AF.jacobian(rosen, z)
    Hz = AF.hessian(rosen, z)
    z = z - torch.linalg.solve(Hz, g)
    print("newton", it, [round(t, 4) for t in z.tolist()], round(rosen(z).item(), 6))
