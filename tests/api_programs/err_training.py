"""Training-loop mistakes and PyTorch's words for them, printed as type(e).__name__ and the whole message:
in-place activations that overwrite saved outputs, losses that are lists or ints, models called with the wrong
container, gradient clipping of non-finite gradients, save/load of unpicklable objects and weights_only loads,
vmap over mismatched batch sizes, hooks returning the wrong shape, and the same loop written correctly."""

import io
import pickle

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(9)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {out.detach() if out.numel() <= 6 else out.detach().sum()}")
    else:
        print(f"{name}: ok {out}")
    return out


x, y = torch.randn(6, 4), torch.randint(0, 3, (6,))

# --- in-place activations after ops that save their outputs -----------------------------------------------------


class InplaceAfterSigmoid(nn.Module):
    def __init__(self, inplace):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.act = nn.ReLU(inplace=inplace)

    def forward(self, x):
        return self.act(torch.sigmoid(self.lin(x)) - 0.5)


show("relu_inplace_after_sub_ok", lambda: F.cross_entropy(InplaceAfterSigmoid(True)(x), y).backward())


class InplaceOnSaved(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        h = torch.tanh(self.lin(x))
        h += 1
        return h


show("iadd_after_tanh", lambda: InplaceOnSaved()(x).sum().backward())
show("sigmoid_then_relu_",
     lambda: torch.relu_(torch.sigmoid(torch.randn(3, requires_grad=True) * 1.0)).sum().backward())
show("exp_then_clamp_", lambda: torch.randn(3, requires_grad=True).exp().clamp_(max=1.0).sum().backward())
show("softmax_then_div_", lambda: torch.randn(3, requires_grad=True).softmax(0).div_(2).sum().backward())


def masked_assign():
    w = torch.randn(4, requires_grad=True)
    h = w.exp()
    h[h > 1] = 0
    h.sum().backward()
    return w.grad


show("masked_assign_after_exp", masked_assign)


def masked_where():
    w = torch.tensor([0.5, -0.5, 1.5, -1.5], requires_grad=True)
    h = w.exp()
    h = torch.where(h > 1, torch.zeros_like(h), h)
    h.sum().backward()
    return w.grad


show("masked_where_ok", masked_where)

# --- loss and model call mistakes ----------------------------------------------------------------------------
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
show("model_on_list", lambda: model([x[0], x[1]]))
show("model_on_numpy", lambda: model(x.numpy()))
show("model_on_tuple", lambda: model((x,)))
show("model_two_inputs", lambda: model(x, x))
show("loss_on_list", lambda: F.cross_entropy([model(x)], y))
show("backward_on_list", lambda: [F.cross_entropy(model(x), y)].backward())
show("backward_on_float", lambda: F.cross_entropy(model(x), y).item().backward())
show("loss_sum_of_list_ok", lambda: sum([F.cross_entropy(model(x), y), torch.tensor(0.5)]).round(decimals=4))
show("target_one_hot", lambda: F.nll_loss(model(x).log_softmax(1), F.one_hot(y, 3)))
show("target_2d_column", lambda: F.cross_entropy(model(x), y[:, None]))
show("target_fixed", lambda: F.cross_entropy(model(x), y[:, None].squeeze(1)).round(decimals=4))
show("loss_module_not_instantiated", lambda: nn.CrossEntropyLoss(model(x), y))
show("mse_module_reversed_ok", lambda: nn.MSELoss()(torch.ones(2), torch.zeros(2)))
show("loss_reduction_bad", lambda: F.mse_loss(torch.ones(2), torch.zeros(2), reduction="avg"))
show("loss_reduction_module", lambda: nn.L1Loss(reduction="batchmean")(torch.ones(2), torch.zeros(2)))

# --- gradient clipping --------------------------------------------------------------------------------------
for p in model.parameters():
    p.grad = torch.full_like(p, float("nan")) if p.ndim == 1 else torch.ones_like(p)
show("clip_nonfinite_error", lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True))
show("clip_nonfinite_silent", lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0))
show("clip_norm_type", lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type="fro"))
opt.zero_grad()
show("clip_no_grads", lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0))
show("clip_value_negative_ok", lambda: nn.utils.clip_grad_value_([torch.ones(2, requires_grad=True)], -1.0))
show("param_to_vector_ok", lambda: nn.utils.parameters_to_vector(model.parameters()).shape)
show("vector_to_params_len", lambda: nn.utils.vector_to_parameters(torch.zeros(5), model.parameters()))
show("vector_to_params_type", lambda: nn.utils.vector_to_parameters([0.0], model.parameters()))

# --- save / load -----------------------------------------------------------------------------------------------


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fn = lambda t: t * 2


def save_lambda():
    torch.save(Holder(), io.BytesIO())


show("save_lambda", save_lambda)


def save_local_class():
    class Local:
        pass

    torch.save({"obj": Local()}, io.BytesIO())


show("save_local_class", save_local_class)


def roundtrip(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **kw)


show("load_state_dict_ok", lambda: sorted(roundtrip(model.state_dict()).keys()))
show("load_full_module_ok", lambda: type(roundtrip(nn.Linear(2, 2), weights_only=False)).__name__)
show("load_empty", lambda: torch.load(io.BytesIO(b"")))
show("load_pickle_bytes", lambda: torch.load(io.BytesIO(pickle.dumps({"a": 1}))))
show("save_bad_target", lambda: torch.save({"a": 1}, 42))

# --- vmap and hooks --------------------------------------------------------------------------------------------
show("vmap_sizes", lambda: torch.func.vmap(torch.add)(torch.ones(3, 2), torch.ones(4, 2)))
show("vmap_in_dims_len", lambda: torch.func.vmap(torch.add, in_dims=(0,))(torch.ones(3), torch.ones(3)))
show("vmap_dim_range", lambda: torch.func.vmap(torch.sum, in_dims=2)(torch.ones(3, 2)))
show("vmap_ok", lambda: torch.func.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2)))
show("grad_nonscalar", lambda: torch.func.grad(lambda t: t * 2)(torch.ones(3)))
show("grad_ok", lambda: torch.func.grad(lambda t: (t ** 2).sum())(torch.arange(3.0)))


def bad_hook():
    lin = nn.Linear(3, 2)
    lin.weight.register_hook(lambda g: g[:1])
    lin(torch.ones(1, 3)).sum().backward()


show("hook_wrong_shape", bad_hook)


def bad_hook_type():
    t = torch.ones(2, requires_grad=True)
    t.register_hook(lambda g: "scaled")
    (t * 3).sum().backward()


show("hook_wrong_type", bad_hook_type)
show("hook_no_grad", lambda: torch.ones(2).register_hook(lambda g: g))
show("forward_hook_ok", lambda: nn.Linear(2, 2).register_forward_hook(lambda m, i, o: o * 0).__class__.__name__)

# --- the same loop, correctly ---------------------------------------------------------------------------------
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print("epoch", epoch, f"{loss.item():.4f}", f"{norm.item():.4f}")
