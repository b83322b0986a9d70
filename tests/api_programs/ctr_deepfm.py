"""DeepFM on sparse fields: first-order weights, the FM square-of-sum trick, a DNN tower, pos_weight BCE."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

field_dims = [7, 5, 11, 3]
offsets = torch.tensor((0, *torch.tensor(field_dims).cumsum(0)[:-1].tolist()), dtype=torch.long)
print("offsets", offsets.tolist(), offsets.dtype)


class FeaturesLinear(nn.Module):
    def __init__(self, field_dims, output_dim=1):
        super().__init__()
        self.fc = nn.Embedding(sum(field_dims), output_dim)
        self.bias = nn.Parameter(torch.zeros((output_dim,)))
        self.register_buffer("offsets", torch.tensor((0, *torch.tensor(field_dims).cumsum(0)[:-1].tolist())))

    def forward(self, x):
        x = x + self.offsets.unsqueeze(0)
        return torch.sum(self.fc(x), dim=1) + self.bias


class FM(nn.Module):
    def forward(self, e):
        square_of_sum = torch.sum(e, dim=1) ** 2
        sum_of_square = torch.sum(e**2, dim=1)
        return 0.5 * torch.sum(square_of_sum - sum_of_square, dim=1, keepdim=True)


class DeepFM(nn.Module):
    def __init__(self, field_dims, embed_dim=4, hidden=(16, 8), dropout=0.0):
        super().__init__()
        self.linear = FeaturesLinear(field_dims)
        self.embedding = nn.Embedding(sum(field_dims), embed_dim)
        nn.init.xavier_uniform_(self.embedding.weight.data)
        self.register_buffer("offsets", torch.tensor((0, *torch.tensor(field_dims).cumsum(0)[:-1].tolist())))
        self.fm = FM()
        layers, d = [], len(field_dims) * embed_dim
        for h in hidden:
            layers += [nn.Linear(d, h, bias=False), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(p=dropout)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.mlp = nn.Sequential(*layers)
        self.embed_output_dim = len(field_dims) * embed_dim

    def forward(self, x):
        e = self.embedding(x + self.offsets.unsqueeze(0))
        logit = self.linear(x) + self.fm(e) + self.mlp(e.view(-1, self.embed_output_dim))
        return logit.squeeze(1)


model = DeepFM(field_dims)
print(model)
print("params", sum(p.numel() for p in model.parameters()))
print([n for n, _ in model.named_buffers()])

N = 64
x = torch.stack([torch.randint(0, d, (N,)) for d in field_dims], dim=1)
y = ((x[:, 0] % 2 == 0) & (x[:, 2] > 4)).float()
print("x", x.shape, x.dtype, "positives", int(y.sum().item()))

# FM trick equals the explicit pairwise sum
e = model.embedding(x[:3] + offsets)
pair = sum((e[:, i] * e[:, j]).sum(-1) for i in range(4) for j in range(i + 1, 4))
print("fm trick ok", torch.allclose(model.fm(e).squeeze(1), pair, atol=1e-6))

pos_weight = torch.tensor([(N - y.sum()) / y.sum()])
print("pos_weight", round(pos_weight.item(), 4))
crit = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
print(crit, crit.reduction)
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-6)
for step in range(30):
    model.train()
    opt.zero_grad()
    logits = model(x)
    loss = crit(logits, y)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, round(loss.item(), 4), loss.grad_fn.name())

model.eval()
with torch.no_grad():
    p = torch.sigmoid(model(x))
print("eval probs", p[:6].round(decimals=4).tolist())
print("acc", round(((p > 0.5).float() == y).float().mean().item(), 4))
manual = -(pos_weight * y * F.logsigmoid(model(x)) + (1 - y) * F.logsigmoid(-model(x))).mean()
print("manual pos_weight", torch.allclose(manual, crit(model(x), y), atol=1e-5))
print("bn running_mean", model.mlp[1].running_mean[:4].round(decimals=4).tolist())
print("num_batches_tracked", model.mlp[1].num_batches_tracked)
print("emb grad rows", int((model.embedding.weight.grad.abs().sum(1) > 0).sum()))
