"""Casting whole models between precisions, as inference and checkpoint code does: model.half()/.bfloat16()/
.float()/.double()/.to(dtype) on parameters and buffers (integer buffers such as num_batches_tracked untouched),
Parameter identity and requires_grad kept, state_dict dtypes, loading a float32 checkpoint into a bfloat16 model
(copy_ casts) and back, Module.to's refusal of integer dtypes, the default dtype set to bfloat16 for construction,
and mixed-dtype models that fail at the first mismatched layer."""

import io

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)
        self.register_buffer("counts", torch.zeros(3, dtype=torch.int64))
        self.register_buffer("scale", torch.tensor(0.5))
        self.register_buffer("mask", torch.tensor([True, False, True]))

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x))).mean((2, 3))
        return self.fc(h) * self.scale


def dtypes_of(m):
    return sorted({str(t.dtype) for t in m.state_dict().values()})


net = Net().eval()  # inference: BatchNorm uses its running statistics
x = torch.randn(2, 2, 5, 5)
ref = net(x)
w_obj = net.fc.weight
w0 = w_obj.detach().clone()
print("float32:", dtypes_of(net))
net.half()
print("half():", dtypes_of(net), "same Parameter object:", net.fc.weight is w_obj,
      "requires_grad:", net.fc.weight.requires_grad, type(net.fc.weight).__name__)
print("buffers:", {n: str(b.dtype) for n, b in net.named_buffers()})
out16 = net(x.half())
print("fp16 out:", out16.dtype, out16)
print("fp32 out:", ref)
print("max diff:", round((out16.float() - ref).abs().max().item(), 2))
net.bfloat16()
print("bfloat16():", dtypes_of(net))
print("bf16 out:", net(x.bfloat16()))
net.float()
print("float() again:", dtypes_of(net), "weights lost precision:", not torch.equal(net.fc.weight, w0),
      round((net.fc.weight - w0).abs().max().item(), 3))
net.to(torch.float64)
print("to(float64):", dtypes_of(net), net.bn.num_batches_tracked.dtype)
net.to(dtype=torch.float32)
net.to("cpu", torch.bfloat16)
print("to('cpu', bf16):", dtypes_of(net))
for bad in (torch.int32, torch.bool):
    try:
        net.to(bad)
    except TypeError as e:
        print("TypeError:", e)

# float32 checkpoint into a bfloat16 model: load_state_dict copies with a cast
fresh32 = Net()
sd32 = fresh32.state_dict()
model16 = Net().bfloat16()
res = model16.load_state_dict(sd32)
print("load fp32 -> bf16:", res, dtypes_of(model16))
print("fc.weight:", model16.fc.weight[0])
print("from  fp32:", sd32["fc.weight"][0])
buf = io.BytesIO()
torch.save(model16.state_dict(), buf)
buf.seek(0)
loaded = torch.load(buf)
print("saved bf16 checkpoint dtypes:", sorted({str(v.dtype) for v in loaded.values()}))
back32 = Net()
back32.load_state_dict(loaded)
print("bf16 checkpoint -> fp32 model:", dtypes_of(back32), back32.fc.weight[0])
print("rounded twice == once:", torch.equal(back32.fc.weight, sd32["fc.weight"].bfloat16().float()))

# assign=True keeps the checkpoint's dtype instead of casting
model_a = Net()
model_a.load_state_dict(loaded, assign=True)
print("assign=True:", model_a.fc.weight.dtype, type(model_a.fc.weight).__name__, model_a.fc.weight.requires_grad)

# constructing under a bfloat16 default dtype
torch.set_default_dtype(torch.bfloat16)
lin = nn.Linear(4, 2)
print("default bf16:", lin.weight.dtype, torch.tensor([1.5]).dtype, torch.randn(2).dtype, torch.arange(3.0).dtype)
print("python float times int tensor:", (torch.tensor([1, 2]) * 0.5).dtype)
torch.set_default_dtype(torch.float32)
print("restored:", torch.get_default_dtype(), nn.Linear(4, 2).weight.dtype)
try:
    torch.set_default_dtype(torch.int64)
except TypeError as e:
    print("TypeError:", e)

# half a model cast: the first layer whose dtypes meet mismatched fails
mixed = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
mixed[2].half()
print("mixed dtypes:", [str(p.dtype) for p in mixed.parameters()])
try:
    mixed(torch.randn(3, 4))
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("under autocast the mix runs:", mixed(torch.randn(3, 4)).dtype)
conv16 = nn.Conv1d(2, 2, 3).half()
try:
    conv16(torch.randn(1, 2, 5))
except RuntimeError as e:
    print("RuntimeError:", e)

# parameters_to_vector and clip_grad_norm_ over a half model
m = nn.Linear(3, 2).half()
vec = nn.utils.parameters_to_vector(m.parameters())
print("parameters_to_vector:", vec.dtype, vec.shape)
m(torch.randn(4, 3).half()).float().pow(2).sum().backward()
norm = nn.utils.clip_grad_norm_(m.parameters(), 0.1)
print("clip norm dtype:", norm.dtype, "grad dtype:", m.weight.grad.dtype,
      "clipped norm:", round(torch.cat([p.grad.float().flatten() for p in m.parameters()]).norm().item(), 3))
