"""d2l.ai chapter 2 as readers type it: data manipulation (arange, reshape with -1, zeros/ones, concatenation,
X == Y, broadcasting, slicing, saving memory with id() and Z[:] =, numpy and scalar conversion), a pandas-free
preprocessing step, linear algebra (transpose, reductions with axis/keepdims, cumsum, dot, mv, mm, norms),
and calculus/autograd (2 x^T x, grads accumulating, backward of non-scalars, detach, control flow)."""

import numpy as np
import torch

rng = np.random.default_rng(2)


def err(f):
    try:
        f()
        print("  no error")
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


# 2.1 data manipulation
x = torch.arange(12, dtype=torch.float32)
print(x, x.numel(), x.shape)
X = x.reshape(3, 4)
print(X, x.reshape(-1, 4).shape, x.reshape(3, -1).shape)
print(torch.zeros((2, 3, 4)).shape, torch.ones((2, 3, 4)).sum())
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))
print(X[-1], X[1:3])
X[1, 2] = 17
X[:2, :] = 12
print(X)
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
print(x + y, x - y, x * y, x / y, x**y, sep="\n")
print(torch.exp(x))
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1), sep="\n")
print(X == Y)
print(X.sum())
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a, b, a + b, sep="\n")
err(lambda: torch.arange(3).reshape(3, 1) + torch.arange(4).reshape(2, 2))

before = id(Y)
Y = Y + X
print("id(Y) == before", id(Y) == before)
Z = torch.zeros_like(Y)
print("id(Z):", "same" if id(Z) == id(Z) else "other")
zid = id(Z)
Z[:] = X + Y
print("Z[:] keeps id", id(Z) == zid)
before = id(X)
X += Y
print("X += Y keeps id", id(X) == before)

A = X.numpy()
B = torch.from_numpy(A)
print(type(A).__name__, type(B).__name__, A.dtype, B.dtype)
a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))

# 2.2 data preprocessing without pandas: NumRooms, RoofType, Price
rooms = np.array([np.nan, 2.0, 4.0, np.nan])
roof_slate = np.array([0, 0, 1, 0], dtype=bool)
roof_nan = np.array([1, 1, 0, 1], dtype=bool)
price = np.array([127500.0, 106000.0, 178100.0, 140000.0])
rooms = np.where(np.isnan(rooms), np.nanmean(rooms), rooms)
inputs = np.stack([rooms, roof_slate, roof_nan], axis=1)
X, y = torch.tensor(inputs), torch.tensor(price)
print(X, y, sep="\n")

# 2.3 linear algebra
x = torch.tensor(3.0)
y = torch.tensor(2.0)
print(x + y, x * y, x / y, x**y)
x = torch.arange(3)
print(x, x[2], len(x), x.shape)
A = torch.arange(6).reshape(3, 2)
print(A.T, A.T.shape)
A = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
print(A == A.T)
print(torch.arange(24).reshape(2, 3, 4))
A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
B = A.clone()
print(A, A + B, A * B, sep="\n")
a = 2
X = torch.arange(24).reshape(2, 3, 4)
print(a + X, (a * X).shape)
x = torch.arange(3, dtype=torch.float32)
print(x, x.sum())
print(A.shape, A.sum())
print(A.shape, A.sum(axis=0).shape, A.sum(axis=1).shape)
print(A.sum(axis=[0, 1]) == A.sum())
print(A.mean(), A.sum() / A.numel())
print(A.mean(axis=0), A.sum(axis=0) / A.shape[0])
sum_A = A.sum(axis=1, keepdims=True)
print(sum_A, sum_A.shape)
print(A / sum_A)
print(A.cumsum(axis=0))
y = torch.ones(3, dtype=torch.float32)
print(x, y, torch.dot(x, y), torch.sum(x * y))
print(A.shape, x.shape, torch.mv(A, x), A @ x)
B = torch.ones(3, 4)
print(torch.mm(A, B), A @ B, sep="\n")
u = torch.tensor([3.0, -4.0])
print(torch.norm(u), torch.abs(u).sum())
print(torch.norm(torch.ones((4, 9))))
err(lambda: torch.dot(torch.arange(3), torch.ones(3)))
err(lambda: torch.mv(A, torch.ones(4)))
err(lambda: torch.mm(A, torch.ones(2, 4)))
err(lambda: A.sum(0, 1))  # meant A.sum(axis=[0, 1])
err(lambda: A.argmax(dim=(0, 1)))
err(lambda: A.cumsum(axis=0.0))
err(lambda: A.softmax(dim=1.0))
err(lambda: A.reshape())
err(lambda: torch.zeros_like([1, 2]))
print(A.sum(torch.tensor(1)), A.argmax(torch.tensor(0)))

# 2.5 automatic differentiation
x = torch.arange(4.0)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad, x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
print(x.grad)
x.grad.zero_()
err(lambda: (x * x).backward())
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.tensor(float(rng.standard_normal()), requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a)
x = torch.linspace(-3, 3, 7, requires_grad=True)
y = torch.sin(x)
y.sum().backward()
print(torch.round(x.grad, decimals=4), torch.allclose(x.grad, torch.cos(x)))
err(lambda: y.sum().backward())
