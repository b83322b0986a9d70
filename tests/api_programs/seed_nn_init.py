"""nn.init under a seed, as model code applies it: every initializer on fresh tensors (xavier, kaiming with
modes and nonlinearities, orthogonal, trunc_normal_, sparse_, eye_, dirac_, constants), gains, fan
computation, a custom `_init_weights` hook applied with Module.apply, and the activations' scale it gives."""
import math

import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)


def st(name, t):
    t = t.detach()
    print(f"{name:<26} mean={t.mean().item():.4f} std={t.std().item():.4f} "
          f"absmax={t.abs().max().item():.4f} head={[round(v, 4) for v in t.flatten()[:3].tolist()]}")


torch.manual_seed(31)
w = torch.empty(64, 32)
st("uniform_", nn.init.uniform_(w.clone(), -0.1, 0.1))
st("normal_", nn.init.normal_(w.clone(), 0.0, 0.05))
st("xavier_uniform_", nn.init.xavier_uniform_(w.clone()))
st("xavier_uniform_ tanh", nn.init.xavier_uniform_(w.clone(), gain=nn.init.calculate_gain("tanh")))
st("xavier_normal_", nn.init.xavier_normal_(w.clone()))
st("kaiming_uniform_", nn.init.kaiming_uniform_(w.clone()))
st("kaiming_uniform_ a=sqrt5", nn.init.kaiming_uniform_(w.clone(), a=math.sqrt(5)))
st("kaiming_normal_ fan_out", nn.init.kaiming_normal_(w.clone(), mode="fan_out", nonlinearity="relu"))
st("kaiming_normal_ leaky", nn.init.kaiming_normal_(w.clone(), a=0.2, nonlinearity="leaky_relu"))
st("trunc_normal_", nn.init.trunc_normal_(w.clone(), std=0.02))
st("trunc_normal_ [-1,2]", nn.init.trunc_normal_(w.clone(), mean=0.5, std=1.0, a=-1.0, b=2.0))
st("orthogonal_", nn.init.orthogonal_(w.clone()))
st("orthogonal_ gain2", nn.init.orthogonal_(torch.empty(16, 40), gain=2.0))
sp = nn.init.sparse_(torch.empty(10, 6), sparsity=0.3, std=0.01)
print("sparse_ zeros per column", (sp == 0).sum(0).tolist())
st("sparse_", sp)
print("eye_", nn.init.eye_(torch.empty(3, 4)))
dirac = nn.init.dirac_(torch.empty(4, 2, 3), groups=2)
print("dirac_ center taps", dirac[:, :, 1])
print("constant_", nn.init.constant_(torch.empty(2, 3), 0.25))
print("ones_/zeros_", nn.init.ones_(torch.empty(3)).tolist(), nn.init.zeros_(torch.empty(2)).tolist())

print("gains", [round(nn.init.calculate_gain(n), 4) for n in ("linear", "sigmoid", "tanh", "relu", "selu")],
      round(nn.init.calculate_gain("leaky_relu", 0.1), 4))
q = nn.init.orthogonal_(torch.empty(6, 6))
print("orthogonality error", round((q @ q.T - torch.eye(6)).abs().max().item(), 4))
w64 = nn.init.orthogonal_(torch.empty(5, 3, dtype=torch.float64))
print("orthogonal f64", w64.dtype, round((w64.T @ w64 - torch.eye(3, dtype=torch.float64)).abs().max().item(), 4))
print("kaiming f64", nn.init.kaiming_uniform_(torch.empty(2, 3, dtype=torch.float64)))
print("conv fan", nn.init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)))
print("trunc_normal bounds", nn.init.trunc_normal_(torch.empty(1000), a=-0.5, b=0.5).abs().max().item() <= 0.5)

g = torch.Generator().manual_seed(99)
print("uniform_ generator", nn.init.uniform_(torch.empty(4), generator=g))
print("normal_ generator", nn.init.normal_(torch.empty(3), generator=g))
print("xavier generator", nn.init.xavier_normal_(torch.empty(2, 2), generator=g))


class MLP(nn.Module):
    def __init__(self, depth, width, act):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), act()]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def init_scheme(scheme):
    def fn(m):
        if isinstance(m, nn.Linear):
            if scheme == "xavier":
                nn.init.xavier_uniform_(m.weight)
            elif scheme == "kaiming":
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif scheme == "orthogonal":
                nn.init.orthogonal_(m.weight, gain=nn.init.calculate_gain("relu"))
            elif scheme == "small":
                nn.init.normal_(m.weight, std=0.01)
            nn.init.zeros_(m.bias)
    return fn


for scheme in ("default", "xavier", "kaiming", "orthogonal", "small"):
    torch.manual_seed(0)
    model = MLP(8, 64, nn.ReLU)
    if scheme != "default":
        model.apply(init_scheme(scheme))
    x = torch.randn(256, 64)
    stds = []
    h = x
    for layer in model.net:
        h = layer(h)
        if isinstance(layer, nn.ReLU):
            stds.append(h.std().item())
    out = h.sum()
    out.backward()
    gnorm = math.log(model.net[0].weight.grad.norm().item())
    print(f"{scheme:<10} act std first={stds[0]:.4f} last={stds[-1]:.4f} log_grad0={gnorm:.4f}")

torch.manual_seed(3)
conv = nn.Conv2d(3, 8, 3)
nn.init.kaiming_normal_(conv.weight, mode="fan_out", nonlinearity="relu")
nn.init.constant_(conv.bias, 0.1)
st("conv kaiming fan_out", conv.weight)
emb = nn.Embedding(50, 16)
nn.init.trunc_normal_(emb.weight, std=0.02, a=-0.04, b=0.04)
st("emb trunc", emb.weight)
lstm = nn.LSTM(8, 16)
for name, p in lstm.named_parameters():
    if "weight_hh" in name:
        nn.init.orthogonal_(p)
    elif "weight_ih" in name:
        nn.init.xavier_uniform_(p)
    else:
        nn.init.zeros_(p)
        p.data[16:32].fill_(1.0)
st("lstm weight_hh", lstm.weight_hh_l0)
print("lstm forget bias", lstm.bias_ih_l0[14:18].tolist())
out, _ = lstm(torch.randn(5, 2, 8))
print("lstm out", round(out.abs().mean().item(), 4))
with torch.no_grad():
    reset = nn.Linear(4, 3)
    before = reset.weight.clone()
    reset.reset_parameters()
print("reset changed", not torch.equal(before, reset.weight), round(reset.weight.sum().item(), 4))
