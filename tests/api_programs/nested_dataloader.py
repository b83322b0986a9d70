"""A DataLoader whose collate_fn batches variable-length samples into jagged nested tensors, and a bag-of-tokens
classifier trained on them."""
import torch
from torch.utils.data import DataLoader, Dataset

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class RaggedDataset(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.items = []
        for i in range(n):
            length = int(torch.randint(2, 7, (1,), generator=g))
            tokens = torch.randint(0, 30, (length,), generator=g)
            feats = torch.randn(length, 4, generator=g)
            self.items.append((tokens, feats, i % 3))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    tokens, feats, labels = zip(*batch)
    return (torch.nested.nested_tensor(list(tokens), layout=torch.jagged),
            torch.nested.as_nested_tensor(list(feats), layout=torch.jagged),
            torch.tensor(labels))


ds = RaggedDataset(12)
print(len(ds), [len(ds[i][0]) for i in range(6)])
loader = DataLoader(ds, batch_size=4, shuffle=False, collate_fn=collate)
tok, feat, lab = next(iter(loader))
print(tok.dtype, tok.shape[0], tok.offsets().tolist(), feat.shape[2], feat.offsets().tolist(), lab.tolist())
print(tok.size(1) is feat.size(1), str(tok.size(1)) == str(feat.size(1)))


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 8)
        self.feat = nn.Linear(4, 8)
        self.mix = nn.Linear(8, 8)
        self.cls = nn.Linear(8, 3)

    def forward(self, tok, feat):
        e = self.emb(tok)
        f = self.feat(feat)
        f = torch.nested.nested_tensor_from_jagged(f.values(), e.offsets())  # same rows, one ragged size
        h = torch.tanh(self.mix(e + f))
        pooled = torch.stack([x.mean(0) for x in h.unbind()])
        return self.cls(pooled)


model = BagClassifier()
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
for epoch in range(3):
    total = 0.0
    for tok, feat, lab in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(tok, feat), lab)
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, round(total / len(loader), 4))

with torch.no_grad():
    preds = torch.cat([model(t, f).argmax(-1) for t, f, _ in loader])
print(preds.tolist(), round(model.emb.weight.norm().item(), 4))

# a mismatched batch: features built separately do not share the tokens' ragged size
tok, feat, lab = next(iter(loader))
try:
    model.emb(tok) + model.feat(feat)
except RuntimeError as e:
    print("RuntimeError", str(e).replace(str(tok.size(1)), "j").replace(str(feat.size(1)), "j"))
