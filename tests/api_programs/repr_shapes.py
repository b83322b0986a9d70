"""Tensor reprs across shapes: 0-dim, one-element and empty tensors of every rank (size= and dtype= suffixes),
reductions over empty dims, 3-D to 5-D nesting with its blank lines, summarised tensors whose long dim is at
any position, threshold/edgeitems boundaries, narrow linewidths on nested tensors, and non-contiguous views
(transposes, expands with zero strides, flips, steps, permutes)."""

import torch

torch.manual_seed(0)
print(torch.ones(1), torch.ones(1, 1), torch.ones(1, 1, 1), torch.ones(1, 1, 1, 1), torch.ones(()))
print(torch.tensor(3.0).reshape(1, 1), torch.tensor([[5]]).squeeze(), torch.tensor([[[1.5]]]).item())
print(torch.zeros(0), torch.zeros(0, 0), torch.zeros(3, 0, 2), torch.zeros(0, dtype=torch.int64))
print(torch.zeros(0, dtype=torch.bool), torch.zeros(0, 2, dtype=torch.complex64), torch.zeros(0, dtype=torch.float16))
print(torch.tensor([]), torch.tensor([[]]), torch.tensor([[], []]), torch.tensor([], dtype=torch.long).reshape(0, 3))
print(torch.empty(0, 3).sum(0), torch.empty(0, 3).sum(), torch.zeros(2, 0).mean(1), torch.empty(0, 4).amax(1).shape)
print(torch.zeros(0, 3, requires_grad=True).sum(0), torch.zeros(0, 3, dtype=torch.float64, requires_grad=True) * 2)
print(torch.arange(10).reshape(2, 5)[:, 5:], torch.arange(10)[10:], torch.randn(3, 4)[torch.zeros(3, dtype=torch.bool)])
print(torch.cat([torch.zeros(0, 2), torch.ones(1, 2)]), torch.stack([torch.zeros(0), torch.zeros(0)]))

print(torch.randn(2, 3, 4))
print(torch.randn(2, 2, 2, 3))
print(torch.randn(1, 2, 1, 2, 2))
a = torch.arange(24.0).reshape(2, 3, 4)
print(a.permute(2, 0, 1), a[..., 1], a[:, None], a[0, :, ::2], a.movedim(0, -1)[0])
print(torch.ones(2, 3).expand(2, 2, 3), torch.tensor(5.0).expand(3), torch.arange(4.0).flip(0))
print(torch.arange(6).reshape(2, 3).t(), torch.arange(12).reshape(3, 4)[::2, 1::2], a.transpose(0, 2).stride())
print(a.unfold(2, 2, 2), a.diagonal(dim1=1, dim2=2), torch.arange(9.0).reshape(3, 3).tril())

# summarised: over 1000 elements, the long dim wherever it is
print(torch.arange(1001.0).reshape(7, 11, 13)[:2])
print(torch.arange(2002).reshape(2, 7, 11, 13))
print(torch.arange(1001.0).reshape(1001, 1))
print(torch.arange(1001.0).reshape(1, 1, 1001))
print(torch.randn(2, 1001) > 0)
print(torch.randn(1001, dtype=torch.complex64))
print(torch.arange(6 * 1000).reshape(6, 1000) % 7 == 0)
print(torch.randn(3, 4, 5, 6, 7))
print(torch.arange(1000.0), torch.arange(1000).reshape(10, 10, 10)[:, :2, :2])

# boundaries of threshold and edgeitems
torch.set_printoptions(threshold=8, edgeitems=1)
print(torch.arange(27).reshape(3, 3, 3), torch.arange(16.0).reshape(2, 8), torch.arange(9.0).reshape(3, 3))
print(torch.arange(8.0).reshape(2, 4), torch.arange(9.0).reshape(9, 1))
torch.set_printoptions(threshold=8, edgeitems=4)
print(torch.arange(9.0), torch.arange(10.0), torch.arange(8.0))
torch.set_printoptions(threshold=8, edgeitems=3)
print(torch.arange(6.0), torch.arange(7.0), torch.arange(14).reshape(2, 7), torch.arange(36).reshape(6, 6))
torch.set_printoptions(profile="default")

# narrow lines inside nested tensors, with suffixes
torch.set_printoptions(linewidth=20)
print(torch.arange(8.0).reshape(2, 4), torch.arange(12).reshape(2, 2, 3))
print(torch.ones(2, 2, dtype=torch.float64, requires_grad=True), torch.arange(5.0).reshape(1, 5) * 1e5)
torch.set_printoptions(linewidth=45)
print(torch.randn(2, 12), torch.arange(30).reshape(1, 2, 15))
torch.set_printoptions(profile="default")
print(torch.randn(3, 30))
