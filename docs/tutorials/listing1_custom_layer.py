"""The paper's Listing 1: a custom layer is a `Module` whose parameters are `Parameter(randn(...))`
and whose `forward` is plain Python over tensor ops (`mm`, `+`).

Only the imports differ from the PyTorch original (`torch` -> `ember.autograd`, `torch.nn` ->
`ember.nn`). One line differs from the paper's schematic code: the convolution's 4-D output is
flattened before the matrix product (`mm` takes matrices, in PyTorch as here).

Run: `python docs/tutorials/listing1_custom_layer.py` (EMBER_TUTORIAL_QUICK=1 for a short run).
"""

import os

import ember.autograd as torch
import ember.nn as nn


class LinearLayer(nn.Module):
    def __init__(self, in_sz, out_sz):
        super().__init__()
        t1 = torch.randn(in_sz, out_sz)
        self.w = nn.Parameter(t1)
        t2 = torch.randn(out_sz)
        self.b = nn.Parameter(t2)

    def forward(self, activations):
        t = torch.mm(activations, self.w)
        return t + self.b


class FullBasicModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 128, 3)
        self.fc = LinearLayer(128, 10)

    def forward(self, x):
        t1 = self.conv(x)
        t2 = nn.functional.relu(t1)
        t3 = self.fc(t2.flatten(1))
        return nn.functional.softmax(t3, dim=1)


def main() -> None:
    torch.manual_seed(0)
    model = FullBasicModel()
    print(model)
    x = torch.randn(4, 1, 3, 3)
    probs = model(x)
    print("output", tuple(probs.shape), "rows sum to", probs.sum(1).tolist())
    steps = 3 if os.environ.get("EMBER_TUTORIAL_QUICK") == "1" else 50
    target = torch.tensor([0, 1, 2, 3])
    # plain gradient descent by hand: the parameters are ordinary leaf tensors
    for step in range(steps):
        loss = -(probs[torch.arange(4), target] + 1e-9).log().mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
        probs = model(x)
        if step == 0 or step == steps - 1:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
