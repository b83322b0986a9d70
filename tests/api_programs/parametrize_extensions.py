"""Writing your own parametrizations and hook-based extensions: right_inverse with several originals, unsafe
parametrizations, caching, transfer between modules, hook ordering (prepend, always_call, with_kwargs), skip_init,
and functional_call with buffers, strict checks and tied parameters."""

import numpy as np
import torch
from torch import nn
import torch.nn.utils.parametrize as P
from torch.func import functional_call

rng = np.random.default_rng(17)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:5].numpy(), 4).tolist()


class LowRank(nn.Module):
    """W = U @ V, stored as two originals."""

    def forward(self, U, V):
        return U @ V

    def right_inverse(self, W):
        U, S, Vh = torch.linalg.svd(W, full_matrices=False)
        k = 2
        return U[:, :k] * S[:k], Vh[:k]


lin = nn.Linear(4, 3)
with torch.no_grad():
    lin.weight.copy_(T(3, 4))
w_before = lin.weight.detach().clone()
P.register_parametrization(lin, "weight", LowRank())
pl = lin.parametrizations.weight
print("originals", sorted(n for n, _ in pl.named_parameters()), tuple(pl.original0.shape), tuple(pl.original1.shape))
print("rank", torch.linalg.matrix_rank(lin.weight.detach()).item(), tuple(lin.weight.shape))
print("approx_err", round((lin.weight - w_before).norm().item(), 4))
with torch.no_grad():
    lin.weight = T(3, 4)
print("assigned_rank", torch.linalg.matrix_rank(lin.weight.detach()).item())


class Positive(nn.Module):
    def forward(self, X):
        return nn.functional.softplus(X)

    def right_inverse(self, Y):
        return torch.log(torch.expm1(Y))


class Flatten(nn.Module):
    def forward(self, X):
        return X.reshape(-1)


lin2 = nn.Linear(3, 2)
with torch.no_grad():
    lin2.bias.copy_(torch.tensor([0.5, 2.0]))
P.register_parametrization(lin2, "bias", Positive())
print("positive", r(lin2.bias), r(lin2.parametrizations.bias.original))
try:
    P.register_parametrization(nn.Linear(3, 2), "weight", Flatten())
except ValueError as e:
    print("shape_change", str(e).splitlines()[0][:90])
lin3 = nn.Linear(3, 2)
P.register_parametrization(lin3, "weight", Flatten(), unsafe=True)
print("unsafe", tuple(lin3.weight.shape), P.type_before_parametrizations(lin3).__name__, type(lin3).__name__)
P.register_parametrization(lin2, "bias", Positive())
print("stacked", len(lin2.parametrizations.bias), r(lin2.bias))

calls = {"n": 0}


class Counting(nn.Module):
    def forward(self, X):
        calls["n"] += 1
        return X * 2


lin4 = nn.Linear(2, 2)
P.register_parametrization(lin4, "weight", Counting())
_ = lin4.weight, lin4.weight
with P.cached():
    _ = lin4.weight, lin4.weight, lin4.weight
print("cached_calls", calls["n"])
target = nn.Linear(2, 2)
P.transfer_parametrizations_and_params(lin4, target)
print("transferred", P.is_parametrized(target, "weight"), torch.equal(target.weight, lin4.weight))
P.remove_parametrizations(lin4, "weight", leave_parametrized=False)
print("left_original", type(lin4).__name__, P.is_parametrized(lin4))

# hook ordering and variants
m = nn.Linear(2, 2)
order = []
m.register_forward_hook(lambda mod, i, o: order.append("late"))
m.register_forward_hook(lambda mod, i, o: order.append("first"), prepend=True)
m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {**kwargs}) if order.append("pre_kw") is None else None,
                            with_kwargs=True)
m(torch.ones(1, 2))
print("order", order)


class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("boom")


bm = Boom()
got = []
bm.register_forward_hook(lambda mod, i, o: got.append("always"), always_call=True)
bm.register_forward_hook(lambda mod, i, o: got.append("normal"))
try:
    bm(torch.ones(1))
except ValueError as e:
    print("always_call", got, str(e))


class Scaled(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale


sm = Scaled()
sm.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": kwargs.get("scale", 1.0) * 10}),
                             with_kwargs=True)
print("kwargs_hook", sm(torch.ones(2), scale=0.5).tolist())
sk = torch.nn.utils.skip_init(nn.Linear, 3, 4)
print("skip_init", tuple(sk.weight.shape), type(sk).__name__)

# functional_call with buffers, strict and tied weights
bn_net = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
xs = T(5, 3)
params_and_buffers = {k: v.clone() for k, v in bn_net.state_dict().items()}
out = functional_call(bn_net, params_and_buffers, (xs,))
print("buffers_updated", params_and_buffers["1.num_batches_tracked"].item(), bn_net[1].num_batches_tracked.item())
print("running_mean_moved", not torch.equal(params_and_buffers["1.running_mean"], bn_net[1].running_mean))
try:
    functional_call(bn_net, {"0.weight": torch.zeros(3, 3)}, (xs,), strict=True)
except RuntimeError as e:
    print("strict", str(e).splitlines()[0][:80])
try:
    functional_call(bn_net, {"0.wieght": torch.zeros(3, 3)}, (xs,))
    print("typo_ignored", True)
except Exception as e:
    print("typo", type(e).__name__)
two = (dict(bn_net.named_parameters()), dict(bn_net.named_buffers()))
print("tuple_dicts", torch.allclose(functional_call(bn_net.eval(), two, xs), bn_net(xs)))
