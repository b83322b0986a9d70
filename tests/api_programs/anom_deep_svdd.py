"""Deep SVDD (Ruff et al.) one-class training: bias-free LeNet-style network, center c from an initial forward pass
with the eps fix, one-class and soft-boundary objectives (radius from a quantile of distances), weight-decayed Adam,
and the module/parameter reprs and state_dict of a bias=False network."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_printoptions(precision=4, sci_mode=False)


class Net(nn.Module):
    def __init__(self, rep_dim=4):
        super().__init__()
        self.rep_dim = rep_dim
        self.conv1 = nn.Conv2d(1, 4, 3, bias=False, padding=1)
        self.bn1 = nn.BatchNorm2d(4, eps=1e-04, affine=False)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(4 * 4 * 4, rep_dim, bias=False)

    def forward(self, x):
        x = self.pool(F.leaky_relu(self.bn1(self.conv1(x))))
        return self.fc1(x.view(x.size(0), -1))


net = Net()
print(net)
print([(n, tuple(p.shape)) for n, p in net.named_parameters()])
print(list(net.state_dict().keys()))
print(net.fc1.bias, net.bn1.weight, net.bn1.running_var.dtype, net.bn1.num_batches_tracked)
print(net.fc1.extra_repr(), "|", net.bn1.extra_repr())

data = torch.randn(32, 1, 8, 8) * 0.5
eps = 0.1


def init_center_c(net, data, eps=0.1):
    n_samples = 0
    c = torch.zeros(net.rep_dim)
    net.eval()
    with torch.no_grad():
        for batch in data.split(10):
            outputs = net(batch)
            n_samples += outputs.shape[0]
            c += torch.sum(outputs, dim=0)
    c /= n_samples
    c[(abs(c) < eps) & (c < 0)] = -eps
    c[(abs(c) < eps) & (c > 0)] = eps
    return c


c = init_center_c(net, data, eps)
print("c", c, c.requires_grad, n := (c.abs() >= eps).all().item())


def get_radius(dist, nu):
    return torch.quantile(torch.sqrt(dist.clone().data), 1 - nu)


opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-6, amsgrad=True)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[3], gamma=0.1)
R = torch.tensor(0.0)
nu = 0.1
net.train()
for epoch in range(5):
    total = 0.0
    for batch in data.split(8):
        opt.zero_grad()
        out = net(batch)
        dist = torch.sum((out - c) ** 2, dim=1)
        if epoch < 2:
            loss = torch.mean(dist)
        else:
            scores = dist - R**2
            loss = R**2 + (1 / nu) * torch.mean(torch.max(torch.zeros_like(scores), scores))
        loss.backward()
        opt.step()
        if epoch >= 2:
            R.data = get_radius(dist, nu)
        total += loss.item()
    sched.step()
    print(epoch, round(total, 4), round(R.item(), 4), sched.get_last_lr())
print("bn tracked", net.bn1.num_batches_tracked, net.bn1.running_mean)
st = opt.state[net.fc1.weight]
print(sorted(st.keys()), st["step"], st["max_exp_avg_sq"].shape)

net.eval()
test = torch.cat([torch.randn(4, 1, 8, 8) * 0.5, torch.randn(4, 1, 8, 8) * 3])
with torch.no_grad():
    d = torch.sum((net(test) - c) ** 2, dim=1)
print("scores", d)
print("soft", d - R**2)
print("norm alt", torch.linalg.vector_norm(net(test) - c, dim=1).pow(2).detach())
print("cdist alt", torch.cdist(net(test).detach(), c.unsqueeze(0)).squeeze(1).pow(2))
print("grad", R.grad, R.requires_grad, c.grad_fn)
# hypersphere collapse: all weights zero maps to the origin
with torch.no_grad():
    for p in net.parameters():
        p.zero_()
print("collapsed", net(test).abs().sum().item())
try:
    net.fc1.bias.zero_()
except AttributeError as e:
    print("AttributeError", e)
try:
    c[(c.abs() < eps) & (c < 0)] = torch.tensor([1.0, 2.0, 3.0])
except RuntimeError as e:
    print("RuntimeError", e)
