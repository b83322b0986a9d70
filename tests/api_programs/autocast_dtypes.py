"""autocast on CPU with bfloat16; dtype conversions."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.LayerNorm(16), nn.Linear(16, 4))
x = T(5, 8)
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = m[0](x)
    print("linear", h.dtype)
    y = m(x)
    print("out", y.dtype)
    print("softmax", F.softmax(y, dim=-1).dtype, torch.softmax(y, -1).dtype)
    print("add", (y + x[:, :4]).dtype)
    print("mm", torch.mm(x, x.t()).dtype, (x @ x.t()).dtype, torch.bmm(x[None], x.t()[None]).dtype)
    loss = F.cross_entropy(y, torch.tensor([0, 1, 2, 3, 0]))
    print("loss", loss.dtype)
    print("enabled", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    with torch.autocast("cpu", enabled=False):
        print("nested", m[0](x).dtype)
print("after", m(x).dtype, torch.is_autocast_enabled("cpu"))
loss.backward()
print("grad", m[0].weight.grad.dtype, m[0].weight.grad.shape)
print("amp_autocast", torch.amp.autocast("cpu", dtype=torch.bfloat16) is not None)
with torch.cpu.amp.autocast():
    print("cpu_amp", m[0](x).dtype)
# dtype conversions
a = torch.arange(6).reshape(2, 3)
print(
    a.dtype,
    a.float().dtype,
    a.double().dtype,
    a.half().dtype,
    a.bfloat16().dtype,
    a.long().dtype,
    a.int().dtype,
    a.bool().dtype,
    a.short().dtype,
    a.char().dtype,
    a.byte().dtype,
)
print(a.to(torch.float16), a.to(dtype=torch.bfloat16))
print(
    torch.tensor([1.5, 2.7]).to(torch.int32),
    torch.tensor([True, False]).sum(),
    torch.tensor([1, 2]) / 2,
    torch.tensor([1, 2]) // 2,
)
print(
    torch.tensor(3) * 2.5,
    (torch.tensor([1], dtype=torch.uint8) + 300 - 300).dtype,
    torch.tensor([1], dtype=torch.int8) + torch.tensor([1.0], dtype=torch.float16),
)
print(
    torch.promote_types(torch.int32, torch.float16),
    torch.result_type(torch.tensor([1]), 1.0),
    torch.can_cast(torch.float32, torch.int32),
)
print(
    torch.get_default_dtype(),
    torch.tensor([1.0]).dtype,
    torch.tensor(1.0, dtype=torch.float64).item(),
    type(torch.tensor(1).item()),
)
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0]).dtype, torch.zeros(2).dtype, torch.arange(3.0).dtype, nn.Linear(2, 2).weight.dtype)
torch.set_default_dtype(torch.float32)
print(torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float16).max, torch.iinfo(torch.int16).min, torch.finfo().tiny)
b = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16)
print(b, b.sum(), b.mean().dtype, b.float().numpy().dtype)
print(
    x.type(),
    x.type(torch.float64).dtype,
    x.is_floating_point(),
    a.is_floating_point(),
    torch.is_tensor(x),
    torch.is_floating_point(x),
    x.element_size(),
    x.nbytes,
    x.itemsize,
)
print("OK")
