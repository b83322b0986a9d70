"""Simulating many clients at once with torch.func: stack_module_state turns per-client copies into batched
parameters, vmap over functional_call runs every client's forward and grad in one call, per-client SGD updates
the stacked tensors, and the average is written back into a module; checked against a sequential loop."""

import copy

import torch
from torch.func import functional_call, grad_and_value, stack_module_state, vmap

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
base = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
n_clients = 4
Xs = torch.randn(n_clients, 16, 3)
Ys = (Xs.sum(-1, keepdim=True) * torch.arange(1, n_clients + 1).view(-1, 1, 1) * 0.5).sin()

models = [copy.deepcopy(base) for _ in range(n_clients)]
params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()}, buffers)
print("stacked is leaf", params["0.weight"].is_leaf, params["0.weight"].requires_grad)
skeleton = copy.deepcopy(base).to("meta")


def loss_fn(p, b, x, y):
    return F.mse_loss(functional_call(skeleton, (p, b), (x,)), y)


step = vmap(grad_and_value(loss_fn), in_dims=(0, 0, 0, 0))
params = {k: v.detach() for k, v in params.items()}
lr = 0.1
for it in range(5):
    grads, losses = step(params, buffers, Xs, Ys)
    params = {k: params[k] - lr * grads[k] for k in params}
    if it in (0, 4):
        print("iter", it, losses.round(decimals=4).tolist())

# sequential reference
for k, (m, x, y) in enumerate(zip(models, Xs, Ys)):
    opt = torch.optim.SGD(m.parameters(), lr=lr)
    for it in range(5):
        opt.zero_grad()
        F.mse_loss(m(x), y).backward()
        opt.step()
print("matches loop", all(torch.allclose(params[name][k], dict(m.named_parameters())[name], atol=1e-5)
                          for k, m in enumerate(models) for name in params))

weights = torch.tensor([16.0, 16.0, 32.0, 8.0])
weights = weights / weights.sum()
avg = {k: torch.einsum("c,c...->...", weights, v) for k, v in params.items()}
global_model = copy.deepcopy(base)
global_model.load_state_dict(avg)
with torch.no_grad():
    print("global losses", [round(F.mse_loss(global_model(x), y).item(), 4) for x, y in zip(Xs, Ys)])
print("meta skeleton", skeleton[0].weight.device, skeleton[0].weight.is_meta)

out = vmap(lambda p, x: functional_call(base, p, (x,)), in_dims=(0, None))(params, Xs[0])
print("all clients on one batch", out.shape, round(out.std(0).mean().item(), 4))
chunked = vmap(grad_and_value(loss_fn), in_dims=(0, 0, 0, 0), chunk_size=2)(params, buffers, Xs, Ys)
print("chunk", torch.allclose(chunked[1], step(params, buffers, Xs, Ys)[1]))
single = vmap(loss_fn, in_dims=(0, 0, 0, None))(params, buffers, Xs, Ys[0])
print("shared target", single.round(decimals=4).tolist())

try:
    stack_module_state([nn.Linear(3, 8), nn.Linear(3, 4)])
except Exception as e:
    print(type(e).__name__, str(e)[:100])
try:
    vmap(loss_fn, in_dims=(0, 0, 0, 0))(params, buffers, Xs, Ys[:3])
except Exception as e:
    print(type(e).__name__, str(e)[:150])
try:
    stack_module_state([])
except Exception as e:
    print(type(e).__name__, e)
