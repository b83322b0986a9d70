"""MC-dropout uncertainty for active learning: predictive entropy, BALD mutual information, calibration bins."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


class SmallCNN(nn.Module):
    def __init__(self, p=0.25):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.drop2d = nn.Dropout2d(p)
        self.fc1 = nn.Linear(8 * 4 * 4, 32)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.conv(x)), 2)
        h = self.drop2d(h).flatten(1)
        return self.fc2(self.drop(F.relu(self.fc1(h))))


def enable_dropout(model):
    for m in model.modules():
        if isinstance(m, (nn.Dropout, nn.Dropout2d)):
            m.train()


torch.manual_seed(0)
X = torch.randn(48, 1, 8, 8)
y = (X[:, 0, :4].mean((1, 2)) > 0).long() + (X[:, 0, 4:].mean((1, 2)) > 0).long()
model = SmallCNN()
print(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
for epoch in range(30):
    model.train()
    loss = F.cross_entropy(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("train loss", round(loss.item(), 4))

model.eval()
enable_dropout(model)
print("modes", [(n, m.training) for n, m in model.named_modules() if n])
pool = torch.randn(10, 1, 8, 8)
T = 50
with torch.no_grad():
    probs = torch.stack([F.softmax(model(pool), -1) for _ in range(T)])
print("probs", probs.shape)
mean_p = probs.mean(0)
pred_entropy = D.Categorical(probs=mean_p).entropy()
exp_entropy = D.Categorical(probs=probs).entropy().mean(0)
bald = pred_entropy - exp_entropy
print("entropy", r(pred_entropy))
print("bald", r(bald))
print("bald >= 0", bool((bald > -1e-6).all()), "query", bald.topk(3).indices.tolist())
var_ratio = 1 - probs.argmax(-1).mode(0).values.eq(probs.argmax(-1)).float().mean(0)
print("variation ratio", r(var_ratio))

# deterministic vs stochastic forward
model.eval()
with torch.no_grad():
    det = model(pool)
    det2 = model(pool)
print("eval deterministic", torch.equal(det, det2))

# expected calibration error on the training data with MC averaging
enable_dropout(model)
with torch.no_grad():
    p_train = torch.stack([F.softmax(model(X), -1) for _ in range(T)]).mean(0)
conf, pred = p_train.max(-1)
acc = pred.eq(y).float()
edges = torch.linspace(0, 1, 6)
bins = torch.bucketize(conf, edges[1:-1])
ece = torch.zeros(())
for b in range(5):
    m = bins == b
    if m.any():
        ece += m.float().mean() * (acc[m].mean() - conf[m].mean()).abs()
print("bins", torch.bincount(bins, minlength=5).tolist(), "ece", round(ece.item(), 4))
print(
    "nll",
    round(F.nll_loss(p_train.log(), y).item(), 4),
    "brier",
    round((p_train - F.one_hot(y, 3)).pow(2).sum(-1).mean().item(), 4),
)

# dropout statistics: the inverted scaling keeps the mean
torch.manual_seed(1)
z = torch.ones(10000)
dz = F.dropout(z, 0.3, training=True)
print(
    "dropout mean",
    round(dz.mean().item(), 1),
    "zeros frac",
    round((dz == 0).float().mean().item(), 1),
    "max",
    round(dz.max().item(), 4),
)
c = F.dropout2d(torch.ones(2, 100, 3, 3), 0.5, training=True)
print("channel-wise", bool(((c == 0).all((2, 3)) | (c != 0).all((2, 3))).all()))
for bad in [lambda: nn.Dropout(p=-0.1), lambda: F.dropout(z, 2.0)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
