"""An AlphaZero policy/value network for Connect-4 as the open-source reimplementations write it: a residual tower of
conv-BN blocks, a policy head over columns and a tanh value head, the combined loss (soft-target cross-entropy plus
MSE plus L2 through weight_decay), SGD with momentum and a MultiStepLR schedule, eval-mode inference with the
illegal-move mask, and the module's printed structure and parameter counts."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ROWS, COLS, CH = 6, 7, 32


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)), inplace=True)
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class AZNet(nn.Module):
    def __init__(self, blocks=2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, CH, 3, padding=1, bias=False), nn.BatchNorm2d(CH), nn.ReLU())
        self.tower = nn.Sequential(*[ResBlock(CH) for _ in range(blocks)])
        self.policy = nn.Sequential(nn.Conv2d(CH, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(),
                                    nn.Linear(2 * ROWS * COLS, COLS))
        self.value = nn.Sequential(nn.Conv2d(CH, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU(), nn.Flatten(),
                                   nn.Linear(ROWS * COLS, 32), nn.ReLU(), nn.Linear(32, 1), nn.Tanh())

    def forward(self, x):
        h = self.tower(self.stem(x))
        return self.policy(h), self.value(h).squeeze(-1)


net = AZNet()
print(net.policy)
print(net.tower[0])
n_params = sum(p.numel() for p in net.parameters())
n_buffers = sum(b.numel() for b in net.buffers())
print("params", n_params, "buffers", n_buffers, "tensors", len(net.state_dict()))
print("bn keys", [k for k in net.state_dict() if k.startswith("stem.1")])

# a synthetic self-play batch: planes (own, opponent, side-to-move), soft policy targets, outcomes
B = 16
own = (torch.rand(B, ROWS, COLS) < 0.2).float()
opp = (torch.rand(B, ROWS, COLS) < 0.2).float() * (1 - own)
side = torch.ones(B, ROWS, COLS) * (torch.arange(B) % 2).float().view(B, 1, 1)
x = torch.stack([own, opp, side], 1)
legal = (own + opp)[:, 0, :] == 0
pi = torch.rand(B, COLS).masked_fill(~legal, 0)
pi = pi / pi.sum(-1, keepdim=True)
z = torch.randint(-1, 2, (B,)).float()
print("batch", x.shape, legal.sum().item(), z.tolist()[:6])

opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4, nesterov=True)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[3, 6], gamma=0.1)
for step in range(8):
    net.train()
    logits, v = net(x)
    p_loss = F.cross_entropy(logits, pi)
    v_loss = F.mse_loss(v, z)
    loss = p_loss + v_loss
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(net.parameters(), max_norm=5.0)
    opt.step()
    sched.step()
    print(step, round(p_loss.item(), 4), round(v_loss.item(), 4), round(gn.item(), 4), sched.get_last_lr())

print("running mean", net.stem[1].running_mean[:4].round(decimals=4).tolist(), net.stem[1].num_batches_tracked.item())
net.eval()
with torch.inference_mode():
    logits, v = net(x[:4])
    masked = logits.masked_fill(~legal[:4], float("-inf"))
    probs = F.softmax(masked, -1)
print("eval probs", probs.round(decimals=4)[0].tolist())
print("value", v.round(decimals=4).tolist(), v.requires_grad, torch.is_inference(v))
print("best move", probs.argmax(-1).tolist(), "illegal mass", probs[~legal[:4]].sum().item())

# policy-only fine-tuning: freeze the tower and check which grads appear
for p in net.tower.parameters():
    p.requires_grad_(False)
net.train()
logits, v = net(x)
F.cross_entropy(logits, pi, label_smoothing=0.1).backward()
print("tower grad", net.tower[0].conv1.weight.grad is None, "head grad", net.policy[-1].weight.grad is not None)
print("value head grad", round(net.value[-2].weight.grad.abs().sum().item(), 4))
trainable = [n for n, p in net.named_parameters() if p.requires_grad]
print("trainable", len(trainable), trainable[:3])

for bad in [
    lambda: net(x[:, :2]),
    lambda: F.cross_entropy(logits, pi[:, :5]),
    lambda: F.mse_loss(v, z[:4]),
    lambda: torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[6, 3]).get_last_lr(),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
