"""A seeded training script as users write it: random data, default layer initialisation, a shuffled
DataLoader, dropout, Adam. PyTorch's generator makes every printed number PyTorch's."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(42)
X = torch.randn(96, 8)
w_true = torch.randn(8, 1)
y = (X @ w_true + 0.1 * torch.randn(96, 1) > 0).float()
train, val = random_split(TensorDataset(X, y), [80, 16])
print("split", sorted(val.indices)[:8])

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 1))
print("init", round(model[0].weight.sum().item(), 4), round(model[3].bias.item(), 4))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.BCEWithLogitsLoss()
loader = DataLoader(train, batch_size=16, shuffle=True)
for epoch in range(4):
    model.train()
    total = 0.0
    first = None
    for xb, yb in loader:
        if first is None:
            first = xb[0, 0].item()
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    model.eval()
    with torch.no_grad():
        acc = ((model(val[:][0]) > 0).float() == val[:][1]).float().mean().item()
    print(f"epoch {epoch} first {first:.4f} loss {total / 80:.4f} val_acc {acc:.4f}")
emb = nn.Embedding(5, 3)
print("embedding", [round(v, 4) for v in emb.weight[0].tolist()])
conv = nn.Conv2d(1, 2, 3)
print("conv", [round(v, 4) for v in conv.bias.tolist()])
lstm = nn.LSTM(3, 4)
print("lstm", round(lstm.weight_hh_l0.sum().item(), 4))
