"""Task batching with torch.func as meta-learning libraries do it: stack_module_state over per-task learners,
functional_call under vmap with dict in_dims, a vmapped MAML inner loop built from grad (with has_aux), chunked
vmap, dropout under vmap's randomness modes, jacrev/jacfwd of the adapted model's outputs, and vmap's errors."""

import copy

import torch
from torch.func import functional_call, grad, jacfwd, jacrev, stack_module_state, vmap

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Learner(nn.Module):
    def __init__(self, p_drop=0.0):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.drop = nn.Dropout(p_drop)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(self.drop(F.softplus(self.fc1(x))))


T, N = 4, 10
xs, ys = torch.randn(T, N, 3), torch.randint(0, 2, (T, N))
xq, yq = torch.randn(T, N, 3), torch.randint(0, 2, (T, N))

base = Learner()
learners = [copy.deepcopy(base) for _ in range(T)]
for i, m in enumerate(learners):
    with torch.no_grad():
        m.fc2.bias.fill_(0.1 * i)
params, buffers = stack_module_state(learners)
print("stacked", {k: tuple(v.shape) for k, v in params.items()}, "buffers", buffers)
print("stacked leaf", params["fc1.weight"].is_leaf, params["fc1.weight"].requires_grad)

stateless = copy.deepcopy(base).to("meta")


def fmodel(p, x):
    return functional_call(stateless, p, (x,))


out = vmap(fmodel)(params, xs)
print("per-task logits", tuple(out.shape), out.mean((1, 2)).round(decimals=4).tolist())

# shared parameters, per-task data: in_dims None for the params
shared = {k: v.detach() for k, v in base.named_parameters()}
out_shared = vmap(fmodel, in_dims=(None, 0))(shared, xs)
print("shared params", tuple(out_shared.shape), torch.allclose(out_shared[0], base(xs[0]), atol=1e-6))

# a dict in_dims: only fc2.bias is per-task
mixed = dict(shared, **{"fc2.bias": params["fc2.bias"].detach()})
dims = {k: (0 if k == "fc2.bias" else None) for k in mixed}
out_mixed = vmap(fmodel, in_dims=(dims, 0))(mixed, xs)
print("per-task bias only", torch.allclose(out_mixed, out.detach(), atol=1e-6))


def inner_loss(p, x, y):
    logits = fmodel(p, x)
    return F.cross_entropy(logits, y), (logits.argmax(-1) == y).float().mean()


def adapt_and_eval(p, x_s, y_s, x_q, y_q, lr=0.5, steps=2):
    for _ in range(steps):
        g, acc = grad(inner_loss, has_aux=True)(p, x_s, y_s)
        p = {k: p[k] - lr * g[k] for k in p}
    q_loss, q_acc = inner_loss(p, x_q, y_q)
    return q_loss, q_acc, p


q_loss, q_acc, adapted = vmap(adapt_and_eval, in_dims=(None, 0, 0, 0, 0))(shared, xs, ys, xq, yq)
print("query loss", q_loss.round(decimals=4).tolist(), "acc", q_acc.tolist())
print("adapted per task", tuple(adapted["fc1.weight"].shape))
chunked = vmap(adapt_and_eval, in_dims=(None, 0, 0, 0, 0), chunk_size=3)(shared, xs, ys, xq, yq)[0]
print("chunk_size=3 same", torch.allclose(chunked, q_loss, atol=1e-6))

# meta-gradient of the mean query loss through the vmapped inner loop
meta_g = grad(lambda p: vmap(adapt_and_eval, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq)[0].mean())(shared)
print("meta-grad norms", {k: round(v.norm().item(), 4) for k, v in meta_g.items()})

# Jacobians of one adapted model's logits w.r.t. its input
p0 = {k: v[0] for k, v in adapted.items()}
J_rev = jacrev(fmodel, argnums=1)(p0, xq[0, :2])
J_fwd = jacfwd(fmodel, argnums=1)(p0, xq[0, :2])
print("jacobian", tuple(J_rev.shape), torch.allclose(J_rev, J_fwd, atol=1e-6))
per_point = vmap(jacrev(fmodel, argnums=1), in_dims=(None, 0))(p0, xq[0, :2])
print("per-point jacobian", tuple(per_point.shape), torch.allclose(per_point, J_rev.diagonal(dim1=0, dim2=2)
                                                                  .permute(2, 0, 1), atol=1e-6))

# dropout inside vmap: randomness modes
drop_model = Learner(p_drop=0.5).to("meta")
drop_params = {k: v.detach() for k, v in base.named_parameters()}
x_same = xs[0].expand(T, N, 3)
f = lambda p, x: functional_call(drop_model, p, (x,))
diff_out = vmap(f, in_dims=(None, 0), randomness="different")(drop_params, x_same)
same_out = vmap(f, in_dims=(None, 0), randomness="same")(drop_params, x_same)
print("different masks", not torch.equal(diff_out[0], diff_out[1]), "same masks", torch.equal(same_out[0],
                                                                                              same_out[1]))
for bad in [lambda: vmap(f, in_dims=(None, 0))(drop_params, x_same),
            lambda: vmap(f, in_dims=(None, 0), randomness="sometimes")(drop_params, x_same),
            lambda: vmap(fmodel, in_dims=(None, 0))(shared, xs[0, :, 0]),
            lambda: vmap(lambda a, b: a + b)(torch.ones(3, 2), torch.ones(4, 2)),
            lambda: vmap(fmodel, in_dims=(None, 3))(shared, xs),
            lambda: vmap(fmodel, in_dims=(0,))(shared, xs),
            lambda: stack_module_state([])]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
