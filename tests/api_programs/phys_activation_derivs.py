"""Higher derivatives of the activations PINNs use: u, u', u'', u''' of tanh, sigmoid, SiLU, GELU (both forms),
softplus with beta/threshold, Mish, ELU/CELU/SELU, sin, softsign, Tanhshrink, logsigmoid and a few special functions,
by repeated autograd.grad(create_graph=True) in float64, checked by finite differences, with the backward nodes'
names that each order creates."""

import torch

nn = torch.nn
F = torch.nn.functional
x0 = torch.tensor([-2.5, -0.7, 0.0, 0.3, 1.1, 3.0], dtype=torch.float64)

acts = {
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "silu": F.silu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "softplus_b2": lambda x: F.softplus(x, beta=2.0, threshold=5.0),
    "mish": F.mish,
    "elu": lambda x: F.elu(x, alpha=0.8),
    "celu": lambda x: F.celu(x, alpha=1.5),
    "selu": F.selu,
    "sin": torch.sin,
    "softsign": F.softsign,
    "tanhshrink": F.tanhshrink,
    "logsigmoid": F.logsigmoid,
    "erf": torch.erf,
    "atan": torch.atan,
    "sinc": torch.sinc,
    "log1p_exp": lambda x: torch.log1p(torch.exp(x)),
    "xlogy": lambda x: torch.special.xlogy(x, x * x + 1),
    "exp2": torch.exp2,
}
# ember's higher-order graphs differ here (MulBackward1 of C++ scalar products; recomputed double backwards)
NODES_DIFFER = {"gelu_tanh", "softplus_b2", "erf", "sinc", "exp2"}


def derivs(f, x, order=3):
    x = x.clone().requires_grad_()
    out = [f(x)]
    names = []
    for _ in range(order):
        g = torch.autograd.grad(out[-1].sum(), x, create_graph=True)[0]
        names.append(g.grad_fn.name() if g.grad_fn is not None else None)
        out.append(g)
    return out, names


for name, f in acts.items():
    ds, names = derivs(f, x0)
    print(name, [round(v, 4) for v in ds[1].tolist()])
    print("  d2", [round(v, 4) for v in ds[2].tolist()])
    print("  d3", [round(v, 4) for v in ds[3].tolist()])
    if name not in NODES_DIFFER:
        print("  nodes", names)
    h = 1e-4
    d1_fd = (f(x0 + h) - f(x0 - h)) / (2 * h)
    d2_fd = (f(x0 + h) - 2 * f(x0) + f(x0 - h)) / h ** 2
    ok1 = torch.allclose(ds[1], d1_fd, atol=1e-6)
    mask = x0 != 0  # ELU-type kinks at zero
    ok2 = torch.allclose(ds[2][mask], d2_fd[mask], atol=1e-4)
    print("  fd", ok1, ok2)

# modules carry the same functions; their reprs
mods = [nn.Softplus(beta=2.0, threshold=5.0), nn.GELU(approximate="tanh"), nn.ELU(alpha=0.8), nn.CELU(1.5),
        nn.SiLU(), nn.Mish(), nn.Tanhshrink(), nn.Softsign(), nn.LogSigmoid(), nn.SELU(inplace=False)]
for m in mods:
    print(repr(m), round(m(x0).sum().item(), 4))
try:
    F.gelu(x0, approximate="fast")
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.CELU(alpha=0.0)(x0)
except Exception as e:
    print(type(e).__name__, e)
