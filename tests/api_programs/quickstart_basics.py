"""The 'Learn the basics' quickstart: a Dataset of FashionMNIST-shaped data, DataLoader, nn.Flatten, train/test
loops, saving and loading a state_dict, model.eval(), accuracy via argmax(1) == y."""

import io
import os
import tempfile
import numpy as np
import torch
from torch import nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def det(m):
    """Parameters from numpy's generator (the programs' numbers must not depend on torch's RNG stream)."""
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * (1.0 / p.shape[-1]) ** 0.5)
    return m


class SyntheticFashion(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        self.x = rng.random((n, 28, 28)).astype(np.float32)
        self.y = rng.integers(0, 10, n)
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        image = torch.from_numpy(self.x[idx]).unsqueeze(0)
        label = int(self.y[idx])
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


def to_one_hot(y):
    return torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)


training_data = SyntheticFashion(96, transform=lambda t: (t - 0.5) / 0.5)
test_data = SyntheticFashion(32, transform=lambda t: (t - 0.5) / 0.5)
oh = SyntheticFashion(4, target_transform=to_one_hot)
print("one_hot", oh[0][1].tolist(), oh[0][0].shape)
labels_map = {0: "T-Shirt", 1: "Trouser", 2: "Pullover", 3: "Dress", 4: "Coat"}
img, label = training_data[3]
print("sample", img.shape, img.dtype, label, labels_map.get(label, "other"))
sample_idx = torch.randint(len(training_data), size=(1,)).item()
print("sample_idx", type(sample_idx).__name__, 0 <= sample_idx < 96)

shuffled = DataLoader(training_data, batch_size=16, shuffle=True)
train_dataloader = DataLoader(training_data, batch_size=16)
test_dataloader = DataLoader(test_data, batch_size=16)
train_features, train_labels = next(iter(shuffled))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()} {train_labels.dtype}")

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
device = "cpu"
print(f"Using {device} device")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = det(NeuralNetwork().to(device))
print(model)
X = T(1, 28, 28).sigmoid().to(device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print("pred", y_pred.shape, y_pred.dtype, round(pred_probab.sum().item(), 4))
input_image = T(3, 28, 28)
flat_image = nn.Flatten()(input_image)
print("flat", flat_image.size())
layer1 = nn.Linear(in_features=28 * 28, out_features=20)
hidden1 = layer1(flat_image)
print("hidden", hidden1.size(), bool((nn.ReLU()(hidden1) >= 0).all()))
print(f"Model structure: {model}\n\n".splitlines()[0])
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2].shape} {param.requires_grad}")

# autograd basics
x = torch.ones(5)
y = torch.zeros(3)
w = T(5, 3).requires_grad_()
b = T(3).requires_grad_(True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {type(z.grad_fn).__name__}")
print(f"Gradient function for loss = {type(loss.grad_fn).__name__}")
loss.backward()
print("w.grad", np.round(w.grad.numpy().astype(np.float64), 4).tolist())
print("b.grad", np.round(b.grad.numpy().astype(np.float64), 4).tolist())
with torch.no_grad():
    z = torch.matmul(x, w) + b
print("no_grad", z.requires_grad, (torch.matmul(x, w) + b).detach().requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

learning_rate = 1e-2
batch_size = 16
epochs = 3
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate, momentum=0.9)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 3 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return correct


for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "model.pth")
    torch.save(model.state_dict(), path)
    print("Saved PyTorch Model State to model.pth")
    model2 = NeuralNetwork().to(device)
    print("differs", not torch.equal(model2.linear_relu_stack[0].weight, model.linear_relu_stack[0].weight))
    res = model2.load_state_dict(torch.load(path, weights_only=True))
    print("load", res, res.missing_keys)
    torch.save(model, os.path.join(d, "full.pth"))
    model3 = torch.load(os.path.join(d, "full.pth"), weights_only=False)
    print("full", type(model3).__name__, model3.training)
model2.eval()
classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    x = x.to(device)
    pred = model2(x)
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
    print("same", torch.equal(model2(x), model(x)), torch.allclose(model3(x), model(x)))
buf = io.BytesIO()
torch.save({"epoch": 3, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict(),
            "loss": 0.5}, buf)
buf.seek(0)
ck = torch.load(buf)
optimizer2 = torch.optim.SGD(model2.parameters(), lr=0.5, momentum=0.9)
optimizer2.load_state_dict(ck["optimizer_state_dict"])
print("ckpt", ck["epoch"], ck["loss"], optimizer2.param_groups[0]["lr"], sorted(ck["optimizer_state_dict"].keys()))
print("state", len(optimizer2.state), list(optimizer2.state_dict()["state"][0].keys()))
