"""A task-conditioned hypernetwork: an embedding of the task generates the weights of a small CNN, consumed by
F.conv2d and F.linear; a batch of tasks runs at once through the grouped-convolution trick and through
torch.func.vmap, the generated kernels are checked against each other, and F.conv2d's weight errors are printed."""

import torch
from torch.func import vmap

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

C_IN, C_OUT, K, N_CLS, EMB = 2, 4, 3, 3, 8


class HyperNet(nn.Module):
    def __init__(self, n_tasks):
        super().__init__()
        self.task_emb = nn.Embedding(n_tasks, EMB)
        self.trunk = nn.Sequential(nn.Linear(EMB, 32), nn.ReLU())
        self.conv_w = nn.Linear(32, C_OUT * C_IN * K * K)
        self.conv_b = nn.Linear(32, C_OUT)
        self.fc_w = nn.Linear(32, N_CLS * C_OUT)
        nn.init.normal_(self.conv_w.weight, std=0.05)
        nn.init.zeros_(self.conv_w.bias)

    def forward(self, task_ids):
        h = self.trunk(self.task_emb(task_ids))
        T = task_ids.shape[0]
        return (self.conv_w(h).view(T, C_OUT, C_IN, K, K), self.conv_b(h),
                self.fc_w(h).view(T, N_CLS, C_OUT))


def target_net(x, w, b, fw):
    """One task's network (x: (N, C_IN, H, W)) with generated weights."""
    h = F.conv2d(x, w, b, stride=1, padding=1)
    h = F.max_pool2d(F.leaky_relu(h, 0.1), 2)
    return F.linear(F.adaptive_avg_pool2d(h, 1).flatten(1), fw)


def grouped_forward(x, w, b, fw):
    """All tasks at once (x: (T, N, C_IN, H, W)): tasks become channel groups of one convolution."""
    T, N = x.shape[:2]
    xg = x.transpose(0, 1).reshape(N, T * C_IN, *x.shape[-2:])
    h = F.conv2d(xg, w.reshape(T * C_OUT, C_IN, K, K), b.reshape(-1), padding=1, groups=T)
    h = F.max_pool2d(F.leaky_relu(h, 0.1), 2)
    feats = F.adaptive_avg_pool2d(h, 1).view(N, T, C_OUT).transpose(0, 1)
    return torch.bmm(feats, fw.transpose(1, 2))


hyper = HyperNet(n_tasks=5)
opt = torch.optim.AdamW(hyper.parameters(), lr=5e-3, weight_decay=1e-2)
tasks = torch.tensor([0, 2, 4])
x = torch.randn(3, 6, C_IN, 8, 8)
y = torch.randint(0, N_CLS, (3, 6))

w, b, fw = hyper(tasks)
print("generated", tuple(w.shape), tuple(b.shape), tuple(fw.shape), w.grad_fn.name())
loop = torch.stack([target_net(x[t], w[t], b[t], fw[t]) for t in range(3)])
grouped = grouped_forward(x, w, b, fw)
mapped = vmap(target_net)(x, w, b, fw)
print("grouped == loop", torch.allclose(loop, grouped, atol=1e-6), "vmap == loop", torch.allclose(loop, mapped,
                                                                                                  atol=1e-6))

for step in range(6):
    w, b, fw = hyper(tasks)
    logits = grouped_forward(x, w, b, fw)
    loss = F.cross_entropy(logits.reshape(-1, N_CLS), y.reshape(-1))
    reg = sum(t.pow(2).mean() for t in (w, b, fw))
    opt.zero_grad()
    (loss + 1e-3 * reg).backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} emb-grad {hyper.task_emb.weight.grad.abs().sum().item():.4f}")

# tasks never seen in training get no embedding gradient
print("unused task rows zero grad", hyper.task_emb.weight.grad[[1, 3]].abs().sum().item() == 0.0)

# interpolating two task embeddings produces an in-between network
with torch.no_grad():
    e = hyper.task_emb.weight
    for alpha in [0.0, 0.5, 1.0]:
        h = hyper.trunk(torch.lerp(e[0], e[4], alpha).unsqueeze(0))
        wk = hyper.conv_w(h).view(C_OUT, C_IN, K, K)
        print("alpha", alpha, "kernel norm", round(wk.norm().item(), 4))

# the gradient w.r.t. the generated kernels reaches only the task that used them
w, b, fw = hyper(tasks)
gw = torch.autograd.grad(target_net(x[0], w[0], b[0], fw[0]).logsumexp(1).sum(), w)[0]
print("kernel grad nonzero only for task 0", [round(g.abs().sum().item(), 4) > 0 for g in gw])

for bad in [lambda: F.conv2d(x[0], w[0][:, :1], b[0], padding=1),
            lambda: F.conv2d(x[0], w[0], b[0][:2], padding=1),
            lambda: F.conv2d(x[0], w[0].flatten(1), b[0]),
            lambda: F.conv2d(x[0].reshape(6, 1, 2, 8, 8), w[0]),
            lambda: F.conv2d(x.reshape(6, 6, 8, 8), w.reshape(12, 2, 3, 3), groups=4),
            lambda: F.linear(torch.ones(2, 5), fw[0])]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
