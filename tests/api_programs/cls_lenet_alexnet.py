"""LeNet-5 and a narrow AlexNet as torchvision writes them: features/avgpool/classifier Sequentials, parameter
counts per layer, named_children and state_dict keys, module reprs, eval against train outputs with Dropout,
replacing the classifier head, freezing the features and counting trainable parameters, and a few SGD steps."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def fill_(model, scale=0.2):
    """Deterministic weights drawn with numpy (PyTorch's RNG is not ember's)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)) * scale)


class LeNet5(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)
        self.pool1 = nn.AvgPool2d(kernel_size=2, stride=2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.pool2 = nn.AvgPool2d(2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = self.pool1(torch.tanh(self.conv1(x)))
        x = self.pool2(torch.tanh(self.conv2(x)))
        x = x.view(x.size(0), -1)
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


class AlexNet(nn.Module):
    def __init__(self, num_classes=1000, dropout=0.5, w=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4 * w, kernel_size=11, stride=4, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(4 * w, 12 * w, kernel_size=5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(12 * w, 24 * w, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(24 * w, 16 * w, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(16 * w, 16 * w, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Linear(16 * w * 6 * 6, 32),
            nn.ReLU(inplace=True),
            nn.Dropout(p=dropout),
            nn.Linear(32, 32),
            nn.ReLU(inplace=True),
            nn.Linear(32, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


lenet = LeNet5()
fill_(lenet)
print(lenet)
total = sum(p.numel() for p in lenet.parameters())
print("lenet params", total)
for name, p in lenet.named_parameters():
    print(f"  {name:12s} {str(tuple(p.shape)):18s} {p.numel():6d} {p.dtype}")
print("children", [n for n, _ in lenet.named_children()])
x = torch.from_numpy(rng.standard_normal((2, 1, 28, 28)).astype(np.float32))
out = lenet(x)
print("lenet out", tuple(out.shape), r(out, 5), out.grad_fn.name())
print("argmax", out.argmax(1).tolist(), "softmax sum", r(F.softmax(out, 1).sum(1)))

feats = {}
h = lenet.pool2.register_forward_hook(lambda m, i, o: feats.__setitem__("pool2", o.detach()))
lenet(x)
h.remove()
print("pool2 feature", tuple(feats["pool2"].shape), r(feats["pool2"].mean((0, 2, 3)), 6))
print("hooks after remove", len(lenet.pool2._forward_hooks))

alex = AlexNet(num_classes=5)
fill_(alex, 0.04)
print(alex.classifier)
print("features[0]", alex.features[0], "avgpool", alex.avgpool)
n_feat = sum(p.numel() for p in alex.features.parameters())
n_cls = sum(p.numel() for p in alex.classifier.parameters())
print("alexnet params", n_feat, n_cls, n_feat + n_cls)
print("state_dict keys", list(alex.state_dict().keys()))
img = torch.from_numpy(rng.standard_normal((2, 3, 95, 95)).astype(np.float32))
shapes = []
y = img
for i, layer in enumerate(alex.features):
    y = layer(y)
    if isinstance(layer, (nn.Conv2d, nn.MaxPool2d)):
        shapes.append((i, type(layer).__name__, tuple(y.shape)))
print("feature shapes", shapes)
print("avgpool", tuple(alex.avgpool(y).shape))

alex.eval()
with torch.no_grad():
    e1 = alex(img)
    e2 = alex(img)
print("eval deterministic", torch.equal(e1, e2), r(e1, 5))
alex.train()
torch.manual_seed(0)
t1 = alex(img)
torch.manual_seed(0)
t2 = alex(img)
print("train seeded equal", torch.equal(t1, t2), "differs from eval", not torch.allclose(t1, e1))
print("training flags", alex.training, alex.classifier[0].training, alex.features.training)

alex.classifier[-1] = nn.Linear(32, 3)
with torch.no_grad():
    alex.classifier[-1].weight.copy_(torch.linspace(-0.5, 0.5, 96).view(3, 32))
    alex.classifier[-1].bias.zero_()
print("new head", alex.classifier[-1], alex.classifier[6].out_features)
for p in alex.features.parameters():
    p.requires_grad = False
trainable = sum(p.numel() for p in alex.parameters() if p.requires_grad)
frozen = sum(p.numel() for p in alex.parameters() if not p.requires_grad)
print("trainable", trainable, "frozen", frozen)
print("frozen names", [n for n, p in alex.named_parameters() if not p.requires_grad][:4])

alex.eval()
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, alex.parameters()), lr=0.05, momentum=0.9,
                      weight_decay=5e-4)
target = torch.tensor([0, 2])
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(alex(img), target)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
print("features grad", alex.features[0].weight.grad,
      "head grad norm", round(alex.classifier[-1].weight.grad.norm().item(), 4))
print("opt groups", len(opt.param_groups), len(opt.param_groups[0]["params"]), sorted(opt.param_groups[0].keys()))
