"""Dropout in all its flavours in train mode under a fixed seed, as a regularisation study prints them: the
masks each one draws, their scaling, the statistics they preserve (SELU's self-normalisation under
AlphaDropout), eval-mode identity, and a small training run whose losses depend on the drawn masks."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)

torch.manual_seed(7)
x = torch.ones(3, 8)
drop = nn.Dropout(p=0.25)
print(drop)
y = drop(x)
print(y)
print("kept fraction", (y != 0).float().mean().item(), "scale", y.max().item())
drop.eval()
print("eval identity", torch.equal(drop(x), x))

print("functional p=0.5", F.dropout(torch.arange(1.0, 11.0), p=0.5, training=True))
print("functional eval", F.dropout(torch.arange(1.0, 5.0), p=0.5, training=False))
print("p=0", torch.equal(F.dropout(x, 0.0), x), "p=1", F.dropout(x, 1.0).sum().item())
z = torch.arange(12.0).reshape(3, 4)
F.dropout(z, p=0.3, training=True, inplace=True)
print("inplace", z)
print("float64", F.dropout(torch.ones(6, dtype=torch.float64), 0.4))

feat = torch.ones(2, 6, 3, 3)
d2 = nn.Dropout2d(p=0.5)
out = d2(feat)
print(d2, "channel sums", out.sum((2, 3)))
d1 = nn.Dropout1d(p=0.5)
print("dropout1d", d1(torch.ones(2, 5, 4))[:, :, 0])
d3 = nn.Dropout3d(p=0.3)
print("dropout3d", d3(torch.ones(1, 4, 2, 2, 2)).sum((2, 3, 4)))

torch.manual_seed(11)
selu_in = torch.randn(2000, 16)
act = F.selu(selu_in)
print("selu stats", round(act.mean().item(), 4), round(act.std().item(), 4))
ad = nn.AlphaDropout(p=0.2)
a_out = ad(act)
print(ad, "after", round(a_out.mean().item(), 4), round(a_out.std().item(), 4))
print("alpha values", torch.unique(ad(torch.zeros(3, 5))).tolist())
fad = nn.FeatureAlphaDropout(p=0.3)
fa = fad(torch.zeros(2, 4, 3))
print("feature alpha", fa[:, :, 0])
print("F.alpha_dropout", F.alpha_dropout(torch.ones(6), 0.5, training=True))
print("F.feature_alpha_dropout", F.feature_alpha_dropout(torch.ones(1, 3, 2), 0.5, training=True))

torch.manual_seed(0)
n, d = 128, 10
X = torch.randn(n, d)
true_w = torch.randn(d, 1)
Y = X @ true_w + 0.3 * torch.randn(n, 1)


class Net(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.fc1 = nn.Linear(d, 32)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


for p in (0.0, 0.2, 0.5):
    torch.manual_seed(1)
    net = Net(p)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for step in range(30):
        net.train()
        loss = F.mse_loss(net(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    with torch.no_grad():
        ev = F.mse_loss(net(X), Y).item()
    print(f"p={p} train first={losses[0]:.4f} mid={losses[14]:.4f} last={losses[-1]:.4f} eval={ev:.4f}")

torch.manual_seed(5)
net = Net(0.5)
net.train()
with torch.no_grad():
    mc = torch.stack([net(X[:4]) for _ in range(50)])
print("mc dropout mean", mc.mean(0).squeeze(1))
print("mc dropout std", mc.std(0).squeeze(1))
