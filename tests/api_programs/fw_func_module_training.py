"""Training modules functionally, as functorch-style libraries do: parameters as a dict updated with
tree_map, grad over functional_call with has_aux metrics, an ensemble via stack_module_state and vmap with
in_dims=(0, 0, None), per-model losses, replace_all_batch_norm_modules_ for BatchNorm under vmap, dropout under
vmap(randomness="different"/"same") facts, jacrev of a module w.r.t. its input (and a Jacobian penalty
backpropagated into the weights), and torch.func.functionalize."""

import copy

import torch
from torch import nn
import torch.nn.functional as F
from torch.func import functional_call, functionalize, grad, jacrev, stack_module_state, vmap
import torch.utils._pytree as pytree

torch.set_printoptions(precision=4)


def det(*shape, k=0.7, phase=0.1):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * k + phase).reshape(shape)


class MLP(nn.Module):
    def __init__(self, phase=0.0):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 2)
        with torch.no_grad():
            for i, p in enumerate(self.parameters()):
                p.copy_(det(*p.shape, k=0.3 + 0.2 * i, phase=phase) * 0.5)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


X = det(16, 3, k=1.1)
Y = (X.sum(1) > 0).long()
model = MLP()
params = {k: v.detach() for k, v in model.named_parameters()}


def loss_fn(p, x, y):
    logits = functional_call(model, p, (x,))
    loss = F.cross_entropy(logits, y)
    acc = (logits.argmax(1) == y).float().mean()
    return loss, {"acc": acc}


for step in range(5):
    g, aux = grad(loss_fn, has_aux=True)(params, X, Y)
    params = pytree.tree_map(lambda p, gp: p - 0.5 * gp, params, g)
    if step % 2 == 0:
        print(f"step {step} loss {loss_fn(params, X, Y)[0].item():.4f} acc {aux['acc'].item():.4f}")
print("module untouched", torch.equal(model.fc1.weight, MLP().fc1.weight))
print("grad keys", sorted(g), g["fc2.bias"])

# the same step with torch.autograd for comparison
m2 = MLP()
opt = torch.optim.SGD(m2.parameters(), lr=0.5)
for _ in range(5):
    opt.zero_grad()
    F.cross_entropy(m2(X), Y).backward()
    opt.step()
print("matches optimizer", all(torch.allclose(params[k], v, atol=1e-6) for k, v in m2.named_parameters()))

# ensembles
models = [MLP(phase=0.3 * i) for i in range(4)]
ens_params, ens_buffers = stack_module_state(models)
print("stacked", {k: tuple(v.shape) for k, v in ens_params.items()}, ens_buffers)
base = copy.deepcopy(models[0]).to("meta")


def run_one(p, b, x):
    return functional_call(base, (p, b), (x,))


out = vmap(run_one, in_dims=(0, 0, None))(ens_params, ens_buffers, X[:5])
print("ensemble out", out.shape, torch.allclose(out[2], models[2](X[:5]), atol=1e-6))
per_model_loss = vmap(lambda p, b: F.cross_entropy(run_one(p, b, X), Y), in_dims=(0, 0))(ens_params, ens_buffers)
print("per-model loss", per_model_loss.detach())
ens_grads = vmap(grad(lambda p, b: F.cross_entropy(run_one(p, b, X), Y)), in_dims=(0, 0))(ens_params, ens_buffers)
print("ensemble grad shapes", {k: tuple(v.shape) for k, v in ens_grads.items()})
ref_grad = torch.autograd.grad(F.cross_entropy(models[1](X), Y), models[1].fc2.bias)[0]
print("ensemble grad matches", torch.allclose(ens_grads["fc2.bias"][1], ref_grad, atol=1e-6))

# BatchNorm under vmap
bn_net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU())
torch.func.replace_all_batch_norm_modules_(bn_net)
print("bn tracking", bn_net[1].track_running_stats, bn_net[1].running_mean)
batched = vmap(bn_net, in_dims=1)(det(6, 2, 3).transpose(0, 1).contiguous().transpose(0, 1))
print("vmapped bn", batched.shape, round(batched.mean().item(), 4) >= 0)

# dropout under vmap: randomness modes
drop = nn.Dropout(0.5)
xs = torch.ones(3, 1000)
same = vmap(drop, randomness="same")(xs)
diff = vmap(drop, randomness="different")(xs)
print("same masks", torch.equal(same[0], same[1]), "different masks", not torch.equal(diff[0], diff[1]))
print("kept values scaled", set(same.unique().tolist()) <= {0.0, 2.0})
try:
    vmap(drop)(xs)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:80])

# input Jacobian of a module
J = jacrev(lambda inp: model(inp))(X[0])
print("jacobian", J.shape, J[0])
Jb = vmap(jacrev(model))(X[:4])
print("batched jacobian", Jb.shape, torch.allclose(Jb[0], J))
# a Jacobian penalty trains the weights: torch.func results stay differentiable in closed-over parameters
model.zero_grad()
penalty = jacrev(model)(X[1]).pow(2).sum()
penalty.backward()
print("jacobian penalty", round(penalty.item(), 4), model.fc1.weight.grad.norm().item() > 0,
      model.fc2.bias.grad)
g_in = grad(lambda inp: model(inp).logsumexp(-1))(X[2])
print("input-gradient norm penalty differentiable", g_in.requires_grad)
with torch.no_grad():
    print("under no_grad", jacrev(model)(X[1]).requires_grad)


def inplace_fn(x):
    y = x.clone()
    y.add_(1)
    y.mul_(2)
    return y


print("functionalize", functionalize(inplace_fn)(torch.arange(3.0)), functionalize(inplace_fn) is not inplace_fn)
