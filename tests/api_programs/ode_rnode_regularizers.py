"""Regularised neural ODE flows (RNODE, Finlay et al.; STEER): kinetic-energy and Jacobian-Frobenius penalties
estimated with Hutchinson probes drawn inside vmap(randomness='different'/'same'), vector-Jacobian products from
torch.func.vjp reused across probes, jvp-based Frobenius estimates compared with the exact norm from jacrev,
a randomly sampled end time (STEER) from torch.distributions.Uniform, and the transforms' randomness errors."""

import torch
from torch.func import jacrev, jvp, vjp, vmap

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

field = nn.Sequential(nn.Linear(3, 24), nn.Softplus(), nn.Linear(24, 3))
z = torch.randn(8, 3)

f_out, vjp_fn = vjp(field, z)
J = vmap(jacrev(field))(z)
exact_fro = J.pow(2).sum(dim=(1, 2))
exact_tr = torch.diagonal(J, dim1=1, dim2=2).sum(-1)
print("exact", exact_fro[:3].round(decimals=4).tolist(), exact_tr[:3].round(decimals=4).tolist())

torch.manual_seed(1)
rademacher = vmap(lambda _: torch.randint(0, 2, (8, 3)).float() * 2 - 1, randomness="different")(torch.arange(400))
print("rademacher", tuple(rademacher.shape), rademacher.sum().item(), rademacher[:2, 0].tolist())
probes = vmap(lambda _: torch.randn(8, 3), randomness="different")(torch.arange(400))
print(
    "probes",
    tuple(probes.shape),
    round(probes.mean().item(), 2),
    round(probes.var().item(), 3),
    probes[5, 1].round(decimals=4).tolist(),
)
tr_rad = vmap(lambda e: (vjp_fn(e)[0] * e).sum(-1))(rademacher).mean(0)
print("rademacher trace close", (tr_rad - exact_tr).abs().max().item() < 0.1)
vJ = vmap(lambda e: vjp_fn(e)[0])(probes)
fro_est = vJ.pow(2).sum(-1).mean(0)
tr_est = (vJ * probes).sum(-1).mean(0)
print(
    "frobenius est close",
    torch.allclose(fro_est, exact_fro, rtol=0.25),
    "trace est close",
    (tr_est - exact_tr).abs().max().item() < 0.15,
)
Jv = vmap(lambda e: jvp(field, (z,), (e,))[1])(probes[:50])
print("jvp frobenius", tuple(Jv.shape), torch.allclose(Jv.pow(2).sum(-1).mean(0), exact_fro, rtol=0.5))

torch.manual_seed(2)
same = vmap(lambda _: torch.randn(3), randomness="same")(torch.arange(4))
print("same draws", torch.equal(same[0], same[3]), tuple(same.shape))


def rnode_loss(field, x, steps=6, t_end=1.0, lam_k=0.1, lam_j=0.1):
    h = t_end / steps
    z, logdet, kin, jac = x, torch.zeros(x.shape[0]), torch.zeros(x.shape[0]), torch.zeros(x.shape[0])
    for _ in range(steps):
        e = torch.randn_like(z)
        zz = z.detach().requires_grad_(True) if not z.requires_grad else z
        f = field(zz)
        (eJ,) = torch.autograd.grad(f, zz, e, create_graph=True)
        logdet = logdet - h * (eJ * e).sum(-1)
        kin = kin + h * f.pow(2).sum(-1)
        jac = jac + h * eJ.pow(2).sum(-1)
        z = zz + h * f
    nll = 0.5 * z.pow(2).sum(-1) + logdet
    return nll.mean() + lam_k * kin.mean() + lam_j * jac.mean(), kin.mean(), jac.mean()


data = torch.randn(64, 3) * torch.tensor([2.0, 0.5, 1.0]) + torch.tensor([1.0, 0.0, -1.0])
opt = torch.optim.Adam(field.parameters(), lr=5e-3)
steer = torch.distributions.Uniform(0.8, 1.2)
torch.manual_seed(3)
for step in range(12):
    opt.zero_grad()
    t_end = steer.sample().item()
    loss, kin, jac = rnode_loss(field, data.clone().requires_grad_(True), t_end=t_end)
    loss.backward()
    nn.utils.clip_grad_value_(field.parameters(), 1.0)
    opt.step()
    if step % 4 == 3:
        print(
            "step",
            step,
            round(loss.item(), 4),
            "kinetic",
            round(kin.item(), 4),
            "jac",
            round(jac.item(), 4),
            "T",
            round(t_end, 3),
        )
print("uniform", steer, steer.support, round(steer.entropy().item(), 4))
for call in (
    lambda: vmap(lambda _: torch.randn(3))(torch.arange(2)),
    lambda: vmap(lambda _: torch.randn(3), randomness="sometimes")(torch.arange(2)),
    lambda: vmap(lambda e: torch.bernoulli(e), randomness="same")(torch.rand(2, 3)),
    lambda: vjp_fn(torch.ones(3)),
    lambda: steer.log_prob(torch.tensor(1.5)),
):
    try:
        r = call()
        print("ok", tuple(r.shape))
    except Exception as e:
        print(type(e).__name__, e)
