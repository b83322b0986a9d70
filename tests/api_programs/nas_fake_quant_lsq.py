"""Quantization-aware training as QAT research code writes it: per-tensor and per-channel fake quantization of
weights and activations with min/max and moving-average observers, the straight-through gradient mask, LSQ with
learnable scale and zero point through torch._fake_quantize_learnable_*, float zero points per channel, and the
errors PyTorch raises for bad qparams."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def qparams(lo, hi, qmin=-128, qmax=127, symmetric=False):
    lo, hi = torch.clamp(lo, max=0.0), torch.clamp(hi, min=0.0)
    if symmetric:
        scale = torch.maximum(-lo, hi) / ((qmax - qmin) / 2)
        zp = torch.zeros_like(scale, dtype=torch.int32)
    else:
        scale = (hi - lo) / float(qmax - qmin)
        zp = (qmin - torch.round(lo / scale)).clamp(qmin, qmax).to(torch.int32)
    return torch.clamp(scale, min=1e-8), zp


w = torch.randn(4, 6) * torch.tensor([0.1, 0.5, 1.0, 2.0]).unsqueeze(1)
s, z = qparams(w.min(), w.max())
wq = torch.fake_quantize_per_tensor_affine(w, s, z, -128, 127)
print("per-tensor", round(s.item(), 6), z.item(), round((wq - w).abs().max().item(), 5), wq.grad_fn)
sc, zc = qparams(w.amin(1), w.amax(1), symmetric=True)
wc = torch.fake_quantize_per_channel_affine(w, sc, zc, 0, -128, 127)
print("per-channel err", (wc - w).abs().amax(1).round(decimals=5).tolist(), zc.dtype)
print("channel err smaller", bool(((wc - w).abs().amax(1) <= (wq - w).abs().amax(1) + 1e-6).all()))
w4 = torch.fake_quantize_per_channel_affine(w, sc * 16, zc, 0, -8, 7)
print("int4 distinct per row", [len(torch.unique(r)) for r in w4])
x = torch.linspace(-2, 2, 9, requires_grad=True)
y = torch.fake_quantize_per_tensor_affine(x, 0.25, 2, -4, 3)
y.backward(torch.ones(9))
print("ste", y.tolist(), x.grad.tolist())
xf, sf, zf = torch.tensor([[0.31, -0.42], [1.1, 0.05]]), torch.tensor([0.1, 0.2]), torch.tensor([0.5, -1.25])
print("float zp per channel", torch.fake_quantize_per_channel_affine(xf, sf, zf, 0, -8, 7).tolist())
print("uint8", torch.fake_quantize_per_tensor_affine(torch.tensor([-0.3, 0.0, 0.7, 3.0]), 0.01, 30, 0, 255).tolist())
print("double", torch.fake_quantize_per_tensor_affine(x.detach().double(), 0.3, 0, -4, 4).dtype)


class MovingAvgObserver(nn.Module):
    def __init__(self, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))

    def forward(self, x):
        lo, hi = x.detach().min(), x.detach().max()
        if torch.isinf(self.min_val):
            self.min_val.copy_(lo)
            self.max_val.copy_(hi)
        else:
            self.min_val.lerp_(lo, self.momentum)
            self.max_val.lerp_(hi, self.momentum)
        return x


class LSQLinear(nn.Linear):
    def __init__(self, i, o, bits=4):
        super().__init__(i, o)
        self.qmin, self.qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        init = self.weight.detach().abs().mean(1) * 2 / self.qmax ** 0.5
        self.w_scale = nn.Parameter(init)
        self.w_zp = nn.Parameter(torch.zeros(o))
        self.a_scale = nn.Parameter(torch.tensor([0.1]))
        self.a_zp = nn.Parameter(torch.tensor([0.0]))
        self.obs = MovingAvgObserver()

    def forward(self, x):
        self.obs(x)
        g_w = 1.0 / (self.weight.numel() * self.qmax) ** 0.5
        wq = torch._fake_quantize_learnable_per_channel_affine(self.weight, self.w_scale, self.w_zp, 0, self.qmin,
                                                               self.qmax, g_w)
        xq = torch._fake_quantize_learnable_per_tensor_affine(x, self.a_scale, self.a_zp, 0, 255, 1.0 / 8 ** 0.5)
        return F.linear(xq, wq, self.bias)


torch.manual_seed(1)
net = nn.Sequential(LSQLinear(6, 8), nn.ReLU(), LSQLinear(8, 3))
X, Y = torch.randn(32, 6).abs(), torch.randint(0, 3, (32,))
qparams_ = [p for n, p in net.named_parameters() if "scale" in n or "_zp" in n]
weights = [p for n, p in net.named_parameters() if not ("scale" in n or "_zp" in n)]
opt = torch.optim.Adam([{"params": weights}, {"params": qparams_, "lr": 1e-3}], lr=0.01)
for step in range(6):
    out = net(X)
    loss = F.cross_entropy(out, Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), net[0].a_scale.detach().round(decimals=5).tolist(),
          round(net[0].w_scale.grad.abs().sum().item(), 5), round(net[0].a_zp.grad.item(), 5))
print("grad_fn", type(out.grad_fn).__name__, out.grad_fn.next_functions[1][0].name())
print("observer", round(net[0].obs.min_val.item(), 4), round(net[0].obs.max_val.item(), 4))
print("w_scale", net[2].w_scale.detach().round(decimals=4).tolist())
print("state", [k for k in net.state_dict() if k.startswith("0.")])

bad = [lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, -5),
       lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 9, -4, 3),
       lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 0.0, -4, 3),
       lambda: torch.fake_quantize_per_tensor_affine(torch.arange(3), 0.1, 0, -4, 3),
       lambda: torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.1, requires_grad=True), torch.tensor(0), -4, 3),
       lambda: torch.fake_quantize_per_channel_affine(w, sc.double(), zc, 0, -8, 7),
       lambda: torch.fake_quantize_per_channel_affine(w, sc, zc.long(), 0, -8, 7),
       lambda: torch.fake_quantize_per_channel_affine(w, sc, zc, 1, -8, 7),
       lambda: torch.fake_quantize_per_channel_affine(w, sc, zc, 2, -8, 7),
       lambda: torch.fake_quantize_per_channel_affine(w, sc.view(4, 1), zc, 0, -8, 7),
       lambda: torch.fake_quantize_per_channel_affine(w, sc, zc + 100, 0, -8, 7),
       lambda: torch._fake_quantize_learnable_per_tensor_affine(x, torch.tensor(0.1), torch.tensor(0.0), 0, 9)]
for call in bad:
    try:
        call()
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)
