"""MC dropout: dropout kept on at eval time, predictive entropy and BALD mutual information."""
import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


class Net(nn.Module):
    def __init__(self, p=0.3):
        super().__init__()
        self.fc1 = nn.Linear(4, 32)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def enable_mc_dropout(model):
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.train()


torch.manual_seed(0)
centers = torch.tensor([[2.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 2.0, 0]])
labels = torch.arange(3).repeat_interleave(40)
x = centers[labels] + 0.5 * torch.randn(120, 4)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(60):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    opt.step()
print("final loss < 0.2", loss.item() < 0.2)

model.eval()
print("training flags", [m.training for m in model.modules()])
enable_mc_dropout(model)
print("after enable", [m.training for m in model.modules()])

test = torch.tensor([[2.0, 0, 0, 0], [0.7, 0.7, 0.7, 0], [0, 0, 0, 4.0]])
with torch.no_grad():
    probs = torch.stack([F.softmax(model(test), -1) for _ in range(500)])
print("samples", probs.shape)
mean = probs.mean(0)
pred_entropy = D.Categorical(probs=mean).entropy()
exp_entropy = D.Categorical(probs=probs).entropy().mean(0)
bald = pred_entropy - exp_entropy
print("argmax", mean.argmax(-1).tolist())
print("in-dist confident", bool(mean[0].max() > 0.8))
print("bald nonneg", bool((bald > -1e-6).all()))
print("entropy ordering", bool(pred_entropy[1] > pred_entropy[0]))
cat = D.Categorical(probs=probs)
print("cat shapes", cat.batch_shape, cat.event_shape, cat.param_shape)

# deterministic eval output vs MC mean
model.eval()
with torch.no_grad():
    det = F.softmax(model(test), -1)
print("eval deterministic twice equal", torch.equal(det, F.softmax(model(test), -1)))

# functional dropout forms
torch.manual_seed(1)
h = torch.ones(2, 8)
print(F.dropout(h, 0.25, training=False).sum().item())
out = F.dropout(h, p=0.5, training=True)
print(sorted(set(out.flatten().tolist())))
print(F.dropout(h, p=0.0, training=True).sum().item())
print(F.dropout(h, p=1.0, training=True).sum().item())
hh = h.clone()
F.dropout(hh, 0.5, True, True)
print("inplace changed", not torch.equal(hh, h))
print(repr(nn.Dropout(p=0.3, inplace=True)), repr(nn.AlphaDropout(0.2)))
torch.manual_seed(2)
many = F.dropout(torch.ones(20000), 0.3, training=True)
print("keep rate", round((many != 0).float().mean().item(), 2), "mean", round(many.mean().item(), 1))
d2 = F.dropout2d(torch.ones(4, 6, 3, 3), 0.5, training=True)
per_ch = d2.flatten(2).std(-1)
print("dropout2d whole channels", bool((per_ch == 0).all()))
try:
    F.dropout(h, p=1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Dropout(p=-0.1)
except Exception as e:
    print(type(e).__name__, e)
