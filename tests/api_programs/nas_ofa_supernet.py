"""Once-for-all style weight sharing: one 7x7 supernet kernel serving 5x5 and 3x3 subnets through centre crops
with learned transformation matrices, elastic width by narrow on the output and input channels through
F.conv2d, sliced BatchNorm statistics through F.batch_norm, and the gradient each subnet leaves on the shared
weight."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class DynamicConv(nn.Module):
    def __init__(self, cin, cout, kernel_sizes=(3, 5, 7)):
        super().__init__()
        self.kernel_sizes = sorted(kernel_sizes)
        kmax = self.kernel_sizes[-1]
        self.weight = nn.Parameter(torch.randn(cout, cin, kmax, kmax) * 0.1)
        for small, big in zip(self.kernel_sizes[:-1], self.kernel_sizes[1:]):
            self.register_parameter(f"{big}to{small}", nn.Parameter(torch.eye(small * small)))
        self.active_kernel, self.active_out = kmax, cout

    def get_weight(self, cin):
        kmax = self.kernel_sizes[-1]
        w = self.weight.narrow(0, 0, self.active_out).narrow(1, 0, cin)
        for big in sorted(self.kernel_sizes, reverse=True)[:-1]:
            small = self.kernel_sizes[self.kernel_sizes.index(big) - 1]
            if small < self.active_kernel:
                break
            start = (kmax - small) // 2
            w = w[:, :, start:start + small, start:start + small].contiguous()
            mat = getattr(self, f"{big}to{small}")
            w = F.linear(w.reshape(w.size(0), w.size(1), -1), mat).view(w.size(0), w.size(1), small, small)
            kmax = small
        return w

    def forward(self, x):
        w = self.get_weight(x.size(1))
        return F.conv2d(x, w, padding=self.active_kernel // 2)


class DynamicBN(nn.BatchNorm2d):
    def forward(self, x):
        c = x.size(1)
        return F.batch_norm(x, self.running_mean[:c], self.running_var[:c], self.weight[:c], self.bias[:c],
                            self.training, self.momentum, self.eps)


conv = DynamicConv(3, 8)
bn = DynamicBN(8)
print([n for n, _ in conv.named_parameters()], tuple(conv.get_weight(3).shape))
x = torch.randn(2, 3, 9, 9)
for k, width in [(7, 8), (5, 6), (3, 4)]:
    conv.active_kernel, conv.active_out = k, width
    w = conv.get_weight(3)
    y = bn(conv(x))
    print("k", k, "w", width, tuple(w.shape), w.is_contiguous(), tuple(y.shape), round(y.mean().item(), 4),
          round(y.std().item(), 4))
print("running_mean", bn.running_mean.round(decimals=4).tolist())
print("num_batches_tracked", bn.num_batches_tracked.item())

# centre crop equals slicing the 7x7 kernel when the transforms are identity
conv.active_kernel, conv.active_out = 3, 8
direct = conv.weight[:, :, 2:5, 2:5]
print("identity transform crop", torch.allclose(conv.get_weight(3), direct))

# gradients of each subnet land on the shared weight's used slice only
conv.zero_grad(set_to_none=True)
conv.active_kernel, conv.active_out = 3, 4
conv(x[:, :2]).pow(2).sum().backward()
g = conv.weight.grad
print("grad grad_fn-free", g.grad_fn is None, "nonzero rows", (g.abs().sum((1, 2, 3)) > 0).tolist())
print("nonzero in", (g.abs().sum((0, 2, 3)) > 0).tolist(), "spatial", (g.abs().sum((0, 1)) > 0).int().tolist()[1])
print("transform grads", conv._parameters["7to5"].grad is not None, tuple(conv._parameters["5to3"].grad.shape))

# progressive shrinking: sample subnets, accumulate gradients from several in one step
opt = torch.optim.SGD(list(conv.parameters()) + list(bn.parameters()), lr=0.05, momentum=0.9)
target = torch.randn(2, 8, 9, 9)
for step in range(4):
    opt.zero_grad()
    total = 0.0
    for k, width in [(7, 8), (5, 8), (3, 6)]:
        conv.active_kernel, conv.active_out = k, width
        out = bn(conv(x))
        loss = F.mse_loss(out, target[:, :width])
        loss.backward()
        total += loss.item()
    opt.step()
    print("step", step, round(total, 4))

bn.eval()
conv.active_kernel, conv.active_out = 5, 6
y = bn(conv(x))
print("eval subnet", tuple(y.shape), round(y.abs().sum().item(), 3))
sub = nn.Conv2d(3, 6, 5, padding=2, bias=False)
with torch.no_grad():
    sub.weight.copy_(conv.get_weight(3))
print("extracted subnet matches", torch.allclose(sub(x), conv(x), atol=1e-6))
try:
    conv.weight.narrow(0, 4, 8)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.conv2d(x, conv.weight[:, :2], padding=3)
except Exception as e:
    print(type(e).__name__, e)
