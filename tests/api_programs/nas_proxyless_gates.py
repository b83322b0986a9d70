"""ProxylessNAS binary gates: two candidate paths sampled by torch.multinomial from the path probabilities, a
straight-through binary gate whose gradient is rescaled onto the two sampled architecture parameters, an expected
latency from a lookup table as a differentiable regulariser, and the final argmax architecture."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
LUT = {"mb3_e3": 1.2, "mb3_e6": 2.1, "mb5_e3": 1.7, "mb5_e6": 3.0, "zero": 0.0}


class MBConv(nn.Module):
    def __init__(self, c, k, e):
        super().__init__()
        h = c * e
        self.body = nn.Sequential(nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(inplace=True),
                                  nn.Conv2d(h, h, k, padding=k // 2, groups=h, bias=False), nn.BatchNorm2d(h),
                                  nn.ReLU6(inplace=True), nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return x + self.body(x)


class ZeroLayer(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)


class MixedEdge(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.names = list(LUT)
        self.candidates = nn.ModuleList([MBConv(c, 3, 3), MBConv(c, 3, 6), MBConv(c, 5, 3), MBConv(c, 5, 6),
                                         ZeroLayer()])
        self.AP_path_alpha = nn.Parameter(torch.zeros(len(self.candidates)))
        self.AP_path_wb = nn.Parameter(torch.zeros(len(self.candidates)))
        self.active = None

    @property
    def probs(self):
        return F.softmax(self.AP_path_alpha, dim=0)

    def binarize(self):
        self.AP_path_wb.data.zero_()
        sample = torch.multinomial(self.probs.detach(), 2, replacement=False)
        sub = F.softmax(self.AP_path_alpha[sample].detach(), dim=0)
        pick = int(torch.multinomial(sub, 1)[0])
        self.active = (sample.tolist(), pick)
        self.AP_path_wb.data[sample[pick]] = 1.0
        return sample

    def forward(self, x):
        sample, _ = self.active
        return sum(self.AP_path_wb[i] * self.candidates[i](x) for i in sample)

    def set_arch_grad(self):
        sample, _ = self.active
        probs = self.probs.detach()
        if self.AP_path_alpha.grad is None:
            self.AP_path_alpha.grad = torch.zeros_like(self.AP_path_alpha)
        wb_grad = self.AP_path_wb.grad
        for i in sample:
            for j in sample:
                delta = 1.0 if i == j else 0.0
                self.AP_path_alpha.grad[i] += wb_grad[j] * probs[j] * (delta - probs[i])

    def expected_latency(self):
        return (self.probs * torch.tensor([LUT[n] for n in self.names])).sum()


edges = nn.ModuleList([MixedEdge(4), MixedEdge(4)])
arch = [e.AP_path_alpha for e in edges]
weights = [p for n, p in edges.named_parameters() if "AP_path" not in n]
print("weights", sum(p.numel() for p in weights), "arch", len(arch))
w_opt = torch.optim.SGD(weights, lr=0.05, momentum=0.9, nesterov=True)
try:
    torch.optim.Adam(arch, lr=0.05, betas=(0, 0.999))
except Exception as e:
    print(type(e).__name__, e)
a_opt = torch.optim.Adam(arch, lr=0.05, betas=(0.0, 0.999), eps=1e-8)
x, target = torch.randn(4, 4, 5, 5), torch.randn(4, 4, 5, 5)
lam = 0.02
for step in range(5):
    edges.train()
    samples = [e.binarize() for e in edges]
    out = x
    for e in edges:
        out = e(out)
    loss = F.mse_loss(out, target)
    for e in edges:
        e.AP_path_wb.grad = None
    w_opt.zero_grad()
    a_opt.zero_grad()
    loss.backward()
    for e in edges:
        e.set_arch_grad()
    lat = sum(e.expected_latency() for e in edges)
    (lam * lat).backward()
    a_opt.step()
    w_opt.step()
    print(step, [e.active for e in edges], round(loss.item(), 4), round(lat.item(), 4))
for e in edges:
    print("probs", e.probs.detach().round(decimals=4).tolist(), "chosen", e.names[int(e.probs.argmax())])
print("wb grad", edges[0].AP_path_wb.grad is not None, edges[0].AP_path_wb.grad.nonzero().flatten().tolist())
final = [e.candidates[int(e.probs.argmax())] for e in edges]
net = nn.Sequential(*final).eval()
print(type(net[0]).__name__, tuple(net(x).shape))
total_lat = sum(LUT[e.names[int(e.probs.argmax())]] for e in edges)
print("final latency", round(total_lat, 4), "params", sum(p.numel() for p in net.parameters()))
try:
    torch.multinomial(torch.tensor([0.5, 0.5]), 3, replacement=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(torch.tensor([0.5, -0.1]), 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.multinomial(torch.tensor([0, 0.0]), 1)
except Exception as e:
    print(type(e).__name__, e)
