"""Hogwild training (the PyTorch examples' mnist_hogwild, on synthetic data): one model in shared
memory, two processes training it at once without locks through torch.multiprocessing."""

import argparse

import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def make_dataset(seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(4, 16, generator=g) * 2
    y = torch.randint(0, 4, (512,), generator=g)
    x = centers[y] + torch.randn(512, 16, generator=g)
    return TensorDataset(x, y)


def train(rank, args, model, dataset):
    torch.manual_seed(args.seed + rank)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    model.train()
    for epoch in range(args.epochs):
        for data, target in loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()  # updates the shared parameters in place, without locks
    print(f"process {rank} done, last loss {loss.item():.4f}")


def test_loss(model, dataset):
    model.eval()
    x, y = dataset.tensors
    with torch.no_grad():
        return F.nll_loss(model(x), y).item()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-processes", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    mp.set_start_method("spawn", force=True)
    torch.manual_seed(args.seed)
    dataset = make_dataset(args.seed)
    model = Net()
    model.share_memory()  # gradients are allocated lazily, so they are not shared
    assert all(p.is_shared() for p in model.parameters())
    before = test_loss(model, dataset)
    processes = []
    for rank in range(args.num_processes):
        p = mp.Process(target=train, args=(rank, args, model, dataset))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    assert all(p.exitcode == 0 for p in processes), [p.exitcode for p in processes]
    after = test_loss(model, dataset)
    print(f"test loss before {before:.4f}, after {after:.4f}")
    # the children trained the parent's model: its parameters are the shared ones they updated
    assert after < 0.5 * before, (before, after)
    print("OK")
