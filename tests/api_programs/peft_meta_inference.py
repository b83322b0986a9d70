"""Adapter lifecycle details: meta-device init with to_empty, skip_init, deepcopy, .data swaps,
inference_mode merges."""

import copy
import io
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Lora(nn.Module):
    def __init__(self, d_in, d_out, r=2, device=None):
        super().__init__()
        self.base = nn.Linear(d_in, d_out, device=device)
        self.lora_A = nn.Parameter(torch.empty(r, d_in, device=device))
        self.lora_B = nn.Parameter(torch.empty(d_out, r, device=device))

    def reset_lora(self):
        nn.init.normal_(self.lora_A, std=0.1)
        nn.init.zeros_(self.lora_B)

    def forward(self, x):
        return self.base(x) + x @ self.lora_A.T @ self.lora_B.T


# init on meta, then materialise
with torch.device("meta"):
    m = Lora(4, 3)
print(m.base.weight.device, m.lora_A.is_meta, m.lora_A.shape, repr(m.lora_A))
try:
    m(torch.randn(2, 4))
except Exception as e:
    print(type(e).__name__, str(e)[:90])
out = m(torch.randn(2, 4, device="meta"))
print("meta out", out.shape, out.device)
m.to_empty(device="cpu")
print(m.lora_A.device, type(m.lora_A).__name__, m.lora_A.requires_grad)
torch.manual_seed(1)
m.reset_lora()
m.base.reset_parameters()
print("lora B zeros", m.lora_B.abs().sum().item(), "A std ok", 0.0 < m.lora_A.std().item() < 0.3)
try:
    Lora(4, 3, device="meta").to("cpu")
except NotImplementedError as e:
    print(type(e).__name__, str(e)[:110])

s = torch.nn.utils.skip_init(nn.Linear, 5, 2)
print(type(s).__name__, s.weight.shape, s.weight.device)
s2 = nn.Linear(5, 2, device="meta")
print(s2)

# deepcopy keeps requires_grad flags and hooks
torch.manual_seed(0)
m = Lora(4, 3)
m.reset_lora()
m.base.requires_grad_(False)
calls = []
m.register_forward_hook(lambda mod, i, o: calls.append(1))
c = copy.deepcopy(m)
print({n: p.requires_grad for n, p in c.named_parameters()})
print("independent", c.lora_A.data_ptr() != m.lora_A.data_ptr(), len(c._forward_hooks))
c(torch.ones(1, 4))
print("hooks copied", len(calls))

# .data swaps: dtype and shape may change, the Parameter object stays
p = m.lora_A
old_id = id(p)
p.data = p.data.to(torch.float64)
print(type(p).__name__, p.dtype, id(p) == old_id, p.requires_grad)
p.data = torch.zeros(5, 4)
print(p.shape, p.dtype)
try:
    p.data = [1, 2]
except TypeError as e:
    print(type(e).__name__, e)
m.lora_A = nn.Parameter(torch.randn(2, 4) * 0.1)

# inference_mode merges produce inference tensors that autograd refuses to save
with torch.inference_mode():
    delta = m.lora_B @ m.lora_A
    merged_w = m.base.weight + delta
print(merged_w.is_inference(), m.base.weight.is_inference(), merged_w.requires_grad)
x = torch.randn(2, 4, requires_grad=True)
try:
    (x @ merged_w.T).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
ok = x @ merged_w.clone().T
print("clone is normal", merged_w.clone().is_inference(), ok.grad_fn.name())
try:
    with torch.inference_mode():
        m.base.weight.add_(1.0)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    merged_w.add_(1.0)
except RuntimeError as e:
    print(type(e).__name__, e)
with torch.no_grad():
    nm = m.base.weight + m.lora_B @ m.lora_A
print("no_grad result", nm.is_inference(), nm.requires_grad, torch.is_inference_mode_enabled())
with torch.inference_mode(mode=False):
    print("mode False", torch.is_inference_mode_enabled(), torch.is_grad_enabled())


@torch.no_grad()
def merge_(mod):
    mod.base.weight += mod.lora_B @ mod.lora_A
    return torch.is_grad_enabled()


print("decorated", merge_(m), torch.is_grad_enabled())
with torch.no_grad():
    with torch.enable_grad():
        y = m.lora_A * 2
print("enable_grad inside no_grad", y.requires_grad, y.grad_fn.name())
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled(), (m.lora_A * 2).requires_grad)

# whole-model save/load with weights_only
buf = io.BytesIO()
torch.save(m.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, weights_only=True, map_location="cpu")
print(list(sd), sd["lora_A"].requires_grad)
m._forward_hooks.clear()
buf = io.BytesIO()
torch.save(m, buf)
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except Exception as e:
    print(type(e).__name__, "Unsupported global" in str(e))
