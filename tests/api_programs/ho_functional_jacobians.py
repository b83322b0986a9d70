"""torch.autograd.functional as scientific and robotics code uses it: Jacobians of tuple-in/tuple-out functions
with vectorize and strategy (reverse and forward mode), hessian's outer_jacobian_strategy, jvp/vjp with
create_graph so the result trains, and the strict-mode and argument errors in PyTorch's words."""

import torch
from torch.autograd.functional import hessian, jacobian, jvp, vjp

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(label, fn):
    try:
        r = fn()
        print(label, "->", r)
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def fk(q, lengths):
    """Planar 3-link arm: joint angles -> end-effector (x, y) and orientation."""
    ang = torch.cumsum(q, dim=0)
    x = (lengths * torch.cos(ang)).sum()
    y = (lengths * torch.sin(ang)).sum()
    return torch.stack([x, y]), ang[-1]


q = torch.tensor([0.3, -0.5, 0.8], dtype=torch.float64)
L = torch.tensor([1.0, 0.7, 0.4], dtype=torch.float64)
J = jacobian(fk, (q, L))
print("nested structure:", type(J).__name__, len(J), [type(r).__name__ for r in J], [len(r) for r in J])
print("dpos/dq:\n", J[0][0])
print("dpos/dL:\n", J[0][1])
print("dtheta/dq:", J[1][0], "dtheta/dL:", J[1][1])
for vec in [False, True]:
    Jv = jacobian(fk, (q, L), vectorize=vec)
    print(f"vectorize={vec} same:", all(torch.allclose(a, b) for ra, rb in zip(J, Jv) for a, b in zip(ra, rb)))
Jf = jacobian(fk, (q, L), vectorize=True, strategy="forward-mode")
print("forward-mode same:", all(torch.allclose(a, b) for ra, rb in zip(J, Jf) for a, b in zip(ra, rb)))

# single tensor in, single tensor out: the Jacobian's shape is out.shape + in.shape
f = lambda x: torch.tanh(x @ x.T)  # noqa: E731
x = torch.randn(2, 3, dtype=torch.float64)
Jx = jacobian(f, x)
print("jac shape:", tuple(Jx.shape), "sum:", round(Jx.sum().item(), 4))
print("jac[0, 1]:\n", Jx[0, 1])

# damped least squares IK using the Jacobian
target = torch.tensor([1.2, 0.9], dtype=torch.float64)
qk = q.clone()
for it in range(6):
    pos, _ = fk(qk, L)
    Jq = jacobian(lambda a: fk(a, L)[0], qk)
    err = target - pos
    dq = Jq.T @ torch.linalg.solve(Jq @ Jq.T + 1e-3 * torch.eye(2, dtype=torch.float64), err)
    qk = qk + dq
    print(f"ik {it}: |err| {err.norm().item():.6f}")
print("ik angles:", qk)

# hessian with both outer strategies, and of a two-input function
g = lambda a, b: (a.sin() * b.exp()).sum() + (a * b).pow(2).sum()  # noqa: E731
a = torch.tensor([0.1, 0.2], dtype=torch.float64)
b = torch.tensor([-0.3, 0.4], dtype=torch.float64)
H = hessian(g, (a, b))
print("hessian blocks:", [[tuple(h.shape) for h in row] for row in H])
print("H_ab:\n", H[0][1])
Hf = hessian(g, (a, b), vectorize=True, outer_jacobian_strategy="forward-mode")
print("forward-over-reverse same:", all(torch.allclose(x1, x2) for r1, r2 in zip(H, Hf) for x1, x2 in zip(r1, r2)))

# jvp / vjp: directional derivatives, and create_graph so the result can be trained
v = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)
out, tangent = jvp(lambda a: fk(a, L)[0], q, v)
print("jvp out:", out, "tangent:", tangent, "== J[:,0]:", torch.allclose(tangent, J[0][0][:, 0]))
out, cot = vjp(lambda a: fk(a, L)[0], q, torch.tensor([0.0, 1.0], dtype=torch.float64))
print("vjp:", cot, "== J[1,:]:", torch.allclose(cot, J[0][0][1]))
Lp = L.clone().requires_grad_()
_, jt = jvp(lambda a: fk(a, Lp)[0], q, v, create_graph=True)
jt.pow(2).sum().backward()
print("create_graph jvp -> d|Jv|^2/dL:", Lp.grad)
Lp.grad = None
_, ct = vjp(lambda a: fk(a, Lp)[0], q, torch.ones(2, dtype=torch.float64), create_graph=True)
ct.sum().backward()
print("create_graph vjp -> dL:", Lp.grad)
Jc = jacobian(lambda a: fk(a, Lp)[0], q, create_graph=True)
manip = torch.sqrt(torch.det(Jc @ Jc.T))
manip.backward()
print("manipulability:", round(manip.item(), 6), "grad L:", Lp.grad)

# strict mode: outputs independent of inputs
show("strict independent", lambda: jacobian(lambda t: torch.ones(2, dtype=torch.float64), q, strict=True))
show("non-strict independent", lambda: jacobian(lambda t: torch.ones(2, dtype=torch.float64), q))
show("strict detached", lambda: jacobian(lambda t: t.detach() * 2, q, strict=True))
show("strict vectorize", lambda: jacobian(lambda t: t * 2, q, strict=True, vectorize=True))
show("forward-mode needs vectorize", lambda: jacobian(lambda t: t * 2, q, strategy="forward-mode"))
show("bad strategy", lambda: jacobian(lambda t: t * 2, q, strategy="sideways"))
show("non-tensor output", lambda: jacobian(lambda t: [t.sum().item()], q))
show("vjp needs v", lambda: vjp(lambda t: t * 2, q))
show("vjp wrong v shape", lambda: vjp(lambda t: t * 2, q, torch.ones(2, dtype=torch.float64)))
show("jvp scalar input no v", lambda: jvp(lambda t: t * 2, torch.tensor(1.5)))
show("hessian non-scalar", lambda: hessian(lambda t: t * 2, q))
show("hessian strict linear", lambda: hessian(lambda t: (t * 2).sum(), q, strict=True))
show("hessian linear non-strict", lambda: hessian(lambda t: (t * 2).sum(), q))
