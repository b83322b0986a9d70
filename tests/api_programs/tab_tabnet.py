"""A small TabNet: ghost batch norm, GLU feature transformers, attentive masks with a prior, sparsity loss."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def sparsemax(z, dim=-1):
    zs, _ = torch.sort(z, dim=dim, descending=True)
    k = torch.arange(1, z.size(dim) + 1, dtype=z.dtype)
    cum = zs.cumsum(dim)
    support = (1 + k * zs) > cum
    k_z = support.sum(dim, keepdim=True)
    tau = (cum.gather(dim, k_z - 1) - 1) / k_z
    return torch.clamp(z - tau, min=0)


class GBN(nn.Module):
    def __init__(self, d, virtual_batch_size=8, momentum=0.02):
        super().__init__()
        self.vbs = virtual_batch_size
        self.bn = nn.BatchNorm1d(d, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(max(1, x.shape[0] // self.vbs), 0)
        return torch.cat([self.bn(c) for c in chunks], 0)


class GLUBlock(nn.Module):
    def __init__(self, d_in, d_out, shared=None):
        super().__init__()
        self.fc = shared if shared is not None else nn.Linear(d_in, 2 * d_out, bias=False)
        self.bn = GBN(2 * d_out)

    def forward(self, x):
        return F.glu(self.bn(self.fc(x)), dim=-1)


class TabNet(nn.Module):
    def __init__(self, d_in, n_d=4, n_a=4, steps=3, gamma=1.5, n_out=2):
        super().__init__()
        self.steps, self.gamma, self.n_d = steps, gamma, n_d
        self.initial_bn = nn.BatchNorm1d(d_in, momentum=0.01)
        shared = nn.Linear(d_in, 2 * (n_d + n_a), bias=False)
        self.shared = shared
        self.transformers = nn.ModuleList(GLUBlock(d_in, n_d + n_a, shared) for _ in range(steps + 1))
        self.attentive = nn.ModuleList(nn.Sequential(nn.Linear(n_a, d_in, bias=False), GBN(d_in)) for _ in range(steps))
        self.head = nn.Linear(n_d, n_out)

    def forward(self, x):
        x = self.initial_bn(x)
        prior = torch.ones_like(x)
        a = self.transformers[0](x)[:, self.n_d:]
        out, m_loss, masks = 0, 0, []
        for s in range(self.steps):
            m = sparsemax(self.attentive[s](a) * prior)
            m_loss = m_loss + torch.mean(torch.sum(-m * torch.log(m + 1e-10), dim=1))
            prior = prior * (self.gamma - m)
            h = self.transformers[s + 1](m * x)
            out = out + F.relu(h[:, :self.n_d])
            a = h[:, self.n_d:]
            masks.append(m)
        return self.head(out), m_loss / self.steps, torch.stack(masks, 1)


X = torch.randn(32, 6)
y = (X[:, 2] + X[:, 4] > 0).long()
net = TabNet(6)
print("shared once", sum(p.numel() for p in net.parameters()), len(list(net.parameters())))
print("shared is same", net.transformers[0].fc is net.transformers[3].fc)
print(net.transformers[0].bn)
opt = torch.optim.Adam(net.parameters(), lr=0.02)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.9)
for epoch in range(12):
    opt.zero_grad()
    logits, m_loss, masks = net(X)
    loss = F.cross_entropy(logits, y) + 1e-3 * m_loss
    loss.backward()
    opt.step()
    sched.step()
    if epoch % 4 == 0:
        print(epoch, round(loss.item(), 4), round(m_loss.item(), 4), sched.get_last_lr())
bn = net.initial_bn
print("running", bn.running_mean.round(decimals=4).tolist(), bn.num_batches_tracked.item())
gbn = net.transformers[1].bn.bn
print("ghost bn batches", gbn.num_batches_tracked.item(), round(gbn.running_var.mean().item(), 4))
net.eval()
with torch.no_grad():
    logits, _, masks = net(X)
print("masks", tuple(masks.shape), masks.sum(-1).round(decimals=4).unique().tolist())
importance = masks.sum(1).sum(0)
print("importance", (importance / importance.sum()).round(decimals=4).tolist())
print("eval acc", round((logits.argmax(1) == y).float().mean().item(), 4))
print("glu halves", F.glu(torch.arange(8.0).view(2, 4)).round(decimals=4).tolist())
print("chunks", [c.shape[0] for c in X.chunk(5)], [c.shape[0] for c in torch.arange(10).chunk(4)])
print("sparsemax", sparsemax(torch.tensor([[0.5, 0.4, -1.0]])).tolist())
for name, fn in [
    ("glu odd", lambda: F.glu(torch.ones(2, 3))),
    ("bn one sample", lambda: net.train()(X[:1])),
    ("bn eval one sample", lambda: net.eval()(X[:1])[0].shape),
]:
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
