"""The 60-minute blitz: tensor creation and ops (*_like, rand shapes, slicing, cat, matmul three ways, in-place
add_), the numpy bridge sharing memory both ways, autograd with backward(v) vector-Jacobian products, the LeNet
'Neural Networks' page (print(net), parameters, zero_grad, backward, the grad_fn chain, manual and optim updates),
and the CIFAR-style classifier loop printing running loss and per-class accuracy."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

rng = np.random.default_rng(0)
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
print("rand_like", x_rand.shape, x_rand.dtype, bool(((x_rand >= 0) & (x_rand < 1)).all()))
shape = (2, 3,)
print(f"Ones Tensor: \n {torch.ones(shape)} \n")
print(f"Zeros Tensor: \n {torch.zeros(shape)}")
tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(y3, torch.equal(y1, y2), torch.equal(z1, z3))
agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
print(f"{tensor} \n")
tensor.add_(5)
print(tensor)

# numpy bridge
t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")
x = torch.empty(5, 3)
print("empty", x.size(), x.size()[0], torch.zeros(5, 3, dtype=torch.long))
x = torch.tensor([5.5, 3])
x = x.new_ones(5, 3, dtype=torch.double)
print(x)
x = torch.randn_like(x, dtype=torch.float)
print(x.size(), x.dtype)
y = torch.from_numpy(rng.random((5, 3)).astype(np.float32))
result = torch.empty(5, 3)
torch.add(x, y, out=result)
print(torch.allclose(result, x + y), x[:, 1].shape)
x = torch.randn(4, 4)
print(x.view(16).size(), x.view(-1, 8).size())
x = torch.randn(1)
print(type(x.item()).__name__, x.item() == x[0].item())

# autograd
x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn.__class__.__name__, x.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
a = torch.from_numpy(rng.standard_normal((2, 2)).astype(np.float32))
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(type(b.grad_fn).__name__, b.grad_fn.name(), str(b.grad_fn).startswith("<SumBackward0 object at 0x"))
out.backward()
print(x.grad)
x = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
try:
    (x * 2).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
print(x.requires_grad, (x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
y = x.detach()
print(y.requires_grad, x.eq(y).all())
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()  # noqa: UP008 (as the tutorial types it)
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            fan = p[0].numel() if p.dim() > 1 else p.shape[0]
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)) / fan ** 0.5)
    return m


net = det(Net())
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
input = torch.from_numpy(rng.standard_normal((1, 1, 32, 32)).astype(np.float32))
out = net(input)
print(out)
net.zero_grad()
out.backward(torch.from_numpy(rng.standard_normal((1, 10)).astype(np.float32)))
print("conv1 grad", params[0].grad.shape, round(params[0].grad.abs().sum().item(), 4))
output = net(input)
target = torch.from_numpy(rng.standard_normal(10).astype(np.float32))
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(type(loss.grad_fn).__name__)
c1 = F.relu(net.conv1(input))
print(c1.grad_fn.name(), c1.grad_fn.next_functions[0][0].name())
print([None if f is None else type(f).__name__ for f, _ in c1.grad_fn.next_functions[0][0].next_functions])
print(c1.grad_fn.next_functions[0][0].next_functions[1][0].variable is net.conv1.weight)
net.zero_grad()
print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)
loss.backward()
print("conv1.bias.grad after backward")
print(net.conv1.bias.grad)
learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)
optimizer = optim.SGD(net.parameters(), lr=0.01)
for _ in range(3):
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print("step loss", round(loss.item(), 4))

# classifier
classes = ('plane', 'car', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck')
images_np = rng.random((64, 3, 32, 32)).astype(np.float32)
labels_np = rng.integers(0, 10, 64)
images_np[np.arange(64), labels_np % 3, :4, :4] += 2.0
trainset = torch.utils.data.TensorDataset((torch.from_numpy(images_np) - 0.5) / 0.5, torch.from_numpy(labels_np))
trainloader = torch.utils.data.DataLoader(trainset, batch_size=4, shuffle=False, num_workers=0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = det(Net())
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 8 == 7:
            print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 8:.3f}')
            running_loss = 0.0
print('Finished Training')
images, labels = next(iter(trainloader))
print('GroundTruth: ', ' '.join(f'{classes[labels[j]]:5s}' for j in range(4)))
outputs = net(images)
_, predicted = torch.max(outputs, 1)
print('Predicted: ', ' '.join(f'{classes[predicted[j]]:5s}' for j in range(4)))
correct = 0
total = 0
correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in trainloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
        for label, prediction in zip(labels, predicted):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
print(f'Accuracy of the network on the {total} train images: {100 * correct // total} %')
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / total_pred[classname]
    print(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
