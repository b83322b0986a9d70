"""Hard Attention to the Task (HAT) as its reference code writes it: task embeddings gated by a sigmoid with an
annealed slope s, cumulative masks combined with torch.max, gradients of earlier tasks' units scaled down in hooks,
the embedding-gradient compensation with cosh, clamped embeddings, and mask sparsity regularisation."""


import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class HATNet(nn.Module):
    def __init__(self, n_tasks, d_in=5, h=10, n_out=3):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d_in, h), nn.Linear(h, h)
        self.ec1, self.ec2 = nn.Embedding(n_tasks, h), nn.Embedding(n_tasks, h)
        self.head = nn.Linear(h, n_out)
        self.gate = nn.Sigmoid()

    def masks(self, t, s):
        idx = torch.tensor([t])
        return self.gate(s * self.ec1(idx)), self.gate(s * self.ec2(idx))

    def forward(self, x, t, s):
        m1, m2 = self.masks(t, s)
        h = F.relu(self.fc1(x)) * m1.expand_as(self.fc1(x))
        h = F.relu(self.fc2(h)) * m2.expand_as(h)
        return self.head(h), (m1, m2)


net = HATNet(3)
print("embeddings:", net.ec1, net.ec1.weight.shape, net.ec1.embedding_dim, net.ec1.num_embeddings)
s_max, thres_cosh, lamb, clip = 50.0, 50.0, 0.75, 1000.0
cum = None
tasks = [(torch.randn(32, 5), torch.randint(0, 3, (32,))) for _ in range(3)]
for t, (x, y) in enumerate(tasks):
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    n_batches = 4
    for b in range(n_batches):
        s = 1 / s_max + (s_max - 1 / s_max) * b / (n_batches - 1)
        opt.zero_grad()
        out, (m1, m2) = net(x, t, s)
        reg, count = 0.0, 0.0
        for m, c in zip((m1, m2), cum if cum is not None else (None, None)):
            if c is not None:
                aux = 1 - c
                reg = reg + (m * aux).sum()
                count = count + aux.sum()
            else:
                reg = reg + m.sum()
                count = count + m.numel()
        reg = reg / count
        loss = F.cross_entropy(out, y) + lamb * reg
        loss.backward()
        if cum is not None:
            with torch.no_grad():
                net.fc1.weight.grad *= (1 - cum[0]).view(-1, 1)
                net.fc1.bias.grad *= (1 - cum[0]).view(-1)
                post = (1 - cum[1]).view(-1, 1)
                pre = (1 - cum[0]).view(1, -1)
                net.fc2.weight.grad *= torch.min(post, pre)
        for emb in (net.ec1, net.ec2):
            num = torch.cosh(torch.clamp(s * emb.weight.data, -thres_cosh, thres_cosh)) + 1
            den = torch.cosh(emb.weight.data) + 1
            emb.weight.grad.data *= s_max / s * num / den
        torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        opt.step()
        for emb in (net.ec1, net.ec2):
            emb.weight.data.clamp_(-6, 6)
    with torch.no_grad():
        m1, m2 = net.masks(t, s_max)
        m1, m2 = (m1 > 0.5).float(), (m2 > 0.5).float()
        cum = (m1, m2) if cum is None else (torch.max(cum[0], m1), torch.maximum(cum[1], m2))
    print(f"task {t}: loss={loss.item():.4f} reg={float(reg):.4f} used={[int(c.sum()) for c in cum]}")
    print("  emb grad rows nonzero:", (net.ec1.weight.grad.abs().sum(1) > 0).tolist())

with torch.no_grad():
    for t, (x, y) in enumerate(tasks):
        out, _ = net(x, t, s_max)
        print(f"eval {t}: acc={(out.argmax(1) == y).float().mean().item():.4f}")
print("s schedule:", [round(1 / s_max + (s_max - 1 / s_max) * b / 3, 4) for b in range(4)])
print("cosh clamp:", torch.cosh(torch.clamp(torch.tensor([-100.0, 0.5, 100.0]), -5, 5)).round(decimals=2).tolist())
print("gate at s_max:", torch.sigmoid(s_max * torch.tensor([-0.1, 0.0, 0.1])).tolist())
print(
    "max variants:",
    torch.max(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0])).tolist(),
    torch.fmax(torch.tensor([float("nan"), 1.0]), torch.tensor([0.0, float("nan")])).tolist(),
)
e = nn.Embedding(4, 3, max_norm=1.0)
with torch.no_grad():
    e.weight.mul_(5)
out = e(torch.tensor([1, 1, 2]))
print("max_norm renorm:", out.norm(dim=1).round(decimals=4).tolist(), e.weight.norm(dim=1)[0].item() > 1)
ep = nn.Embedding(4, 2, padding_idx=0)
print("padding row:", ep.weight[0].tolist())
ep(torch.tensor([0, 1, 0])).sum().backward()
print("padding grad:", ep.weight.grad.tolist())
for bad in [
    lambda: net.ec1(torch.tensor([3])),
    lambda: net.ec1(torch.tensor([0.0])),
    lambda: nn.Embedding(3, 2, padding_idx=3),
    lambda: torch.max(torch.ones(2), torch.ones(2, dtype=torch.long)).dtype,
    lambda: torch.max(torch.ones(2), 1),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
