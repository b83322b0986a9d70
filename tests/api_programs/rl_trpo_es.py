"""Second-order and black-box policy search: TRPO (Fisher-vector products by double backward through a KL,
conjugate gradient, a backtracking line search over parameters_to_vector/vector_to_parameters) and OpenAI-style
evolution strategies (antithetic noise drawn with numpy, centered ranks by argsort of argsort, flat parameter
vectors written back into a policy), with the natural-gradient step checked against an explicit Fisher matrix."""

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical, kl_divergence
from torch.nn.utils import parameters_to_vector, vector_to_parameters

rng = np.random.default_rng(17)
torch.set_default_dtype(torch.float64)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


policy = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 3))
with torch.no_grad():
    for p in policy.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)) * 0.5))
print("dtype", next(policy.parameters()).dtype, torch.get_default_dtype())
obs = torch.from_numpy(rng.standard_normal((16, 3)))
acts = torch.from_numpy(rng.integers(0, 3, 16))
adv = torch.from_numpy(rng.standard_normal(16))
adv = (adv - adv.mean()) / adv.std()
with torch.no_grad():
    old_dist = Categorical(logits=policy(obs))
old_logp = old_dist.log_prob(acts)


def surrogate():
    d = Categorical(logits=policy(obs))
    return (torch.exp(d.log_prob(acts) - old_logp) * adv).mean()


def mean_kl():
    return kl_divergence(old_dist, Categorical(logits=policy(obs))).mean()


params = list(policy.parameters())
n_params = sum(p.numel() for p in params)
loss = surrogate()
g = parameters_to_vector(torch.autograd.grad(loss, params))
print("surrogate", round(loss.item(), 4) + 0.0, "n_params", n_params, "|g|", round(g.norm().item(), 4))


def fvp(v, damping=0.1):
    kl = mean_kl()
    grads = torch.autograd.grad(kl, params, create_graph=True)
    flat = torch.cat([gr.view(-1) for gr in grads])
    kl_v = (flat * v).sum()
    hv = torch.autograd.grad(kl_v, params)
    return torch.cat([h.contiguous().view(-1) for h in hv]) + damping * v


def conjugate_gradient(Avp, b, nsteps=10, residual_tol=1e-10):
    x = torch.zeros_like(b)
    r_, p = b.clone(), b.clone()
    rdotr = torch.dot(r_, r_)
    for i in range(nsteps):
        Ap = Avp(p)
        alpha = rdotr / torch.dot(p, Ap)
        x += alpha * p
        r_ -= alpha * Ap
        new_rdotr = torch.dot(r_, r_)
        if new_rdotr < residual_tol:
            return x, i + 1
        p = r_ + (new_rdotr / rdotr) * p
        rdotr = new_rdotr
    return x, nsteps


step_dir, iters = conjugate_gradient(fvp, g, nsteps=60)
F = torch.stack([fvp(e) for e in torch.eye(n_params)], 1)
print("fisher", F.shape, "symmetric", torch.allclose(F, F.T, atol=1e-8), "cg iters", iters)
print("cg vs solve", torch.allclose(step_dir, torch.linalg.solve(F, g), atol=1e-5), r(step_dir))
evals = torch.linalg.eigvalsh(F)
cond = (evals.max() / evals.min()).item()
print("eig min/max", round(evals.min().item(), 4), round(evals.max().item(), 4), "cond", round(cond, 2))
max_kl = 0.01
shs = 0.5 * torch.dot(step_dir, fvp(step_dir))
full_step = step_dir * torch.sqrt(2 * max_kl / shs)
expected_improve = torch.dot(g, full_step)
print("shs", round(shs.item(), 4), "step norm", round(full_step.norm().item(), 4),
      "expected", round(expected_improve.item(), 4))
old_params = parameters_to_vector(policy.parameters()).detach().clone()
with torch.no_grad():
    for k, frac in enumerate(0.5 ** np.arange(10)):
        vector_to_parameters(old_params + frac * full_step, policy.parameters())
        new_loss, kl = surrogate(), mean_kl()
        improve = new_loss - loss
        print(f"  backtrack {k} frac {frac:.4f} improve {improve.item():.5f} kl {kl.item():.5f}")
        if kl <= max_kl and improve > 0:
            break
    else:
        vector_to_parameters(old_params, policy.parameters())
moved = (parameters_to_vector(policy.parameters()) - old_params).norm()
print("moved", round(moved.item(), 4), policy[0].weight.is_leaf)

# evolution strategies on the same policy: maximise the mean advantage-weighted log-prob of the actions
theta = parameters_to_vector(policy.parameters()).detach()


def fitness(vec):
    vector_to_parameters(vec, policy.parameters())
    with torch.no_grad():
        return (Categorical(logits=policy(obs)).log_prob(acts) * adv).mean().item()


def centered_ranks(x):
    ranks = x.argsort().argsort().to(torch.float64)
    return ranks / (x.numel() - 1) - 0.5


sigma, lr, pop = 0.05, 0.1, 8
for gen in range(3):
    eps = torch.from_numpy(rng.standard_normal((pop // 2, n_params)))
    eps = torch.cat([eps, -eps])
    f = torch.tensor([fitness(theta + sigma * e) for e in eps])
    w = centered_ranks(f)
    grad_est = (w.unsqueeze(1) * eps).sum(0) / (pop * sigma)
    theta = theta + lr * grad_est
    print(f"gen {gen} best {f.max().item():.4f} mean {f.mean().item():.4f} ranks {w.tolist()}")
print("es final", round(fitness(theta), 4), theta.dtype, theta.shape)
print("ranks ties", centered_ranks(torch.tensor([3.0, 1.0, 3.0, 2.0])).tolist())
try:
    vector_to_parameters(theta[:-1], policy.parameters())
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.dot(theta, theta.float())
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.autograd.grad(mean_kl(), params)[0].backward()
except RuntimeError as e:
    print("RuntimeError", e)
torch.set_default_dtype(torch.float32)
print("default back", torch.tensor([1.0]).dtype, policy[0].weight.dtype)
