"""Temporal Shift Module (Lin et al.): shift a fraction of channels along time with slicing, torch.roll and
narrow, in-place and residual variants inside a ResNet block, and the gradient that flows back through the shift."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def shift_slices(x, n_segment, fold_div=4):
    nt, c, h, w = x.shape
    x = x.view(nt // n_segment, n_segment, c, h, w)
    fold = c // fold_div
    out = torch.zeros_like(x)
    out[:, :-1, :fold] = x[:, 1:, :fold]
    out[:, 1:, fold : 2 * fold] = x[:, :-1, fold : 2 * fold]
    out[:, :, 2 * fold :] = x[:, :, 2 * fold :]
    return out.view(nt, c, h, w)


def shift_roll(x, n_segment, fold_div=4):
    nt, c, h, w = x.shape
    x = x.view(-1, n_segment, c, h, w)
    fold = c // fold_div
    left = torch.roll(x.narrow(2, 0, fold), shifts=-1, dims=1)
    right = torch.roll(x.narrow(2, fold, fold), shifts=1, dims=1)
    left[:, -1] = 0
    right[:, 0] = 0
    return torch.cat([left, right, x.narrow(2, 2 * fold, c - 2 * fold)], dim=2).view(nt, c, h, w)


def shift_inplace(x, n_segment, fold_div=4):
    nt, c, h, w = x.shape
    v = x.view(-1, n_segment, c, h, w)
    fold = c // fold_div
    v[:, :-1, :fold] = v[:, 1:, :fold].clone()
    v[:, -1, :fold] = 0
    v[:, 1:, fold : 2 * fold] = v[:, :-1, fold : 2 * fold].clone()
    v[:, 0, fold : 2 * fold] = 0
    return x


x = torch.arange(2 * 4 * 8, dtype=torch.float32).reshape(8, 8, 1, 1)
a = shift_slices(x, 4)
b = shift_roll(x, 4)
print("equal", torch.equal(a, b), a.shape)
print("clip0 ch0", a.view(2, 4, 8)[0, :, 0].tolist(), "ch2", a.view(2, 4, 8)[0, :, 2].tolist())
print("clip1 t0", a.view(2, 4, 8)[1, 0].tolist())
c = shift_inplace(x.clone(), 4)
print("inplace equal", torch.equal(a, c))
print(
    "roll flat",
    torch.roll(torch.arange(6), 2).tolist(),
    torch.roll(torch.arange(6).view(2, 3), (1, -1), (0, 1)).tolist(),
)
print("roll no dims", torch.roll(torch.arange(6).view(2, 3), 1).tolist())
print("narrow neg", torch.arange(10).narrow(0, -3, 2).tolist(), torch.arange(10).narrow(0, torch.tensor(2), 3).tolist())


class TemporalShift(nn.Module):
    def __init__(self, net, n_segment=4, n_div=8):
        super().__init__()
        self.net, self.n_segment, self.fold_div = net, n_segment, n_div

    def forward(self, x):
        return self.net(shift_roll(x, self.n_segment, self.fold_div))

    def extra_repr(self):
        return f"n_segment={self.n_segment}, fold_div={self.fold_div}"


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = TemporalShift(nn.Conv2d(c, c, 3, padding=1, bias=False), 4, 8)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))))


blk = Block(16)
print(blk)
frames = torch.randn(2 * 4, 16, 6, 6, requires_grad=True)
y = blk(frames)
print("block", tuple(y.shape), round(y.mean().item(), 4), round(y.std().item(), 4))
y[:4].sum().backward()
g = frames.grad.view(2, 4, 16, 6, 6).abs().sum(dim=(2, 3, 4))
print("clip-local grads", (g[1] == 0).all().item(), (g[0] > 0).all().item())

z = torch.arange(24.0).view(1, 4, 6, 1, 1).requires_grad_()
s = shift_roll(z.view(4, 6, 1, 1), 4, 3)
(s * torch.arange(1.0, 25.0).view(4, 6, 1, 1)).sum().backward()
print("shift grad", z.grad.view(4, 6).tolist())
print("grad_fn", type(s.grad_fn).__name__, type(s.grad_fn.next_functions[0][0]).__name__)

try:
    shift_roll(torch.randn(6, 8, 2, 2), 4)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.roll(torch.arange(6).view(2, 3), (1, 2), (0,))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.arange(10).narrow(0, 8, 5)
except Exception as e:
    print(type(e).__name__, e)
try:
    leaf = torch.randn(4, 8, 1, 1, requires_grad=True)
    shift_inplace(leaf, 4)
except Exception as e:
    print(type(e).__name__, e)
