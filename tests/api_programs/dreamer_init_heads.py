"""DreamerV3's network initialisation and heads: fan-avg truncated-normal and orthogonal inits, zero-initialised
output layers (outscale 0), calculate_gain, LayerNorm/RMSNorm with eps 1e-3, and the init functions' refusals."""

import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def fan_avg_trunc_normal_(w, scale=1.0):
    fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(w)
    std = math.sqrt(scale / ((fan_in + fan_out) / 2)) / 0.87962566103423978
    return nn.init.trunc_normal_(w, mean=0.0, std=std, a=-2.0 * std, b=2.0 * std)


class MLP(nn.Module):
    def __init__(self, inp, out, hidden=16, layers=2, outscale=0.0):
        super().__init__()
        mods = []
        for i in range(layers):
            mods += [
                nn.Linear(inp if i == 0 else hidden, hidden, bias=False),
                nn.LayerNorm(hidden, eps=1e-3),
                nn.SiLU(),
            ]
        self.body = nn.Sequential(*mods)
        self.head = nn.Linear(hidden, out)
        self.apply(self._init)
        with torch.no_grad():
            if outscale == 0.0:
                nn.init.zeros_(self.head.weight)
            else:
                fan_avg_trunc_normal_(self.head.weight, outscale)
            nn.init.zeros_(self.head.bias)

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            fan_avg_trunc_normal_(m.weight)
            if m.bias is not None:
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.head(self.body(x))


net = MLP(5, 3)
print(net)
w = net.body[0].weight
std = math.sqrt(1.0 / ((5 + 16) / 2)) / 0.87962566103423978
print(w.shape, bool(w.abs().max() <= 2 * std), net.head.weight.abs().sum(), net.head.weight.requires_grad)
print(net(torch.randn(2, 5)), net.body[1].weight[:3], net.body[1].eps)
print(
    nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 2, 2)),
    nn.init._calculate_correct_fan(torch.empty(4, 3), "fan_out"),
)
for name in ["linear", "conv2d", "sigmoid", "tanh", "relu", "selu"]:
    print(name, round(nn.init.calculate_gain(name), 4))
print(nn.init.calculate_gain("leaky_relu"), nn.init.calculate_gain("leaky_relu", 0.2))
q = nn.init.orthogonal_(torch.empty(3, 5), gain=2.0)
print((q @ q.T).round(decimals=4), q.shape)
q4 = nn.init.orthogonal_(torch.empty(2, 3, 2, 2))
print(q4.reshape(2, -1).matmul(q4.reshape(2, -1).T).round(decimals=4))
g = torch.Generator().manual_seed(7)
a = nn.init.trunc_normal_(torch.empty(4), generator=g)
b = nn.init.trunc_normal_(torch.empty(4), generator=torch.Generator().manual_seed(7))
print(torch.equal(a, b), a.abs().max() <= 2)
t = nn.init.trunc_normal_(torch.empty(20000), mean=0.0, std=1.0, a=-0.5, b=0.5)
print(bool(t.abs().max() <= 0.5), round(t.std().item(), 2))
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    nn.init.trunc_normal_(torch.empty(3), mean=5.0, std=1.0, a=-2.0, b=2.0)
    print([(x.category.__name__, str(x.message)) for x in ws])
for bad in [
    lambda: nn.init.orthogonal_(torch.empty(3)),
    lambda: nn.init._calculate_fan_in_and_fan_out(torch.empty(3)),
    lambda: nn.init.calculate_gain("swish"),
    lambda: nn.init.calculate_gain("leaky_relu", "a"),
    lambda: nn.init.kaiming_uniform_(torch.empty(3, 4), mode="fan_avg"),
    lambda: nn.init.sparse_(torch.empty(2, 3, 4), 0.5),
    lambda: nn.init.eye_(torch.empty(2, 3, 4)),
    lambda: nn.init.dirac_(torch.empty(2, 3)),
]:
    try:
        bad()
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    nn.init.xavier_uniform_(torch.empty(0, 3))
    nn.init.kaiming_normal_(torch.empty(0, 3))
    print([(x.category.__name__, str(x.message)) for x in ws])
print(nn.init.zeros_(torch.empty(2, dtype=torch.int64)), nn.init.ones_(torch.empty(2, dtype=torch.bool)))
print(nn.init.constant_(torch.empty(2, dtype=torch.float16), 1 / 3), nn.init.eye_(torch.empty(2, 3)))

# RMSNorm / LayerNorm heads
rms = nn.RMSNorm(4, eps=1e-3)
x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0]])
print(rms, rms(x), F.rms_norm(x, (4,)))
print(nn.RMSNorm(4).eps, nn.RMSNorm([2, 2], elementwise_affine=False))
print(F.layer_norm(x, (4,), eps=1e-3), F.layer_norm(x.double(), (4,)).dtype)
try:
    F.layer_norm(x, (3,))
except RuntimeError as e:
    print("RuntimeError", e)
