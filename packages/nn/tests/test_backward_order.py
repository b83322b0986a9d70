"""The order backward runs a model's nodes in: as PyTorch's engine, a leaf's gradient is accumulated
(and its post-accumulate hooks run) as soon as it is complete."""

import ember.autograd as torch
import ember.nn as nn
import ember.nn.functional as F


def test_leaf_sinks_run_as_soon_as_their_gradient_is_complete():
    # PyTorch's order (torch 2.13, this program): an AccumulateGrad has the top sequence number, so
    # a layer's parameters are accumulated before backward goes on to the layers below it (DDP
    # launches its buckets from these hooks), and ready sinks run in the order they became ready
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3))
    order = []
    for n, p in m.named_parameters():
        p.register_post_accumulate_grad_hook(lambda p, n=n: order.append(n))
    x = torch.randn(5, 4, requires_grad=True)
    x.register_hook(lambda g: order.append("x"))
    h = m[0](x)
    h.register_hook(lambda g: order.append("h0"))
    h = m[2](m[1](h))
    h.register_hook(lambda g: order.append("h2"))
    F.cross_entropy(m[4](m[3](h)), torch.tensor([0, 1, 2, 0, 1])).backward()
    assert order == ["4.bias", "4.weight", "h2", "2.bias", "2.weight", "h0", "0.bias", "x", "0.weight"]
    sinks = [f for f, _ in m[4](h).grad_fn.next_functions if type(f).__name__ == "AccumulateGrad"]
    assert sinks and all(f._sequence_nr() == 2**64 - 1 for f in sinks)

    order.clear()
    c, b = nn.Conv2d(2, 2, 3, padding=1), nn.BatchNorm2d(2)
    named = [*(("conv." + k, v) for k, v in c.named_parameters()), *(("bn." + k, v) for k, v in b.named_parameters())]
    for n, p in named:
        p.register_post_accumulate_grad_hook(lambda p, n=n: order.append(n))
    z = torch.randn(2, 2, 4, 4)
    (b(c(z)) + z).relu().sum().backward()
    assert order == ["bn.weight", "bn.bias", "conv.weight", "conv.bias"]
