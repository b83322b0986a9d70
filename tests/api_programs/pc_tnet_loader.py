"""A ModelNet-style classification pipeline: a Dataset that normalises clouds to the unit sphere and samples a fixed
number of points with a seeded generator, a collate that pads ragged clouds with masks, PointNet with an input T-Net
and a 64x64 feature T-Net regularised by ||I - A A^T||_F via torch.eye and bmm, masked max-pooling, a StepLR
schedule, rotation voting at test time, per-class accuracy by bincount, and the module and loader reprs."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
data = torch.utils.data

torch.manual_seed(0)


class Shapes(data.Dataset):
    def __init__(self, n=12, npoints=48):
        g = torch.Generator().manual_seed(7)
        self.items = []
        for i in range(n):
            k = i % 3
            m = int(torch.randint(30, 60, (1,), generator=g))
            u = torch.rand(m, 3, generator=g) * 2 - 1
            if k == 0:
                pts = F.normalize(u, dim=1)
            elif k == 1:
                pts = u * torch.tensor([1.0, 0.2, 0.2])
            else:
                pts = u.sign() * u.abs().pow(0.3)
            self.items.append((pts, k))
        self.npoints = npoints

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        pts, label = self.items[i]
        pts = pts - pts.mean(0)
        pts = pts / pts.norm(dim=1).max()
        return pts[: self.npoints], label


def collate(batch):
    clouds, labels = zip(*batch)
    lengths = torch.tensor([c.shape[0] for c in clouds])
    padded = nn.utils.rnn.pad_sequence(list(clouds), batch_first=True, padding_value=0.5)
    mask = torch.arange(padded.shape[1]) < lengths[:, None]
    return padded, mask, torch.tensor(labels)


ds = Shapes()
print("dataset", len(ds), ds[0][0].shape, ds[1][1], round(ds[2][0].norm(dim=1).max().item(), 4))
loader = data.DataLoader(ds, batch_size=4, shuffle=True, collate_fn=collate, generator=torch.Generator().manual_seed(3))
for x, m, y in loader:
    print("batch", tuple(x.shape), m.sum(1).tolist(), y.tolist())
    break


class TNet(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.conv = nn.Sequential(nn.Conv1d(k, 32, 1), nn.BatchNorm1d(32), nn.ReLU(), nn.Conv1d(32, 64, 1), nn.ReLU())
        self.fc = nn.Linear(64, k * k)
        nn.init.zeros_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)

    def forward(self, x, mask):
        h = self.conv(x).masked_fill(~mask[:, None], float("-inf")).amax(-1)
        return self.fc(h).view(-1, self.k, self.k) + torch.eye(self.k, device=x.device)


class PointNetCls(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.stn, self.fstn = TNet(3), TNet(16)
        self.conv1 = nn.Sequential(nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU())
        self.conv2 = nn.Sequential(nn.Conv1d(16, 64, 1), nn.BatchNorm1d(64))
        self.head = nn.Sequential(nn.Linear(64, 32), nn.Dropout(p=0.0), nn.ReLU(), nn.Linear(32, n_cls))

    def forward(self, pts, mask):
        x = pts.transpose(2, 1)
        x = torch.bmm(x.transpose(2, 1), self.stn(x, mask)).transpose(2, 1)
        x = self.conv1(x)
        trans_feat = self.fstn(x, mask)
        x = torch.bmm(trans_feat, x)
        x = self.conv2(x).masked_fill(~mask[:, None], float("-inf"))
        return F.log_softmax(self.head(torch.max(x, 2, keepdim=False)[0]), dim=1), trans_feat


def feature_transform_regularizer(trans):
    d = trans.size()[1]
    eye = torch.eye(d)[None, :, :]
    return torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - eye, dim=(1, 2)))


model = PointNetCls()
print(model.fstn)
opt = torch.optim.Adam(model.parameters(), lr=0.003, betas=(0.9, 0.999), eps=1e-08, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(3):
    total = 0.0
    for x, m, y in loader:
        pred, trans_feat = model(x, m)
        loss = F.nll_loss(pred, y) + 0.001 * feature_transform_regularizer(trans_feat)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    sched.step()
    print("epoch", epoch, round(total / len(loader), 4), sched.get_last_lr(),
          round(feature_transform_regularizer(trans_feat).item(), 4))

model.eval()
eval_loader = data.DataLoader(ds, batch_size=6, shuffle=False, collate_fn=collate)
correct = torch.zeros(3, dtype=torch.long)
with torch.no_grad():
    for x, m, y in eval_loader:
        votes = torch.zeros(x.shape[0], 3)
        for v in range(4):
            a = torch.tensor(2 * math.pi * v / 4)
            R = torch.tensor([[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0], [-math.sin(a), 0.0, math.cos(a)]])
            votes += model(x @ R, m)[0].exp()
        pred = votes.argmax(1)
        correct += torch.bincount(y[pred == y], minlength=3)
print("votes", votes.round(decimals=3)[0].tolist())
print("per-class", correct.tolist(), (correct.float() / torch.bincount(torch.tensor([l for _, l in ds]))).tolist())
print(len(loader), loader.batch_size, loader.drop_last, type(loader.sampler).__name__,
      type(eval_loader.sampler).__name__)
