"""Module internals a library author relies on: global module hooks, state_dict and load_state_dict hooks,
extra state, non-persistent buffers, registration hooks, __getstate__/__setstate__, deepcopy, pickle and
torch.save of whole modules with hooks and parametrizations."""

import copy
import io
import pickle
import numpy as np
import torch
from torch import nn
import torch.nn.utils.parametrize as P

rng = np.random.default_rng(9)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:4].numpy(), 4).tolist()


class Scaler(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.register_buffer("cache", torch.zeros(n), persistent=False)
        self.temperature = 2.0

    def forward(self, x):
        self.steps += 1
        self.cache = x.mean(0).detach()
        return self.lin(x) / self.temperature

    def get_extra_state(self):
        return {"temperature": self.temperature, "version": 3}

    def set_extra_state(self, state):
        self.temperature = state["temperature"]

    def extra_repr(self):
        return f"temperature={self.temperature}"


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.5)
    return m


model = det(nn.Sequential(Scaler(3), nn.ReLU(), Scaler(3)))
print(model)
x = T(4, 3)

# global hooks see every module call
calls = []
h1 = nn.modules.module.register_module_forward_pre_hook(lambda m, inp: calls.append(("pre", type(m).__name__)))
h2 = nn.modules.module.register_module_forward_hook(lambda m, inp, out: calls.append(("post", type(m).__name__)))
y = model(x)
h1.remove()
h2.remove()
print("global_calls", len(calls), calls[:4])
model(x)
print("after_remove", len(calls))
bw = []
h3 = nn.modules.module.register_module_full_backward_hook(lambda m, gi, go: bw.append(type(m).__name__))
model(x).sum().backward()
h3.remove()
print("global_backward", bw)
reg = []
h4 = nn.modules.module.register_module_parameter_registration_hook(lambda m, name, p: reg.append(name))
h5 = nn.modules.module.register_module_buffer_registration_hook(lambda m, name, b: reg.append("buf:" + name))
h6 = nn.modules.module.register_module_module_registration_hook(lambda m, name, sub: reg.append("mod:" + name))
tmp = nn.Linear(2, 2)
tmp.register_buffer("extra", torch.ones(1))
tmp.child = nn.Identity()
for h in (h4, h5, h6):
    h.remove()
print("registration", reg)

# state dict contents and hooks
sd = model.state_dict()
print("keys", list(sd.keys()))
print("extra_state", sd["0._extra_state"], sd["0.steps"].item())
print("metadata", dict(sd._metadata)[""], sorted(sd._metadata.keys())[:3])


def post_hook(module, state_dict, prefix, local_metadata):
    state_dict[prefix + "tag"] = torch.tensor(7)


bad_hook = model[0].register_state_dict_post_hook(lambda m, sd, prefix, meta: sd)
try:
    model.state_dict()
except RuntimeError as e:
    print("post_hook_err", str(e))
bad_hook.remove()
model[0].register_state_dict_post_hook(post_hook)
pre_seen = []
model[0].register_state_dict_pre_hook(lambda m, prefix, keep_vars: pre_seen.append(prefix))
sd2 = model.state_dict()
print("sd_hooks", [k for k in sd2 if k.endswith("tag")], pre_seen)

loaded = []


def load_pre(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
    state_dict.pop(prefix + "tag", None)
    loaded.append(("pre", prefix))


def load_post(module, incompatible):
    loaded.append(("post", len(incompatible.missing_keys), len(incompatible.unexpected_keys)))


fresh = nn.Sequential(Scaler(3), nn.ReLU(), Scaler(3))
fresh[0]._register_load_state_dict_pre_hook(load_pre, with_module=True)
fresh.register_load_state_dict_post_hook(load_post)
fresh[2].temperature = 9.0
res = fresh.load_state_dict(sd2)
print("load", res, loaded)
print("restored", fresh[2].temperature, fresh[0].steps.item(), torch.equal(fresh(x), model(x)))
bad = dict(sd)
bad["0.lin.weight"] = torch.zeros(2, 3)
try:
    fresh.load_state_dict(bad)
except RuntimeError as e:
    print("shape_err", str(e).splitlines()[1].strip())
partial = {k: v for k, v in sd.items() if not k.startswith("2.")}
partial["3.weight"] = torch.zeros(1)
res = fresh.load_state_dict(partial, strict=False)
print("non_strict", res.missing_keys, res.unexpected_keys)

# copying and pickling modules with hooks, parametrizations, extra state
model[0].register_forward_hook(lambda m, i, o: o * 0 + 1)
P.register_parametrization(model[2].lin, "weight", nn.Tanh())
dc = copy.deepcopy(model)
print("deepcopy", dc[0].lin.weight is not model[0].lin.weight, len(dc[0]._forward_hooks),
      P.is_parametrized(dc[2].lin), torch.equal(dc(x), model(x)))
state = model[2].__getstate__()
print("getstate", sorted(k for k in state if k.startswith("_") and "hooks" not in k)[:6], state["temperature"])
try:
    pickle.dumps(model[2])
except RuntimeError as e:
    print("pickle_param_err", str(e).splitlines()[0])
try:
    pickle.dumps(model[0])
except Exception as e:
    print("pickle_lambda", type(e).__name__)
plain = det(Scaler(3))
plain(x)
pk = pickle.loads(pickle.dumps(plain))
print("pickle", type(pk).__name__, type(pk.lin).__name__, pk.temperature, pk.steps.item(), torch.equal(pk(x), plain(x)))
print("pickle_cache", pk.cache.shape, "cache" in pk.state_dict())
buf = io.BytesIO()
torch.save(plain, buf)
buf.seek(0)
whole = torch.load(buf, weights_only=False)
print("whole", torch.equal(whole(x), plain(x)), whole.steps.item())
buf = io.BytesIO()
torch.save(plain, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print("weights_only_module", isinstance(e, pickle.UnpicklingError), "Weights only load failed" in str(e))
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
    print("weights_only ok")
except Exception as e:
    print("weights_only", type(e).__name__)
print("named_modules", [n for n, _ in model.named_modules()][:5])
shared = nn.Linear(2, 2)
seq = nn.Sequential(shared, shared)
print("dupes", len(list(seq.named_modules())), len(list(seq.named_modules(remove_duplicate=False))),
      len(list(seq.parameters())), len(list(seq.named_parameters(remove_duplicate=False))))
