"""Gradient layouts in a channels_last training step, as performance-minded library code inspects them: the
strides of input and weight gradients through conv2d, batch_norm, relu, max/avg/adaptive pooling, interpolate,
cat and add (residual), of .grad on channels_last parameters, grads of a permuted NHWC view, and the values against
the NCHW run; plus optimizer state layouts (SGD momentum, Adam exp_avg) following the parameters."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
CL = torch.channels_last


def lay(t):
    return f"{tuple(t.shape)} {t.stride()} cl={t.is_contiguous(memory_format=CL)}" if t.dim() == 4 else \
        f"{tuple(t.shape)} {t.stride()}"


def grad_of(name, fn, x):
    xg = x.detach().clone().requires_grad_(True)
    y = fn(xg)
    y.backward(torch.ones_like(y))
    print(f"{name:22s} out {lay(y)} | grad {lay(xg.grad)} | abs sum {xg.grad.abs().sum().item():.2f}")


x = torch.randn(2, 3, 8, 8)
xc = x.contiguous(memory_format=CL)
w = torch.randn(4, 3, 3, 3)
for name, inp in [("nchw", x), ("nhwc", xc)]:
    print(f"== input {name}: {lay(inp)}")
    grad_of("conv2d", lambda t: F.conv2d(t, w, padding=1), inp)
    grad_of("batch_norm", lambda t: F.batch_norm(t, None, None, training=True), inp)
    grad_of("relu", torch.relu, inp)
    grad_of("max_pool2d", lambda t: F.max_pool2d(t, 2), inp)
    grad_of("avg_pool2d", lambda t: F.avg_pool2d(t, 2), inp)
    grad_of("adaptive_avg_pool2d", lambda t: F.adaptive_avg_pool2d(t, 3), inp)
    grad_of("interpolate nearest", lambda t: F.interpolate(t, scale_factor=2), inp)
    grad_of("interpolate bilinear", lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"), inp)
    grad_of("cat", lambda t: torch.cat([t, t * 2], 1), inp)
    grad_of("residual add", lambda t: t + torch.relu(t), inp)
    grad_of("mul by nchw", lambda t: t * x, inp)
    grad_of("sum(1, keepdim)", lambda t: t.sum(1, keepdim=True), inp)

# weight gradients and a training step with channels_last parameters
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(8, 4, 3, padding=1))
ref = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(8, 4, 3, padding=1))
ref.load_state_dict(net.state_dict())
net = net.to(memory_format=CL)
print("conv0 weight:", lay(net[0].weight), "bias:", net[0].bias.stride())
loss = net(xc).square().mean()
loss.backward()
loss_ref = ref(x).square().mean()
loss_ref.backward()
print("loss:", round(loss.item(), 4), "ref:", round(loss_ref.item(), 4))
for (n, p), (_, q) in zip(net.named_parameters(), ref.named_parameters()):
    print(f"{n:10s} grad {lay(p.grad)} agrees={torch.allclose(p.grad, q.grad, atol=1e-5)}")
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
opt.step()
print("momentum buffer:", lay(opt.state[net[0].weight]["momentum_buffer"]))
print("weight after step:", lay(net[0].weight))
adam = torch.optim.Adam(net.parameters(), lr=1e-3)
net(xc).sum().backward()
adam.step()
st = adam.state[net[4].weight]
print("adam exp_avg:", lay(st["exp_avg"]), "exp_avg_sq:", lay(st["exp_avg_sq"]))
print("zero_grad sets None:", net[0].weight.grad is None if (opt.zero_grad() or True) else None)

# gradient of a permuted NHWC view
h = torch.randn(2, 4, 4, 3, requires_grad=True)  # NHWC storage
v = h.permute(0, 3, 1, 2)
print("permuted view:", lay(v))
y = F.conv2d(v, torch.randn(5, 3, 1, 1))
y.sum().backward()
print("grad of NHWC leaf:", tuple(h.grad.shape), h.grad.stride(), round(h.grad.sum().item(), 4))
