"""HiFi-GAN's generator as its original repository writes it: torch.nn.utils.weight_norm hooks (weight_g/weight_v)
on ConvTranspose1d and dilated Conv1d, MRF blocks, get_padding, state_dict keys and shapes, remove_weight_norm for
inference, and the errors of removing twice or normalising a dim that does not exist."""

import warnings

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import remove_weight_norm, weight_norm

torch.manual_seed(6)
torch.set_printoptions(precision=4, sci_mode=False)
LRELU_SLOPE = 0.1


def get_padding(kernel_size, dilation=1):
    return int((kernel_size * dilation - dilation) / 2)


def init_weights(m, mean=0.0, std=0.01):
    if m.__class__.__name__.find("Conv") != -1:
        m.weight.data.normal_(mean, std)


class ResBlock1(nn.Module):
    def __init__(self, channels, kernel_size=3, dilation=(1, 3)):
        super().__init__()
        self.convs1 = nn.ModuleList(
            [
                weight_norm(
                    nn.Conv1d(channels, channels, kernel_size, 1, dilation=d, padding=get_padding(kernel_size, d))
                )
                for d in dilation
            ]
        )
        self.convs2 = nn.ModuleList(
            [
                weight_norm(
                    nn.Conv1d(channels, channels, kernel_size, 1, dilation=1, padding=get_padding(kernel_size, 1))
                )
                for _ in dilation
            ]
        )
        self.convs1.apply(init_weights)
        self.convs2.apply(init_weights)

    def forward(self, x):
        for c1, c2 in zip(self.convs1, self.convs2):
            xt = c2(F.leaky_relu(c1(F.leaky_relu(x, LRELU_SLOPE)), LRELU_SLOPE))
            x = xt + x
        return x

    def remove_weight_norm(self):
        for layer in [*self.convs1, *self.convs2]:
            remove_weight_norm(layer)


class Generator(nn.Module):
    def __init__(self, n_mels=5, ch=8, rates=(2, 2), kernels=(4, 4), rb_kernels=(3, 5)):
        super().__init__()
        self.num_kernels = len(rb_kernels)
        self.conv_pre = weight_norm(nn.Conv1d(n_mels, ch, 7, 1, padding=3))
        self.ups = nn.ModuleList()
        for i, (u, k) in enumerate(zip(rates, kernels)):
            self.ups.append(weight_norm(nn.ConvTranspose1d(ch // 2**i, ch // 2 ** (i + 1), k, u, padding=(k - u) // 2)))
        self.resblocks = nn.ModuleList()
        for i in range(len(self.ups)):
            c = ch // 2 ** (i + 1)
            for k in rb_kernels:
                self.resblocks.append(ResBlock1(c, k))
        self.conv_post = weight_norm(nn.Conv1d(c, 1, 7, 1, padding=3))
        self.ups.apply(init_weights)
        self.conv_post.apply(init_weights)

    def forward(self, x):
        x = self.conv_pre(x)
        for i, up in enumerate(self.ups):
            x = up(F.leaky_relu(x, LRELU_SLOPE))
            xs = None
            for j in range(self.num_kernels):
                r = self.resblocks[i * self.num_kernels + j](x)
                xs = r if xs is None else xs + r
            x = xs / self.num_kernels
        return torch.tanh(self.conv_post(F.leaky_relu(x)))

    def remove_weight_norm(self):
        for layer in self.ups:
            remove_weight_norm(layer)
        for block in self.resblocks:
            block.remove_weight_norm()
        remove_weight_norm(self.conv_pre)
        remove_weight_norm(self.conv_post)


with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    g = Generator()
print(len(w), sorted({type(x.message).__name__ for x in w}), str(w[0].message)[:60] if w else None)
sd = g.state_dict()
print(len(sd), [k for k in sd if k.startswith("ups.0")])
print(sd["ups.0.weight_g"].shape, sd["ups.0.weight_v"].shape, sd["conv_pre.weight_g"].shape)
print(g.ups[0].weight_g.flatten().round(decimals=4))
print(
    type(g.ups[0].weight).__name__, g.ups[0].weight.grad_fn is not None, "weight" in dict(g.ups[0].named_parameters())
)
mel = torch.randn(2, 5, 6)
y = g(mel)
print(y.shape, y.abs().max().item() < 1, y[0, 0, :6].detach())
y.pow(2).mean().backward()
print(round(g.ups[0].weight_g.grad.norm().item(), 6), round(g.ups[0].weight_v.grad.norm().item(), 6))
g.eval()
g.remove_weight_norm()
print(len(g.state_dict()), [k for k in g.state_dict() if k.startswith("ups.0")])
print(type(g.ups[0].weight).__name__, g.ups[0].weight.is_leaf)
with torch.no_grad():
    y2 = g(mel)
print(torch.allclose(y, y2, atol=1e-6))
try:
    remove_weight_norm(g.conv_pre)
except ValueError as e:
    print(type(e).__name__, e)
try:
    weight_norm(nn.Linear(3, 4), name="kernel")
except AttributeError as e:
    print(type(e).__name__, e)
lin = weight_norm(nn.Linear(3, 4), dim=None)
print(lin.weight_g.shape, lin.weight_g.item() > 0, lin.weight_v.shape)
lin1 = weight_norm(nn.Linear(3, 4), dim=1)
print(lin1.weight_g.shape, torch.allclose(lin1.weight, lin1.weight_v))
try:
    weight_norm(weight_norm(nn.Linear(2, 2)))
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch._weight_norm(torch.ones(2, 3), torch.tensor([[2.0], [3.0]]), 0))
print(torch.norm_except_dim(torch.arange(6.0).view(2, 3), 2, 1))
