"""GitHub issues about expand, repeat and broadcasting: expand's -1 and new leading dims, its errors, memory
sharing and writes through expanded views, broadcast_to/broadcast_tensors/broadcast_shapes and their errors,
sum_to_size, repeat vs repeat_interleave vs tile, and the gradients each sends back."""

import torch


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        vals = [round(v, 4) for v in out.detach().flatten().tolist()] if out.numel() <= 12 else "..."
        print(f"{name}: {tuple(out.shape)} {out.stride()} {vals}")
    elif isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
        print(f"{name}: {[(tuple(o.shape), o.stride()) for o in out]}")
    else:
        print(f"{name}: {out}")


a = torch.tensor([[1.0], [2.0], [3.0]])
show("expand", lambda: a.expand(3, 4))
show("expand -1", lambda: a.expand(-1, 2))
show("expand new dims", lambda: a.expand(2, 3, 2))
show("expand -1 new dim", lambda: a.expand(-1, 3, 2))
show("expand bad", lambda: a.expand(4, 4))
show("expand fewer dims", lambda: a.expand(4))
show("expand tuple", lambda: a.expand((3, 2)))
show("expand torch.Size", lambda: a.expand(torch.Size([3, 2])))
show("expand_as", lambda: a.expand_as(torch.zeros(2, 3, 5)))
show("expand 0", lambda: torch.zeros(1, 2).expand(0, 2))
show("expand shares", lambda: a.expand(3, 4).data_ptr() == a.data_ptr())
show("expand view", lambda: a.expand(3, 4).view(12))
show("expand reshape", lambda: a.expand(3, 4).reshape(12))
show("expand flatten", lambda: a.expand(3, 4).flatten())
show("expand contiguous", lambda: a.expand(3, 2).contiguous())
b = a.clone()
e = b.expand(3, 2)
b[0, 0] = 10.0
show("write base seen", lambda: e)
show("expand fill_", lambda: b.expand(3, 2).fill_(1))
show("expand setitem", lambda: b.expand(3, 2).__setitem__((0, 0), 5.0))
show("expand zero_", lambda: b.expand(3, 2).zero_())

# broadcasting helpers
show("broadcast_to", lambda: torch.broadcast_to(torch.arange(3.0), (2, 3)))
show("broadcast_to bad", lambda: torch.broadcast_to(torch.arange(3.0), (3, 2)))
show("broadcast_tensors", lambda: torch.broadcast_tensors(torch.zeros(3, 1), torch.zeros(1, 4), torch.zeros(4)))
show("broadcast_tensors bad", lambda: torch.broadcast_tensors(torch.zeros(3), torch.zeros(4)))
show("broadcast_shapes", lambda: torch.broadcast_shapes((3, 1), (1, 4), (2, 1, 1)))
show("broadcast_shapes int", lambda: torch.broadcast_shapes(5, (3, 1)))
show("broadcast_shapes bad", lambda: torch.broadcast_shapes((3, 2), (4, 2)))
show("add bad", lambda: torch.zeros(3, 2) + torch.zeros(3))
show("add ok", lambda: torch.zeros(3, 2) + torch.zeros(3, 1))
show("matmul batch broadcast", lambda: (torch.ones(2, 1, 3, 4) @ torch.ones(5, 4, 2)).shape)
show("matmul batch bad", lambda: torch.ones(2, 3, 4) @ torch.ones(5, 4, 2))
show("sum_to_size", lambda: torch.ones(2, 3, 4).sum_to_size(3, 1))
show("sum_to_size bad", lambda: torch.ones(2, 3).sum_to_size(2))
show("sum_to_size same", lambda: torch.ones(2, 3).sum_to_size((2, 3)))
show("where broadcast 3", lambda: torch.where(torch.tensor([[True], [False]]), torch.zeros(3), torch.ones(2, 1, 1)))
show("lerp broadcast", lambda: torch.lerp(torch.zeros(2, 1), torch.ones(3), torch.tensor([0.5])))

# repeat family
r = torch.tensor([[1, 2], [3, 4]])
show("repeat", lambda: r.repeat(2, 1))
show("repeat more dims", lambda: r.repeat(2, 1, 3))
show("repeat fewer", lambda: r.repeat(2))
show("repeat_interleave", lambda: r.repeat_interleave(2))
show("repeat_interleave dim", lambda: r.repeat_interleave(2, dim=0))
show("repeat_interleave tensor", lambda: r.repeat_interleave(torch.tensor([1, 3]), dim=1))
show("repeat_interleave bad", lambda: r.repeat_interleave(torch.tensor([1, 2, 3]), dim=0))
show("repeat_interleave counts", lambda: torch.repeat_interleave(torch.tensor([2, 0, 1])))
show("tile", lambda: r.tile((2,)))
show("tile more", lambda: r.tile((2, 1, 1)))
show("expand vs repeat equal", lambda: torch.equal(torch.tensor([[1], [2]]).expand(2, 3),
                                                   torch.tensor([[1], [2]]).repeat(1, 3)))

# gradients
w = torch.tensor([[1.0], [2.0]], requires_grad=True)
(w.expand(2, 3) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
show("grad expand", lambda: w.grad)
w.grad = None
(w.repeat(2, 3) ** 2).sum().backward()
show("grad repeat", lambda: w.grad)
w.grad = None
(w.repeat_interleave(torch.tensor([1, 3]), dim=0) * torch.arange(1.0, 5.0).unsqueeze(1)).sum().backward()
show("grad repeat_interleave", lambda: w.grad)
w.grad = None
(torch.broadcast_to(w, (4, 2, 5))).sum().backward()
show("grad broadcast_to", lambda: w.grad)
w.grad = None
x, y = torch.broadcast_tensors(w, torch.zeros(3))
(x * torch.arange(3.0)).sum().backward()
show("grad broadcast_tensors", lambda: w.grad)
w.grad = None
(w + torch.zeros(2, 4)).sum_to_size(2, 1).sum().backward()
show("grad sum_to_size", lambda: w.grad)
print("fns", type(w.expand(2, 3).grad_fn).__name__, type(w.repeat(1, 2).grad_fn).__name__,
      type(torch.broadcast_to(w, (2, 2)).grad_fn).__name__, type(w.tile((2,)).grad_fn).__name__,
      type(w.expand_as(torch.zeros(2, 2)).grad_fn).__name__)
