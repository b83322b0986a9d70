"""channels_last_3d through a video network: memory-format propagation of Conv3d, BatchNorm3d, pooling,
elementwise ops with mixed layouts, cat, .to(memory_format=...), *_like factories, strides and contiguity flags."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
CL = torch.channels_last_3d

x = torch.randn(2, 3, 4, 5, 6)
xc = x.to(memory_format=CL)
print("strides", x.stride(), xc.stride(), xc.is_contiguous(), xc.is_contiguous(memory_format=CL))
print("same values", torch.equal(x, xc), xc.data_ptr() != x.data_ptr())
print("contiguous(cl) of cl is self", xc.contiguous(memory_format=CL) is xc, xc.contiguous() is xc)

for name, fn in [
    ("empty_like", torch.empty_like),
    ("zeros_like", torch.zeros_like),
    ("ones_like", torch.ones_like),
    ("rand_like", torch.rand_like),
]:
    print(
        name, fn(xc).stride(), fn(xc, memory_format=torch.contiguous_format).stride(), fn(x, memory_format=CL).stride()
    )
print("clone", xc.clone().stride(), xc.clone(memory_format=torch.contiguous_format).stride())

model = nn.Sequential(
    nn.Conv3d(3, 8, 3, padding=1),
    nn.BatchNorm3d(8),
    nn.ReLU(),
    nn.MaxPool3d(2),
    nn.Conv3d(8, 4, 1),
    nn.AdaptiveAvgPool3d(1),
)
ref = model(x)
model = model.to(memory_format=CL)
print("conv weight", model[0].weight.stride(), model[0].weight.is_contiguous(memory_format=CL))
h = xc
for i, layer in enumerate(model):
    h = layer(h)
    print(i, type(layer).__name__, tuple(h.shape), h.stride(), h.is_contiguous(memory_format=CL))
print("same result", torch.allclose(h, ref, atol=1e-5))

a = torch.randn(2, 3, 4, 5, 6)
for tag, y in [
    ("cl+cont", xc + a),
    ("cont+cl", a + xc),
    ("cl*scalar", xc * 2),
    ("relu", F.relu(xc)),
    ("sigmoid_", xc.clone().sigmoid_()),
    ("where", torch.where(xc > 0, xc, a)),
    ("cat dim1", torch.cat([xc, xc], 1)),
    ("cat mixed", torch.cat([xc, a], 1)),
    ("cat dim2", torch.cat([xc, xc], 2)),
    ("permute", xc.permute(0, 2, 1, 3, 4)),
    ("sum dim2", xc.sum(2, keepdim=True)),
    ("mean hw", xc.mean((3, 4), keepdim=True)),
    ("bn3d func", F.batch_norm(xc, torch.zeros(3), torch.ones(3), training=False)),
    ("avgpool", F.avg_pool3d(xc, 2)),
    ("interp", F.interpolate(xc, scale_factor=(1, 2, 2))),
    ("to double", xc.double()),
    ("type_as", xc.type_as(torch.zeros(1, dtype=torch.float64))),
    ("gn", F.group_norm(xc, 3)),
]:
    print(tag, y.stride(), y.is_contiguous(), y.is_contiguous(memory_format=CL))

xg = torch.randn(2, 3, 4, 5, 6).to(memory_format=CL).requires_grad_()
out = F.conv3d(xg, torch.randn(2, 3, 1, 1, 1))
out.sum().backward()
print("grad stride", xg.grad.stride(), out.stride())
print("view error?", xc.is_contiguous())
for bad in [
    lambda: xc.view(2, -1),
    lambda: torch.randn(2, 3, 4, 5).to(memory_format=CL),
    lambda: torch.randn(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last),
]:
    try:
        r = bad()
        print("ok", r.stride())
    except Exception as e:
        print(type(e).__name__, e)
print("reshape", xc.reshape(2, -1).stride(), xc.flatten(2).stride())
