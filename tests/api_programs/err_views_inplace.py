"""In-place writes through views, as optimizers, masking code and buffer updates do them, printed as
type(e).__name__ and the whole message: outputs of multi-view functions (unbind/split/chunk) modified in place,
views made under no_grad and modified with grad on, overlapping writes into expanded tensors, in-place ops whose
inputs alias their output, and the versions and grad_fns that the allowed writes leave."""

import torch

torch.manual_seed(15)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    print(f"{name}: ok {out}")
    return out


def base():
    return torch.randn(4, 3, requires_grad=True) * 1.0


# --- multi-output views -------------------------------------------------------------------------------------
show("unbind_inplace", lambda: base().unbind(0)[1].mul_(2))
show("split_inplace", lambda: base().split(2)[0].add_(1))
show("chunk_inplace", lambda: base().chunk(2, dim=1)[1].zero_())
show("split_with_sizes_inplace", lambda: base().split([1, 3])[1].clamp_(min=0))
show("unbind_setitem", lambda: base().unbind(1)[0].__setitem__(0, 5.0))
show("unbind_no_grad_ok", lambda: torch.randn(4, 3).unbind(0)[1].mul_(2).shape)
show("unbind_clone_ok", lambda: base().unbind(0)[1].clone().mul_(2).grad_fn.__class__.__name__)
show("select_inplace_ok", lambda: base()[1].mul_(2).grad_fn.__class__.__name__)
show("narrow_inplace_ok", lambda: base().narrow(0, 1, 2).add_(1).grad_fn.__class__.__name__)


def view_in_no_grad():
    b = base()
    with torch.no_grad():
        v = b[0]
    v.mul_(2)


show("no_grad_view_modified", view_in_no_grad)


def view_in_no_grad_under_no_grad():
    b = base()
    with torch.no_grad():
        v = b[0]
        v.mul_(2)
    return b._version


show("no_grad_view_modified_no_grad_ok", view_in_no_grad_under_no_grad)


def leaf_view_no_grad():
    w = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        v = w[:2]
    v.add_(1)


show("leaf_view_from_no_grad", leaf_view_no_grad)


def detached_view():
    b = base()
    d = b.detach()
    d[0] = 0.0
    return b._version, d._version


show("detached_shares_version", detached_view)


def custom_view_inplace():
    x = torch.randn(3, requires_grad=True) * 1.0
    y = x.view_as(x)
    y.add_(1)
    return type(x.grad_fn).__name__, type(y.grad_fn).__name__


show("view_inplace_rebases_ok", custom_view_inplace)

# --- overlapping memory -------------------------------------------------------------------------------------
show("expanded_add_", lambda: torch.zeros(3, 1).expand(3, 4).add_(1))
show("expanded_copy_", lambda: torch.zeros(1, 4).expand(3, 4).copy_(torch.ones(3, 4)))
show("expanded_setitem", lambda: torch.zeros(1, 4).expand(3, 4).__setitem__(0, 1.0))
show("expanded_fill_ok", lambda: torch.zeros(1, 4).expand(3, 4).fill_(2.0).sum().item())
show("expanded_zero_ok", lambda: torch.ones(1, 4).expand(3, 4).zero_().sum().item())
show("expanded_contiguous_ok", lambda: torch.zeros(1, 4).expand(3, 4).contiguous().add_(1).sum().item())
x = torch.arange(6.0)
show("out_alias_partial", lambda: torch.add(x[:4], 1, out=x[2:]))
show("out_alias_same_ok", lambda: torch.add(x, 1, out=x).tolist())
show("copy_overlap_partial", lambda: x[1:].copy_(x[:-1]).tolist())
show("mul_out_self_ok", lambda: torch.mul(x, x, out=x).tolist())
show("cumsum_out_overlap", lambda: torch.cumsum(x[:5], 0, out=x[1:]))
show("index_put_expanded", lambda: torch.zeros(1, 3).expand(2, 3).index_put_((torch.tensor([0]),), torch.ones(3)))
show("masked_fill_expanded", lambda: torch.zeros(1, 3).expand(2, 3).masked_fill_(torch.ones(2, 3).bool(), 1.0))

# --- versions after allowed writes --------------------------------------------------------------------------
t = torch.zeros(3)
v = t[1:]
v.add_(1)
t.mul_(2)
print("versions", t._version, v._version, t.tolist())
p = torch.nn.Parameter(torch.ones(2))
with torch.no_grad():
    p.add_(1)
    p[0] = 5.0
print("param after no_grad writes", p._version, p.tolist(), p.requires_grad, p.is_leaf)
buf = torch.zeros(2)
buf.add_(torch.ones(2), alpha=0.5)
buf.lerp_(torch.ones(2), 0.5)
print("buffer", buf._version, buf.tolist())
