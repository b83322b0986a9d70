"""torch.autograd.functional as scientific code uses it on small physical models: the Jacobian of a reaction
system, hessian of a potential energy, hvp/vhp for Newton-CG on a spring network, vjp/jvp with create_graph, the
vectorize and strategy switches, and the error messages for misuse."""

import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

torch.set_default_dtype(torch.float64)


def robertson(y, k=(0.04, 3e7, 1e4)):
    """The stiff Robertson chemistry: dy/dt for three species."""
    a, b, c = y[0], y[1], y[2]
    return torch.stack([-k[0] * a + k[2] * b * c, k[0] * a - k[2] * b * c - k[1] * b ** 2, k[1] * b ** 2])


y0 = torch.tensor([1.0, 2e-5, 0.01])
J = jacobian(robertson, y0)
print("J", tuple(J.shape), [[round(v, 2) for v in row] for row in J.tolist()])
print("row sums", J.sum(0).abs().max().item() < 1e-8)
Jv = jacobian(robertson, y0, vectorize=True)
Jf = jacobian(robertson, y0, vectorize=True, strategy="forward-mode")
print("vectorize", torch.allclose(J, Jv), "forward", torch.allclose(J, Jf))


def lj_energy(pos):
    """Lennard-Jones energy of a small cluster, pos (n, 3) flattened."""
    p = pos.view(-1, 3)
    iu = torch.triu_indices(p.shape[0], p.shape[0], offset=1)
    r = torch.linalg.vector_norm(p[iu[0]] - p[iu[1]], dim=-1)
    return (4 * (r ** -12 - r ** -6)).sum()


pos = torch.tensor([[0.0, 0.0, 0.0], [1.12, 0.0, 0.0], [0.56, 0.97, 0.0], [0.56, 0.32, 0.91]]).reshape(-1)
E = lj_energy(pos)
H = hessian(lj_energy, pos)
print("E", round(E.item(), 4), "H", tuple(H.shape), "sym", torch.allclose(H, H.T))
ev = torch.linalg.eigvalsh(H)
print("zero modes", int((ev.abs() < 1e-2).sum()), "min/max", round(ev[6].item(), 3), round(ev[-1].item(), 3))


def chain_energy(pos):
    p = pos.view(-1, 3)
    return ((torch.linalg.vector_norm(p[1:] - p[:-1], dim=-1) - 1.0) ** 2).sum()


Hc = hessian(chain_energy, pos)
Hf = hessian(chain_energy, pos, vectorize=True, outer_jacobian_strategy="forward-mode")
print("H fwd-over-rev", torch.allclose(Hc, Hf), round(Hc.trace().item(), 4))

v = torch.linspace(-1, 1, 12)
e1, hv = hvp(lj_energy, pos, v)
e2, vh = vhp(lj_energy, pos, v)
print("hvp", torch.allclose(hv, H @ v), "vhp", torch.allclose(vh, v @ H), round(e1.item(), 4) == round(e2.item(), 4))

# Newton-CG step using hvp only
g = jacobian(lj_energy, pos)
x = torch.zeros_like(g)
r = -g - hvp(lj_energy, pos, x)[1]
p = r.clone()
for _ in range(6):
    Ap = hvp(lj_energy, pos, p)[1]
    alpha = (r @ r) / (p @ Ap)
    x = x + alpha * p
    r_new = r - alpha * Ap
    p = r_new + (r_new @ r_new) / (r @ r) * p
    r = r_new
print("cg residual", round(torch.linalg.norm(H @ x + g).item(), 4))

out, vjp_val = vjp(robertson, y0, torch.tensor([1.0, 0.0, -1.0]))
print("vjp", out.round(decimals=4).tolist(), [round(t, 2) for t in vjp_val.tolist()])
out, jvp_val = jvp(robertson, y0, torch.tensor([0.0, 1.0, 0.0]))
print("jvp", [round(t, 2) for t in jvp_val.tolist()], torch.allclose(jvp_val, J[:, 1]))

k = torch.tensor(0.5, requires_grad=True)
_, hv = hvp(lambda z: (k * z ** 4).sum(), torch.tensor([1.0, 2.0]), torch.ones(2), create_graph=True)
hv.sum().backward()
print("d/dk hvp", hv.tolist(), k.grad.item())

J2 = jacobian(lambda a, b: (a * b, a.sum() + b), (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
print("tuple jac", [[tuple(t.shape) for t in row] for row in J2])

for label, fn in [
    ("strict", lambda: jacobian(lambda z: torch.ones(2), torch.ones(2), strict=True)),
    ("strict+vec", lambda: jacobian(robertson, y0, strict=True, vectorize=True)),
    ("fwd no vec", lambda: jacobian(robertson, y0, strategy="forward-mode")),
    ("bad strategy", lambda: jacobian(robertson, y0, strategy="sideways")),
    ("hvp shape", lambda: hvp(lj_energy, pos, torch.ones(3))),
    ("hessian non-scalar", lambda: hessian(robertson, y0)),
    ("vjp missing v", lambda: vjp(robertson, y0)),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0])
