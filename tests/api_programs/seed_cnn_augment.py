"""A seeded image-classification script with on-the-fly random augmentation, as vision training code writes it:
synthetic images, random flips and crops from torch.rand/randint, cutout masks, mixup with a Beta draw, a small
CNN with BatchNorm and Dropout2d, SGD with Nesterov momentum; every loss and statistic is PyTorch's."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(2023)

N, C, H, W, K = 48, 3, 12, 12, 4
protos = torch.randn(K, C, H, W)
labels = torch.randint(0, K, (N,))
images = protos[labels] + 0.8 * torch.randn(N, C, H, W)
print("labels", torch.bincount(labels, minlength=K).tolist(), "pixel mean", round(images.mean().item(), 4))


def random_flip(x, p=0.5):
    flip = torch.rand(x.shape[0]) < p
    x = x.clone()
    x[flip] = x[flip].flip(-1)
    return x, int(flip.sum())


def random_crop(x, pad=2):
    n = x.shape[0]
    padded = F.pad(x, (pad, pad, pad, pad), mode="reflect")
    ox = torch.randint(0, 2 * pad + 1, (n,))
    oy = torch.randint(0, 2 * pad + 1, (n,))
    out = torch.stack([padded[i, :, oy[i]:oy[i] + H, ox[i]:ox[i] + W] for i in range(n)])
    return out, ox.tolist()[:4]


def cutout(x, size=4):
    n = x.shape[0]
    cy = torch.randint(0, H, (n,))
    cx = torch.randint(0, W, (n,))
    ys = torch.arange(H).view(1, H, 1)
    xs = torch.arange(W).view(1, 1, W)
    mask = ((ys - cy.view(-1, 1, 1)).abs() < size // 2) & ((xs - cx.view(-1, 1, 1)).abs() < size // 2)
    return x.masked_fill(mask.unsqueeze(1), 0.0), mask.float().mean().item()


class Aug(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        img = self.x[i]
        if torch.rand(1).item() < 0.5:
            img = img.flip(-2)
        noise = 0.05 * torch.randn_like(img)
        return img + noise, self.y[i]


xb, nflip = random_flip(images[:8])
print("flipped", nflip, round(xb.sum().item(), 4))
xc, offs = random_crop(images[:8])
print("crop offsets", offs, tuple(xc.shape), round(xc.std().item(), 4))
xo, frac = cutout(images[:8])
print("cutout fraction", round(frac, 4), round(xo.abs().mean().item(), 4))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(C, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.Dropout2d(0.2),
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(32, K))

    def forward(self, x):
        return self.classifier(self.features(x))


model = SmallCNN()
print("conv0 weight", round(model.features[0].weight.sum().item(), 4), "fc bias", model.classifier[2].bias)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
loader = DataLoader(Aug(images, labels), batch_size=12, shuffle=True)
beta = torch.distributions.Beta(torch.tensor(0.4), torch.tensor(0.4))
for epoch in range(4):
    model.train()
    total, correct, seen = 0.0, 0, 0
    lams = []
    for x, y in loader:
        x, _ = random_flip(x)
        lam = beta.sample().item()
        lams.append(round(lam, 4))
        perm = torch.randperm(x.shape[0])
        mixed = lam * x + (1 - lam) * x[perm]
        out = model(mixed)
        loss = lam * F.cross_entropy(out, y) + (1 - lam) * F.cross_entropy(out, y[perm])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(y)
        correct += (out.argmax(1) == y).sum().item()
        seen += len(y)
    sched.step()
    print(f"epoch {epoch} loss {total / seen:.4f} acc {correct / seen:.4f} lr {sched.get_last_lr()[0]:.4f} "
          f"lams {lams[:2]}")

model.eval()
with torch.no_grad():
    logits = model(images)
    probs = logits.softmax(1)
print("eval acc", round((logits.argmax(1) == labels).float().mean().item(), 4))
print("probs[0]", probs[0])
bn = model.features[1]
print("bn running mean", bn.running_mean[:4])
print("bn running var", bn.running_var[:4])
tta = torch.stack([model(images[:4]), model(images[:4].flip(-1))]).mean(0)
print("tta logits", tta.detach())
