"""The recipe 'Extension points in nn.Module for load_state_dict and tensor subclasses': how .to()/.double()
convert parameters (in place by default, replaced under torch.__future__'s overwrite flag, swapped under the swap
flag), torch.utils.swap_tensors, load_state_dict's copy versus assign=True, Tensor.module_load, the public load
pre/post hooks (with_module, editing incompatible keys), and the warmstarting pattern with strict=False."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(8)


def fill(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return m


# conversion: in place by default
m = fill(nn.Linear(3, 2))
w = m.weight
opt = torch.optim.SGD(m.parameters(), lr=0.1)
m.double()
print("default", m.weight is w, w.dtype, opt.param_groups[0]["params"][0] is m.weight)

torch.__future__.set_overwrite_module_params_on_conversion(True)
print("flags", torch.__future__.get_overwrite_module_params_on_conversion(),
      torch.__future__.get_swap_module_params_on_conversion())
m.weight.grad = torch.ones(2, 3, dtype=torch.float64)
w = m.weight
m.float()
print("overwrite", m.weight is w, w.dtype, m.weight.dtype, m.weight.grad.dtype, type(m.weight).__name__)
print("optimizer sees old", opt.param_groups[0]["params"][0] is m.weight)
torch.__future__.set_overwrite_module_params_on_conversion(False)

torch.__future__.set_swap_module_params_on_conversion(True)
w = m.weight
m.double()
print("swap", m.weight is w, w.dtype)
torch.__future__.set_swap_module_params_on_conversion(False)
m.float()

a, b = torch.arange(3.0), torch.zeros(2, 2)
a_id = id(a)
torch.utils.swap_tensors(a, b)
print("swap_tensors", id(a) == a_id, tuple(a.shape), b.tolist())

# load_state_dict: copy_ into the existing parameters, or assign the given tensors
src = fill(nn.Linear(3, 2))
sd = {k: v.double() for k, v in src.state_dict().items()}
dst = nn.Linear(3, 2)
w = dst.weight
print(dst.load_state_dict(sd))
print("copied", dst.weight is w, dst.weight.dtype, torch.allclose(dst.weight, src.weight))
dst.load_state_dict(sd, assign=True)
print("assigned", dst.weight is w, dst.weight.dtype, type(dst.weight).__name__, dst.weight.requires_grad,
      dst.weight.data_ptr() == sd["weight"].data_ptr())
with torch.device("meta"):
    meta_model = nn.Linear(3, 2)
print("meta", meta_model.weight.is_meta)
meta_model.load_state_dict(src.state_dict(), assign=True)
print("from meta", meta_model.weight.is_meta, torch.equal(meta_model(torch.ones(1, 3)), src(torch.ones(1, 3))))
p = nn.Parameter(torch.zeros(2, 3), requires_grad=False)
print("module_load", type(p.module_load(torch.ones(2, 3))).__name__, p.tolist()[0])

# hooks
calls = []


def pre_hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    calls.append(("pre", type(module).__name__, prefix, sorted(state_dict)))
    if prefix + "old_weight" in state_dict:
        state_dict[prefix + "weight"] = state_dict.pop(prefix + "old_weight")


def post_hook(module, incompatible_keys):
    calls.append(("post", list(incompatible_keys.missing_keys), list(incompatible_keys.unexpected_keys)))
    incompatible_keys.unexpected_keys[:] = [k for k in incompatible_keys.unexpected_keys if not k.endswith("extra")]


net = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
h1 = net[0].register_load_state_dict_pre_hook(pre_hook)
h2 = net.register_load_state_dict_post_hook(post_hook)
old = {"0.old_weight": torch.ones(2, 3), "0.bias": torch.zeros(2), "0.extra": torch.zeros(1)}
print(net.load_state_dict(old))
print(calls)
print(net[0].weight.sum().item())
h1.remove()
h2.remove()
calls.clear()
try:
    net.load_state_dict(old)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])
    print(" ", str(e).splitlines()[1].strip())
print(calls)

# warmstarting: a bigger model from a smaller one
small = fill(nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)))
big = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
result = big.load_state_dict(small.state_dict(), strict=False)
print(result.missing_keys, result.unexpected_keys, torch.equal(big[2].weight, small[2].weight))
bad = {"0.weight": torch.zeros(5, 4)}
try:
    big.load_state_dict(bad, strict=False)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[1].strip())
sd = small.state_dict()
print(type(sd).__name__, list(sd._metadata.keys()), sd._metadata[""])
