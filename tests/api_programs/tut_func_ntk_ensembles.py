"""The torch.func tutorials: per-sample gradients (ft_compute_grad with functional_call, vmap in_dims=(None, None,
0, 0)), model ensembling (stack_module_state, a 'meta' base model, vmap over params with in_dims=(0, 0, None) and
randomness), the Jacobians/Hessians tutorial (jacrev vs jacfwd, argnums, hessian, batched Jacobians with the
sum trick, hvp via jvp of grad), and the neural tangent kernel tutorial (empirical NTK by Jacobian contraction and
by NTK-vector products, full / trace / diagonal modes)."""

# ruff: noqa: UP008  (the tutorial's own idioms, kept as written)

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, stack_module_state, vjp, vmap

rng = np.random.default_rng(9)


def T(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def fill(m, scale=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 5)
        self.fc3 = nn.Linear(5, 3)

    def forward(self, x):
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


# per-sample gradients
model = fill(SimpleMLP())
data, targets = T(4, 2, 3), torch.from_numpy(rng.integers(0, 3, 4))


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = loss_fn(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


sample_grads = [compute_grad(data[i], targets[i]) for i in range(4)]
sample_grads = list(zip(*sample_grads))
sample_grads = [torch.stack(shards) for shards in sample_grads]
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return loss_fn(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for per_sample_grad, ft_per_sample_grad in zip(sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
print({k: tuple(v.shape) for k, v in ft_per_sample_grads.items()})
print("fc3.bias grads", r(ft_per_sample_grads["fc3.bias"], 6))

# model ensembling
num_models = 3
models = [fill(SimpleMLP()) for _ in range(num_models)]
minibatches = T(num_models, 4, 2, 3)
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]
params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in list(params.items())[:2]}, buffers)
print("stacked requires_grad", params["fc1.weight"].requires_grad, params["fc1.weight"].is_leaf)
base_model = copy.deepcopy(models[0])
base_model = base_model.to("meta")
print("meta", base_model.fc1.weight.device, base_model.fc1.weight.is_meta)


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


predictions1_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatches[0])
predictions2_vmap = vmap(fmodel)(params, buffers, minibatches)
print("same minibatch", torch.allclose(predictions1_vmap, torch.stack([m(minibatches[0]) for m in models]),
                                         atol=1e-6))
print("different minibatches", torch.allclose(predictions2_vmap, torch.stack(predictions_diff_minibatch_loop),
                                              atol=1e-6), tuple(predictions2_vmap.shape))
try:
    vmap(lambda x: F.dropout(x, 0.5), randomness="error")(T(2, 3))
except RuntimeError as e:
    print("RuntimeError", str(e)[:90])
print("same randomness", tuple(vmap(lambda x: F.dropout(x, 0.5), randomness="same")(T(2, 3)).shape))

# Jacobians and Hessians
D = 4
weight = T(D, D)
bias = T(D)
x = T(D)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


jacobian = jacrev(predict, argnums=2)(weight, bias, x)
unit_vectors = torch.eye(D)
_, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
(ft_jacobian,) = vmap(vjp_fn)(unit_vectors)
print("jacrev == vjp rows", torch.allclose(jacobian, ft_jacobian, atol=1e-6), r(jacobian, 4))
print("jacfwd", torch.allclose(jacfwd(predict, argnums=2)(weight, bias, x), jacobian, atol=1e-6))
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print("argnums", tuple(ft_jac_weight.shape), tuple(ft_jac_bias.shape))
hess = hessian(predict, argnums=2)(weight, bias, x)
print("hessian", tuple(hess.shape), torch.allclose(hess, jacfwd(jacrev(predict, argnums=2), argnums=2)(weight, bias, x),
                                                    atol=1e-5))
batch_size = 5
xb = T(batch_size, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, xb)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, xb).movedim(1, 0)
print("batch jacobian", tuple(batch_jacobian0.shape), torch.allclose(batch_jacobian0, batch_jacobian1, atol=1e-6))


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


xs, ts = T(D), T(D)
print("hvp", torch.allclose(hvp(f, (xs,), (ts,)), -xs.sin() * ts, atol=1e-6))

# neural tangent kernel
net = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
fill(net)
net_params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute="full"):
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]
    einsum_expr = {"full": "Naf,Mbf->NMab", "trace": "Naf,Maf->NM", "diagonal": "Naf,Maf->NMa"}[compute]
    result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    return result.sum(0)


def empirical_ntk_ntk_vps(func, params, x1, x2, compute="full"):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            vjps = vjp_fn(vec)
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
        return vmap(get_ntk_slice)(basis)

    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
    if compute == "full":
        return result
    if compute == "trace":
        return torch.einsum("NMKK->NM", result)
    if compute == "diagonal":
        return torch.einsum("NMKK->NMK", result)


x_train, x_test = T(4, 3), T(3, 3)
ntk_full = empirical_ntk_jacobian_contraction(fnet_single, net_params, x_train, x_test, "full")
print("ntk", tuple(ntk_full.shape), r(ntk_full[0, 0].flatten()))
ntk_trace = empirical_ntk_jacobian_contraction(fnet_single, net_params, x_train, x_test, "trace")
print("trace", torch.allclose(ntk_trace, torch.diagonal(ntk_full, dim1=-2, dim2=-1).sum(-1), atol=1e-5))
ntk_vps = empirical_ntk_ntk_vps(fnet_single, net_params, x_train, x_test, "full")
print("ntk-vps", tuple(ntk_vps.shape), torch.allclose(ntk_vps, ntk_full, atol=1e-5))
diag = empirical_ntk_ntk_vps(fnet_single, net_params, x_train, x_test, "diagonal")
print("diagonal", tuple(diag.shape), r(diag[1, 2]))
