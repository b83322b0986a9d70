"""Curve fitting with L-BFGS and a strong-Wolfe line search (as in the PyTorch examples' time-sequence
prediction): a small double-precision network fits a sine wave in a few closure-driven steps."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

np.random.seed(0)
torch.manual_seed(0)
x = np.linspace(-3, 3, 64).reshape(-1, 1)
y = np.sin(x) + 0.3 * x
inputs, targets = torch.from_numpy(x), torch.from_numpy(y)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, input):
        return self.fc2(torch.tanh(self.fc1(input)))


net = Net().double()
criterion = nn.MSELoss()
optimizer = optim.LBFGS(net.parameters(), lr=0.8, line_search_fn="strong_wolfe")
losses = []
for i in range(8):
    def closure():
        optimizer.zero_grad()
        loss = criterion(net(inputs), targets)
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    losses.append(loss.item())
    print(f"STEP {i}: loss {loss.item():.6f}")

with torch.no_grad():
    final = criterion(net(inputs), targets).item()
print(f"final loss {final:.6f}")
assert final < 0.01 * losses[0], (losses[0], final)
print("OK")
