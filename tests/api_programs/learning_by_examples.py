"""'Learning PyTorch with Examples': fitting sin(x) with a cubic by raw tensors, then autograd, then a custom
autograd.Function (LegendrePolynomial3), nn.Sequential with nn.Flatten and MSELoss(reduction='sum'), optim.RMSprop,
a custom nn.Module, and the dynamic-control-flow module whose depth varies per forward pass."""

import math
import random
import numpy as np
import torch

dtype = torch.float
device = torch.device("cpu")
rng = np.random.default_rng(0)


def rnd(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
print("data", x.shape, x.dtype, round(x[0].item(), 4), round(x[-1].item(), 4), round(y.abs().max().item(), 4))

# raw tensors, gradients by hand
a, b, c, d = rnd(), rnd(), rnd(), rnd()
learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 500 == 99:
        print(t, round(loss, 2))
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print(f"Result: y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2 + {d.item():.3f} x^3")
print("scalars", a.shape, a.dim(), a.grad_fn, type(a.item()).__name__)

# autograd
a, b, c, d = (rnd().requires_grad_() for _ in range(4))
print("leaf", a.is_leaf, a.requires_grad, a.grad)
for t in range(1000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 400 == 99:
        print(t, round(loss.item(), 2), type(loss.grad_fn).__name__)
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f"Result: y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2 + {d.item():.3f} x^3")
print("after", a.is_leaf, a.grad, a.requires_grad, a._version > 0)


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(800):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t == 0:
        print("P3 node", type(y_pred.grad_fn).__name__, [type(n[0]).__name__ for n in y_pred.grad_fn.next_functions])
        inner = y_pred.grad_fn.next_functions[1][0].next_functions
        print("inner", [type(n[0]).__name__ for n in inner])
    if t % 300 == 99:
        print(t, round(loss.item(), 2))
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
print(f"Result: y = {a.item():.3f} + {b.item():.3f} * P3({c.item():.3f} + {d.item():.3f} x)")
xs = torch.linspace(-1, 1, 5, dtype=torch.double, requires_grad=True)
print("gradcheck", torch.autograd.gradcheck(LegendrePolynomial3.apply, (xs,)))

# nn
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print("xx", xx.shape, xx.dtype, round(xx[-1, 2].item(), 3))
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
print(model)
with torch.no_grad():
    model[0].weight.copy_(rnd(1, 3) * 0.1)
    model[0].bias.zero_()
loss_fn = torch.nn.MSELoss(reduction="sum")
for t in range(1000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 400 == 99:
        print(t, round(loss.item(), 2), y_pred.shape)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= 1e-6 * param.grad
linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + "
      f"{linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3")

# optim
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(rnd(1, 3) * 0.1)
    model[0].bias.zero_()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
print(optimizer)
for t in range(600):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 200 == 99:
        print(t, round(loss.item(), 2))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
st = optimizer.state[model[0].weight]
print("rmsprop state", sorted(st.keys()), st["step"], st["square_avg"].shape)
linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + "
      f"{linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3")


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(rnd())
        self.b = torch.nn.Parameter(rnd())
        self.c = torch.nn.Parameter(rnd())
        self.d = torch.nn.Parameter(rnd())

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f"y = {self.a.item():.3f} + {self.b.item():.3f} x + {self.c.item():.3f} x^2 + {self.d.item():.3f} x^3"


model = Polynomial3()
print(model, [n for n, _ in model.named_parameters()], model.a)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(1000):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 400 == 99:
        print(t, round(loss.item(), 2))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(rnd())
        self.b = torch.nn.Parameter(rnd())
        self.c = torch.nn.Parameter(rnd())
        self.d = torch.nn.Parameter(rnd())
        self.e = torch.nn.Parameter(rnd())

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return (f"y = {self.a.item():.3f} + {self.b.item():.3f} x + {self.c.item():.3f} x^2 + "
                f"{self.d.item():.3f} x^3 + {self.e.item():.3f} x^4 ? + {self.e.item():.3f} x^5 ?")


random.seed(0)
model = DynamicNet()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(1500):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 500 == 199:
        print(t, round(loss.item(), 1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")
print("momentum", sorted(optimizer.state[model.e].keys()), optimizer.defaults["momentum"],
      optimizer.defaults["nesterov"])
