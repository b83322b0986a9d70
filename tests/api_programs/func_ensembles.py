"""torch.func and torch.autograd.functional in research code: model ensembles with stack_module_state + vmap over
functional_call, Jacobians and Hessians of small networks (jacrev, jacfwd, hessian, with argnums and has_aux),
per-sample gradients and their norms (DP-SGD style clipping), jvp/vjp/hvp/vhp, and gradient penalties with
torch.autograd.grad(create_graph=True)."""

import copy
import numpy as np
import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap, grad, jacrev, jacfwd, hessian, jvp, vjp
import torch.autograd.functional as AF

rng = np.random.default_rng(13)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


class MLP(nn.Module):
    def __init__(self, d_in=3, hidden=5, d_out=2):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


# an ensemble of 4 models evaluated in one vmap
models = [det(MLP()) for _ in range(4)]
params, buffers = stack_module_state(models)
print("stacked", {k: tuple(v.shape) for k, v in params.items()}, params["fc1.weight"].requires_grad, buffers)
base = copy.deepcopy(models[0]).to("meta")
print("meta_base", base.fc1.weight.device, base.fc1.weight.shape)


def fmodel(p, b, x):
    return functional_call(base, (p, b), (x,))


x = T(6, 3)
same_x = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
loop = torch.stack([m(x) for m in models])
print("ensemble", same_x.shape, torch.allclose(same_x, loop, atol=1e-6), r(same_x[2, 1]))
xs = T(4, 6, 3)
diff_x = vmap(fmodel)(params, buffers, xs)
try:
    functional_call(models[0], (dict(models[0].named_parameters()), dict(models[1].named_parameters())), (x,))
except ValueError as e:
    print("dup_keys", str(e))
print("ensemble_own_x", diff_x.shape, torch.allclose(diff_x[3], models[3](xs[3]), atol=1e-6))
# the stacked parameters train like any leaf
y = T(6, 2)
opt = torch.optim.SGD(params.values(), lr=0.1)
for _ in range(3):
    loss = ((vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x) - y) ** 2).mean(dim=(1, 2))
    opt.zero_grad()
    loss.sum().backward()
    opt.step()
print("ensemble_train", r(loss, 4), r(params["fc2.bias"].grad, 4))

# Jacobians and Hessians of a network w.r.t. its input
net = det(MLP())
x0 = T(3)
J_rev = jacrev(net)(x0)
J_fwd = jacfwd(net)(x0)
J_af = AF.jacobian(net, x0)
print("jac", J_rev.shape, torch.allclose(J_rev, J_fwd, atol=1e-6), torch.allclose(J_rev, J_af, atol=1e-6), r(J_rev))
Jb = vmap(jacrev(net))(T(4, 3))
print("jac_batched", Jb.shape, r(Jb[1]))
scalar = lambda v: net(v).pow(2).sum()
H = hessian(scalar)(x0)
H_af = AF.hessian(scalar, x0)
print("hess", H.shape, torch.allclose(H, H.T, atol=1e-5), torch.allclose(H, H_af, atol=1e-5), r(H))
print("hess_fwdrev", torch.allclose(jacfwd(jacrev(scalar))(x0), H, atol=1e-5))


# w.r.t. parameters, with argnums and has_aux
def loss_fn(p, xb, yb):
    out = functional_call(net, p, (xb,))
    loss = nn.functional.mse_loss(out, yb)
    return loss, out.detach()


p0 = {k: v.detach() for k, v in net.named_parameters()}
xb, yb = T(8, 3), T(8, 2)
g, out = grad(loss_fn, has_aux=True)(p0, xb, yb)
print("grad_params", sorted(g), r(g["fc1.weight"], 4), out.shape)
jp = jacrev(lambda p: functional_call(net, p, (xb[:2],)))(p0)
print("jac_params", {k: tuple(v.shape) for k, v in jp.items()})
ja = jacrev(lambda a, b: (a * b.sin()).sum(0), argnums=(0, 1))(T(2, 3), T(2, 3))
print("argnums", [tuple(t.shape) for t in ja], r(ja[1][0, 0], 4))

