"""A Basenji/Enformer-style genomic track model: a stem Conv1d, residual dilated blocks with GELU and BatchNorm1d,
attention pooling (softmax over pooled windows), target-length cropping, a softplus head trained with a Poisson NLL
(F.poisson_nll_loss and nn.PoissonNLLLoss), Pearson correlation per track, and a gradient-times-input attribution."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class AttentionPool(nn.Module):
    def __init__(self, channels, pool=2):
        super().__init__()
        self.pool = pool
        self.logit = nn.Conv2d(channels, channels, 1, bias=False)
        nn.init.dirac_(self.logit.weight)
        with torch.no_grad():
            self.logit.weight.mul_(2.0)

    def forward(self, x):
        b, c, n = x.shape
        x = x.view(b, c, n // self.pool, self.pool)
        w = self.logit(x).softmax(-1)
        return (x * w).sum(-1)


class DilatedBlock(nn.Module):
    def __init__(self, c, dilation):
        super().__init__()
        self.bn = nn.BatchNorm1d(c, momentum=0.1)
        self.conv = nn.Conv1d(c, c // 2, 3, dilation=dilation, padding=dilation)
        self.proj = nn.Conv1d(c // 2, c, 1)
        self.drop = nn.Dropout(0.0)

    def forward(self, x):
        y = self.conv(F.gelu(self.bn(x), approximate="tanh"))
        return x + self.drop(self.proj(F.gelu(y)))


class Tower(nn.Module):
    def __init__(self, c=8, tracks=3, target=6):
        super().__init__()
        self.stem = nn.Conv1d(4, c, 5, padding=2)
        self.pool = AttentionPool(c)
        self.blocks = nn.Sequential(*[DilatedBlock(c, 2**i) for i in range(3)])
        self.crop = nn.ConstantPad1d(-1, 0.0)
        self.head = nn.Conv1d(c, tracks, 1)
        self.target = target

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = self.blocks(x)
        x = self.crop(x)
        return F.softplus(self.head(x), beta=1.0, threshold=20.0)


model = Tower()
print(model.blocks[1])
print("params", sum(p.numel() for p in model.parameters()), [n for n, _ in model.named_buffers()][:3])
seq = torch.randint(0, 4, (2, 16))
x = F.one_hot(seq, 4).float().transpose(1, 2)
target = torch.tensor([[[1, 0, 3, 2, 2, 1], [0, 0, 1, 4, 2, 2], [5, 3, 1, 0, 0, 1]]] * 2, dtype=torch.float32)

opt = torch.optim.Adam(model.parameters(), lr=1e-2)
crit = nn.PoissonNLLLoss(log_input=False, full=True)
for step in range(5):
    pred = model(x)
    loss = crit(pred, target)
    loss_f = F.poisson_nll_loss(pred, target, log_input=False, full=False, eps=1e-8)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, pred.shape, round(loss.item(), 4), round(loss_f.item(), 4))

model.eval()
with torch.no_grad():
    pred = model(x)
print(
    "bn running", model.blocks[0].bn.running_mean.round(decimals=4).tolist()[:4], model.blocks[0].bn.num_batches_tracked
)


def pearson(a, b, dim=-1):
    a = a - a.mean(dim, keepdim=True)
    b = b - b.mean(dim, keepdim=True)
    return (a * b).sum(dim) / (a.norm(dim=dim) * b.norm(dim=dim)).clamp_min(1e-8)


print("pearson", pearson(pred, target).round(decimals=4).tolist())
print("corrcoef", torch.corrcoef(torch.stack([pred[0, 0], target[0, 0]])).round(decimals=4).tolist())
logits = torch.log(pred)
print(
    "log-input loss",
    round(F.poisson_nll_loss(logits, target, log_input=True).item(), 4),
    round(F.poisson_nll_loss(logits, target, reduction="sum").item(), 4),
    F.poisson_nll_loss(logits, target, reduction="none").shape,
)

xg = x.clone().requires_grad_(True)
out = model(xg)[:, 0].sum()
(g,) = torch.autograd.grad(out, xg)
attr = (g * xg).sum(1)
print("attribution", attr.shape, attr[0].round(decimals=4).tolist()[:8])
print("grad_fn", type(out.grad_fn).__name__, out.grad_fn.next_functions[0][0].name())

print(F.softplus(torch.tensor([-30.0, 0.0, 10.0, 25.0]), beta=2, threshold=10).round(decimals=4).tolist())
try:
    nn.PoissonNLLLoss(reduction="avg")(pred, target)
except Exception as e:
    print(type(e).__name__, e)
try:
    model.pool(torch.zeros(1, 8, 7))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.conv1d(x, model.stem.weight, padding="full")
except Exception as e:
    print(type(e).__name__, e)
