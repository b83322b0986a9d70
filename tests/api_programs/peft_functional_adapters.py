"""Adapters as data: torch.func.functional_call with swapped adapter weights, vmap over adapters, state-dict hooks."""

import torch

nn = torch.nn
F = torch.nn.functional
from torch.func import functional_call, vmap, grad  # noqa: E402

torch.manual_seed(0)


class Lora(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(5, 3)
        self.A = nn.Parameter(torch.randn(2, 5) * 0.1)
        self.B = nn.Parameter(torch.randn(3, 2) * 0.1)

    def forward(self, x):
        return self.base(x) + x @ self.A.T @ self.B.T


model = Lora()
x = torch.randn(4, 5)
adapters = [{"A": torch.randn(2, 5) * 0.1, "B": torch.randn(3, 2) * 0.1} for _ in range(3)]
outs = [functional_call(model, a, (x,)) for a in adapters]
print([round(o.sum().item(), 4) for o in outs])
print("module untouched", torch.equal(model.A, model.A.detach()), model.A.requires_grad)

# vmap across stacked adapters
stacked = {k: torch.stack([a[k] for a in adapters]) for k in ("A", "B")}
vm = vmap(lambda p: functional_call(model, p, (x,)))(stacked)
print("vmap", tuple(vm.shape), torch.allclose(vm, torch.stack(outs), atol=1e-6))
# per-adapter gradients with torch.func.grad on a frozen base


def loss_fn(p, x, y):
    return F.mse_loss(functional_call(model, p, (x,)), y)


y = torch.randn(4, 3)
g = grad(loss_fn)(adapters[0], x, y)
print(sorted(g), tuple(g["A"].shape), round(g["B"].abs().sum().item(), 4))
gs = vmap(grad(loss_fn), in_dims=(0, None, None))(stacked, x, y)
print("batched grads", tuple(gs["A"].shape), torch.allclose(gs["A"][0], g["A"], atol=1e-6))

# strict and multiple dicts
try:
    functional_call(model, {"A": adapters[0]["A"]}, (x,), strict=True)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:160])
try:
    functional_call(model, ({"A": adapters[0]["A"]}, {"A": adapters[1]["A"]}), (x,))
except ValueError as e:
    print(type(e).__name__, e)
o2 = functional_call(model, ({"A": adapters[0]["A"]}, {"B": adapters[0]["B"]}), (x,))
print("two dicts", torch.allclose(o2, outs[0]))
try:
    functional_call(model, {"C": torch.zeros(1)}, (x,), strict=True)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:160])
print("kwargs", tuple(functional_call(model, {}, args=(), kwargs={"x": x}).shape))


# state dict hooks that keep only adapter weights, and a load pre-hook that renames keys
def only_adapters(module, state_dict, prefix, local_metadata):
    for k in list(state_dict):
        if not (k.endswith("A") or k.endswith("B")):
            del state_dict[k]


h = model.register_state_dict_post_hook(only_adapters)
print(list(model.state_dict()))
h.remove()
print(list(model.state_dict()))
h = model.register_state_dict_post_hook(lambda m, sd, p, meta: sd)
try:
    model.state_dict()
except RuntimeError as e:
    print(type(e).__name__, e)
h.remove()


def rename(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    for k in list(state_dict):
        if k.startswith(prefix + "lora_"):
            state_dict[prefix + k[len(prefix) + 5 :]] = state_dict.pop(k)


model._register_load_state_dict_pre_hook(rename)
seen = []
model.register_load_state_dict_post_hook(
    lambda m, keys: seen.append((list(keys.missing_keys), list(keys.unexpected_keys)))
)
res = model.load_state_dict({"lora_A": adapters[2]["A"], "lora_B": adapters[2]["B"]}, strict=False)
print(res.missing_keys, seen)
print("loaded", torch.equal(model.A.detach(), adapters[2]["A"]))


def ignore_missing(m, keys):
    keys.missing_keys.clear()


model.register_load_state_dict_post_hook(ignore_missing)
print(model.load_state_dict({"lora_A": adapters[1]["A"], "B": adapters[1]["B"]}))
sd = model.state_dict()
print(type(sd._metadata).__name__, sd._metadata[""])
print(torch.nn.utils.parameters_to_vector([model.A, model.B]).shape)
vec = torch.zeros(16)
torch.nn.utils.vector_to_parameters(vec, [model.A, model.B])
print(model.A.abs().sum().item(), type(model.A).__name__)
try:
    torch.nn.utils.vector_to_parameters(torch.zeros(5), [model.A, model.B])
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.nn.utils.parameters_to_vector(model.A)
except Exception as e:
    print(type(e).__name__, e)