# per-sample gradients, clipped per sample and averaged (DP-SGD)
ps = vmap(grad(lambda p, a, b: loss_fn(p, a[None], b[None])[0]), in_dims=(None, 0, 0))(p0, xb, yb)
norms = torch.sqrt(sum(v.flatten(1).pow(2).sum(1) for v in ps.values()))
print("per_sample", {k: tuple(v.shape) for k, v in ps.items()}, r(norms, 8))
clip = (1.0 / (norms + 1e-6)).clamp(max=1.0)
clipped = {k: (v * clip.view(-1, *[1] * (v.dim() - 1))).mean(0) for k, v in ps.items()}
print("dp_clipped", r(clipped["fc2.weight"], 4))
mean_grad = {k: v.mean(0) for k, v in ps.items()}
full = grad(lambda p: loss_fn(p, xb, yb)[0])(p0)
print("mean_matches_full", all(torch.allclose(mean_grad[k], full[k], atol=1e-6) for k in full))

# jvp / vjp / hvp / vhp
f = lambda v: torch.stack([v[0] * v[1], v[1].exp(), v.sum() ** 2])
v0 = torch.tensor([0.5, -1.0, 2.0])
t0 = torch.tensor([1.0, 0.0, -1.0])
out_f, tangent = jvp(f, (v0,), (t0,))
print("jvp_func", r(out_f), r(tangent))
out_af, tangent_af = AF.jvp(f, v0, t0)
print("jvp_af", r(tangent_af), torch.allclose(tangent, tangent_af))
_, pull = vjp(f, v0)
print("vjp_func", r(pull(torch.tensor([1.0, 2.0, 3.0]))[0]))
print("vjp_af", r(AF.vjp(f, v0, torch.tensor([1.0, 2.0, 3.0]))[1]))
g2 = lambda v: (v**3).sum() + v[0] * v[2]
print("hvp", r(AF.hvp(g2, v0, t0)[1]), r(AF.vhp(g2, v0, t0)[1]))
print("hvp_func", r(jvp(grad(g2), (v0,), (t0,))[1]))
print("jac_tuple", [tuple(t.shape) for t in AF.jacobian(lambda a, b: a * b, (v0, t0))])
print("jac_vectorized", r(AF.jacobian(f, v0, vectorize=True)), r(AF.jacobian(f, v0, strategy="forward-mode",
                                                                               vectorize=True)))

# WGAN-GP style gradient penalty: grad of the critic at interpolates, kept in the graph
critic = det(nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)))
real, fake = T(5, 3), T(5, 3)
alpha = torch.linspace(0, 1, 5).view(5, 1)
inter = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
score = critic(inter)
(gi,) = torch.autograd.grad(score.sum(), inter, create_graph=True)
gp = ((gi.norm(2, dim=1) - 1) ** 2).mean()
print("gp", round(gp.item(), 4), gi.requires_grad, gi.grad_fn is not None, r(gi.norm(dim=1)))
loss = critic(fake).mean() - critic(real).mean() + 10 * gp
loss.backward()
print("gp_backward", round(loss.item(), 4), r(critic[0].weight.grad, 4))
# R1 on real data and the grad of a grad norm with respect to the input
xr = real.clone().requires_grad_(True)
(gr,) = torch.autograd.grad(critic(xr).sum(), xr, create_graph=True)
r1 = gr.pow(2).sum(1).mean()
(gx,) = torch.autograd.grad(r1, xr)
print("r1", round(r1.item(), 4), r(gx, 4))
try:
    torch.autograd.grad(critic(xr).sum(), [xr, fake])
except RuntimeError as e:
    print("grad_err", str(e))
print("allow_unused", torch.autograd.grad(critic(xr).sum(), [xr, fake.requires_grad_()], allow_unused=True)[1])
print("materialize", r(torch.autograd.grad(critic(xr).sum(), [xr, fake], allow_unused=True,
                                            materialize_grads=True)[1], 3))
print("OK")
