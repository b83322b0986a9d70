"""Module: registration, iteration, state dicts, modes, conversions, hooks, repr, misuse errors."""

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.core import Tensor, dtypes


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.bn(self.fc(x)) * self.scale


def test_parameter_is_a_tensor_sharing_storage():
    data = torch.zeros(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert p.data_ptr() == data.data_ptr()
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nn.Parameter(torch.tensor([1, 2]))
    assert nn.Parameter(torch.tensor([1, 2]), requires_grad=False).dtype == torch.int64
    assert repr(nn.Parameter(torch.tensor([1.0, 2.0]))) == \
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    # print() and f-strings show the same header (str falls back to the subclass's repr)
    assert str(nn.Parameter(torch.tensor([1.0]))) == f"{nn.Parameter(torch.tensor([1.0]))}" == \
        "Parameter containing:\ntensor([1.], requires_grad=True)"

    class MyParam(nn.Parameter):
        pass

    # a subclass prints under its own name, wrapped as PyTorch's `Parameter(...)`
    assert repr(MyParam(torch.tensor([1.0]))) == "Parameter containing:\nParameter(MyParam([1.], requires_grad=True))"



def test_parameter_of_a_tensor_subclass_is_that_instance_flagged():
    """PyTorch 2.13: `nn.Parameter(t)` of a user's Tensor subclass returns `t` detached, of its own class, flagged
    `_is_param`; `isinstance(p, nn.Parameter)` holds and the repr wraps it in `Parameter(...)`."""

    class Sub(Tensor):
        pass

    t = torch.ones(2).as_subclass(Sub)
    p = nn.Parameter(t)
    assert type(p) is Sub and p is not t and p.data_ptr() == t.data_ptr() and p.requires_grad and p._is_param
    assert isinstance(p, nn.Parameter) and not isinstance(t, nn.Parameter) and not isinstance(p * 2, nn.Parameter)
    assert repr(p) == "Parameter(Sub([1., 1.], requires_grad=True))"
    q = nn.Parameter(t, requires_grad=False)
    assert not q.requires_grad and repr(q) == "Parameter(Sub([1., 1.]))"
    m = nn.Linear(2, 2)
    m.extra = p
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias", "extra"]
    assert not isinstance(torch.ones(1), nn.Parameter) and type(nn.Parameter(torch.ones(1))) is nn.Parameter

def test_integer_parameter_requiring_grad_is_refused():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nn.Parameter(torch.ones(2, dtype=torch.int64))
    p = nn.Parameter(torch.ones(2, dtype=torch.int64), requires_grad=False)
    assert p.dtype == torch.int64 and not p.requires_grad


def test_parameter_of_an_inference_tensor_is_one_and_requires_grad_only_inside_inference_mode():
    with torch.inference_mode():
        a = torch.ones(2)
        assert nn.Parameter(a).is_inference() and nn.Parameter(a).requires_grad
    p = nn.Parameter(a, requires_grad=False)
    assert p.is_inference() and not p.requires_grad and not nn.Parameter(torch.ones(2)).is_inference()
    with pytest.raises(RuntimeError, match=r"^Setting requires_grad=True on inference tensor outside InferenceMode is "
                                           r"not allowed\.$"):
        nn.Parameter(a)


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    assert q.data_ptr() != p.data_ptr() and q.tolist() == [1.0, 2.0]
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, nn.Parameter) and r.tolist() == [1.0, 2.0] and r.requires_grad


def test_registration_by_assignment():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["scale", "fc.weight", "fc.bias", "bn.weight", "bn.bias"]
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch", "bn.running_mean", "bn.running_var",
                                                   "bn.num_batches_tracked"]
    assert [n for n, _ in net.named_children()] == ["fc", "bn"]
    assert [n for n, _ in net.named_modules()] == ["", "fc", "bn"]
    assert net.fc.weight is net._modules["fc"]._parameters["weight"]
    assert len(list(net.parameters(recurse=False))) == 1
    assert [n for n, _ in net.named_parameters(prefix="model")][0] == "model.scale"
    assert "fc" in dir(net) and "scale" in dir(net) and "steps" in dir(net)


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_assigning_a_tensor_to_a_parameter_name_raises():
    lin = nn.Linear(4, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'weight' "
                                        r"\(ember.nn.Parameter or None expected\)"):
        lin.weight = torch.zeros(2, 4)
    previous = dtypes.set_repr_namespace("torch")  # under ember.torch the message names PyTorch's class
    try:
        with pytest.raises(TypeError, match=r"\(torch.nn.Parameter or None expected\)"):
            lin.weight = torch.zeros(2, 4)
    finally:
        dtypes.set_repr_namespace(previous)
    lin.bias = None
    assert lin.bias is None and "bias" in lin._parameters
    with pytest.raises(TypeError, match="as child module"):
        net = Net()
        net.fc = 3
    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        class Bad(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(torch.zeros(1))
        Bad()


def test_register_errors():
    m = nn.Module()
    with pytest.raises(KeyError, match="name can.*t contain"):
        m.register_buffer("a.b", torch.zeros(1))
    with pytest.raises(TypeError, match="cannot assign 'int' object to parameter 'w'"):
        m.register_parameter("w", 3)
    m.x = 1
    with pytest.raises(KeyError, match="attribute 'x' already exists"):
        m.register_buffer("x", torch.zeros(1))
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        _ = m.nope


def test_delattr_and_reassignment_moves_between_kinds():
    net = Net()
    del net.scale
    assert "scale" not in dict(net.named_parameters())
    net.steps = None
    assert net.steps is None
    net.extra = nn.Linear(1, 1)
    del net.extra
    assert "extra" not in net._modules
    net.register_buffer("steps", torch.ones(1))
    assert net.steps.tolist() == [1.0]


def test_state_dict_contents_and_keep_vars():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "steps", "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean",
                        "bn.running_var", "bn.num_batches_tracked"]
    assert not sd["fc.weight"].requires_grad and not isinstance(sd["fc.weight"], nn.Parameter)
    assert sd["fc.weight"].data_ptr() == net.fc.weight.data_ptr()
    assert net.state_dict(keep_vars=True)["fc.weight"] is net.fc.weight
    assert list(net.state_dict(prefix="m."))[0] == "m.scale"


def test_load_state_dict_round_trip_copies_values():
    a, b = Net(), Net()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    for (n, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
        np.testing.assert_array_equal(x.numpy(), y.numpy(), err_msg=n)
        assert x.data_ptr() != y.data_ptr()


def test_load_state_dict_strict_reports_missing_and_unexpected():
    net = Net()
    sd = net.state_dict()
    del sd["fc.bias"]
    sd["fc.extra"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as err:
        net.load_state_dict(sd)
    msg = str(err.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "fc.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "fc.extra".' in msg
    missing, unexpected = net.load_state_dict(sd, strict=False)
    assert missing == ["fc.bias"] and unexpected == ["fc.extra"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_load_state_dict_copy_failure_prints_sizes_as_size_objects():
    """PyTorch formats `param.size()` into the message: `torch.Size([3, 3])`, not a list."""
    from ember.core.sparse import sparse_csr_tensor

    class Holder(nn.Module):
        def __init__(self, nnz):
            super().__init__()
            self.register_buffer("adj", sparse_csr_tensor([0, nnz, nnz, nnz], list(range(nnz)), torch.ones(nnz),
                                                          (3, 3)))

    with pytest.raises(RuntimeError) as err:
        Holder(1).load_state_dict(Holder(2).state_dict())
    size = torch.ones(3, 3).shape
    assert (f'While copying the parameter named "adj", whose dimensions in the model are {size} and whose dimensions '
            f"in the checkpoint are {size}, an exception occurred : ('torch.copy_: only sparse compressed tensors "
            "with the same number of specified elements are supported.',).") in str(err.value)
    assert "Size([3, 3])" in str(size)


def test_load_state_dict_shape_mismatch_names_key_and_shapes():
    net = nn.Sequential(OrderedDict(fc=nn.Linear(4, 10)))
    sd = nn.Sequential(OrderedDict(fc=nn.Linear(5, 10))).state_dict()
    with pytest.raises(RuntimeError, match=r"size mismatch for fc.weight: copying a param with shape "
                                           r"ember.Size\(\[10, 5\]\) from checkpoint, the shape in current model is "
                                           r"ember.Size\(\[10, 4\]\)."):
        net.load_state_dict(sd)
    with pytest.raises(RuntimeError, match="size mismatch"):
        net.load_state_dict(sd, strict=False)


def test_train_eval_flags_propagate():
    net = Net()
    assert net.training and net.bn.training
    assert net.eval() is net
    assert not net.training and not net.fc.training and not net.bn.training
    net.train()
    assert net.bn.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")


def test_double_float_and_to_keep_parameter_objects():
    net = Net()
    w = net.fc.weight
    net.double()
    assert net.fc.weight is w and w.dtype == torch.float64
    assert net.bn.num_batches_tracked.dtype == torch.int64
    assert net.steps.dtype == torch.float64
    net.to(torch.float32)
    assert w.dtype == torch.float32
    net.to("cpu")
    net.to(torch.zeros(1, dtype=torch.float64))
    assert w.dtype == torch.float64
    net.float()
    assert w.dtype == torch.float32 and net.cpu() is net
    with pytest.raises(TypeError, match="floating point"):
        net.to(torch.int32)


def test_zero_grad_and_requires_grad():
    net = nn.Linear(2, 2)
    net.weight.grad = torch.ones(2, 2)
    net.zero_grad(set_to_none=False)
    assert net.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    net.zero_grad()
    assert net.weight.grad is None
    net.requires_grad_(False)
    assert not net.weight.requires_grad and not net.bias.requires_grad


def test_apply_visits_children_then_self():
    seen = []
    net = Net()
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "BatchNorm1d", "Net"]


def test_get_submodule_parameter_buffer():
    net = nn.Sequential(OrderedDict(enc=nn.Sequential(nn.Linear(2, 2)), bn=nn.BatchNorm1d(2)))
    assert net.get_submodule("enc.0") is net.enc[0]
    assert net.get_parameter("enc.0.weight") is net.enc[0].weight
    assert net.get_buffer("bn.running_mean") is net.bn.running_mean
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        net.get_submodule("enc.nope")
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        net.get_parameter("bn.running_mean")


def test_forward_hooks_can_replace_args_and_outputs():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    y = lin(torch.ones(3, 2))
    np.testing.assert_allclose(y.detach().numpy(), (lin.bias.detach().numpy() + 1)[None].repeat(3, 0), rtol=1e-6)
    assert calls == [(3, 2)]
    h1.remove()
    h2.remove()
    assert not lin._forward_hooks and not lin._forward_pre_hooks
    kw = []
    lin.register_forward_pre_hook(lambda m, a, k: kw.append(k), with_kwargs=True)
    lin.register_forward_hook(lambda m, a, k, o: kw.append("post"), with_kwargs=True)
    lin(torch.ones(1, 2))
    assert kw == [{}, "post"]


def test_forward_unimplemented():
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)


def test_repr_nested_like_pytorch():
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(inplace=True),
                        nn.Sequential(nn.Flatten(), nn.Linear(4, 2, bias=False)), nn.Dropout(0.25))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
        "  (1): ReLU(inplace=True)\n"
        "  (2): Sequential(\n"
        "    (0): Flatten(start_dim=1, end_dim=-1)\n"
        "    (1): Linear(in_features=4, out_features=2, bias=False)\n"
        "  )\n"
        "  (3): Dropout(p=0.25, inplace=False)\n"
        ")")


def test_module_list_repr_compresses_runs_like_pytorch():
    blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU()])
    assert repr(blocks) == (
        "ModuleList(\n"
        "  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (3-4): 2 x ReLU()\n"
        "  (5): Tanh()\n"
        "  (6): ReLU()\n"
        ")")
    nested = nn.ModuleList([nn.Sequential(nn.Linear(2, 2), nn.ReLU()) for _ in range(2)])
    assert repr(nested) == ("ModuleList(\n  (0-1): 2 x Sequential(\n    (0): Linear(in_features=2, out_features=2, "
                            "bias=True)\n    (1): ReLU()\n  )\n)")
    assert repr(nn.ModuleList()) == "ModuleList()"
    assert "(0): ReLU()\n  (1): ReLU()" in repr(nn.Sequential(nn.ReLU(), nn.ReLU()))  # Sequential does not


@pytest.mark.parametrize("module, text", [
    (nn.BatchNorm1d(3, momentum=None),
     "BatchNorm1d(3, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)"),
    (nn.Conv2d(2, 4, 3, padding="same", padding_mode="reflect"),
     "Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, padding_mode=reflect)"),
    (nn.LayerNorm(5), "LayerNorm((5,), eps=1e-05, elementwise_affine=True, bias=True)"),
    (nn.GroupNorm(2, 4), "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"),
    (nn.Embedding(10, 3, padding_idx=0), "Embedding(10, 3, padding_idx=0)"),
    (nn.EmbeddingBag(10, 3, mode="sum"), "EmbeddingBag(10, 3, mode='sum')"),
    (nn.LSTM(3, 4, num_layers=2, batch_first=True), "LSTM(3, 4, num_layers=2, batch_first=True)"),
    (nn.GRUCell(3, 4), "GRUCell(3, 4)"),
    (nn.RNN(3, 4, nonlinearity="relu"), "RNN(3, 4)"),  # PyTorch's RNN leaves nonlinearity out; its RNNCell not
    (nn.RNNCell(3, 4, nonlinearity="relu"), "RNNCell(3, 4, nonlinearity=relu)"),
    (nn.ParameterDict({"a": nn.Parameter(torch.ones(2)), "b": nn.Parameter(torch.ones(2, dtype=torch.float64))}),
     "ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of size 2]\n"
     "    (b): Parameter containing: [torch.DoubleTensor of size 2]\n)"),
    (nn.MaxPool2d(2), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"),
    (nn.AvgPool2d(2), "AvgPool2d(kernel_size=2, stride=2, padding=0)"),
    (nn.AdaptiveAvgPool2d((1, 1)), "AdaptiveAvgPool2d(output_size=(1, 1))"),
    (nn.Conv2d(2, 4, 3, bias=False, groups=2),
     "Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1), groups=2, bias=False)"),
    (nn.ConvTranspose2d(4, 2, 2, stride=2), "ConvTranspose2d(4, 2, kernel_size=(2, 2), stride=(2, 2))"),
    (nn.LeakyReLU(0.2), "LeakyReLU(negative_slope=0.2)"),
    (nn.Softmax(dim=1), "Softmax(dim=1)"),
    (nn.GELU(), "GELU(approximate='none')"),
    (nn.Upsample(scale_factor=2), "Upsample(scale_factor=2.0, mode='nearest')"),
    (nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (nn.Unflatten(1, (2, 3)), "Unflatten(dim=1, unflattened_size=(2, 3))"),
    (nn.Unflatten(1, [2, 3]), "Unflatten(dim=1, unflattened_size=[2, 3])"),
])
def test_layer_reprs(module, text):
    assert repr(module) == text


def test_multihead_attention_repr():
    assert repr(nn.MultiheadAttention(8, 2)) == (
        "MultiheadAttention(\n"
        "  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n"
        ")")


def test_module_deepcopy_is_independent():
    net = Net()
    twin = copy.deepcopy(net)
    assert twin.fc.weight is not net.fc.weight
    np.testing.assert_array_equal(twin.fc.weight.detach().numpy(), net.fc.weight.detach().numpy())
    with torch.no_grad():
        twin.fc.weight.fill_(0)
    assert net.fc.weight.abs().sum().item() > 0


def test_state_dict_round_trip_through_save_and_load(tmp_path):
    net = Net()
    net(torch.randn(5, 4))
    net.eval()
    torch.save(net.state_dict(), tmp_path / "net.pt")
    twin = Net()
    twin.load_state_dict(torch.load(tmp_path / "net.pt"))
    twin.eval()
    x = torch.randn(3, 4)
    np.testing.assert_array_equal(twin(x).detach().numpy(), net(x).detach().numpy())
    assert twin.bn.num_batches_tracked.item() == 1


def test_state_dict_and_load_hooks():
    net = nn.Sequential(nn.Linear(2, 2))
    calls = []
    net.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(("pre", prefix)))

    def post(m, sd, prefix, meta):
        sd[prefix + "extra"] = torch.zeros(1)

    net.register_state_dict_post_hook(post)
    sd = net.state_dict()
    assert calls == [("pre", "")] and "extra" in sd

    def rename(m, state_dict, prefix, meta, strict, missing, unexpected, errors):
        if prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")

    net[0].register_load_state_dict_pre_hook(rename)
    net[0].register_load_state_dict_post_hook(lambda m, keys: keys.unexpected_keys.clear())
    sd = {"0.w": torch.ones(2, 2), "0.bias": torch.zeros(2), "extra": torch.zeros(1)}
    net.load_state_dict(sd)
    assert net[0].weight.detach().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_always_call_forward_hook_runs_when_forward_raises():
    lin = nn.Linear(2, 2)
    seen = []
    lin.register_forward_hook(lambda m, a, out: seen.append(out), always_call=True)
    lin.register_forward_hook(lambda m, a, out: seen.append("plain"))
    with pytest.raises(RuntimeError):
        lin(torch.zeros(3, 5))
    assert seen == [None]


def test_load_state_dict_assign_uses_the_given_tensors():
    lin = nn.Linear(2, 2)
    w = torch.ones(2, 2)
    lin.load_state_dict({"weight": w, "bias": torch.zeros(2)}, assign=True)
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    assert lin.weight.data_ptr() == w.data_ptr()


def test_load_state_dict_assign_keeps_a_given_parameter_and_collects_errors():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    b.bias.requires_grad_(False)
    b.load_state_dict(a.state_dict(keep_vars=True), assign=True)
    assert b.weight is a.weight and b.bias is a.bias and not a.bias.requires_grad  # PyTorch requires_grad_'s it
    lin = nn.Linear(2, 2)
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict({"weight": torch.ones(2, 2), "bias": torch.zeros(2, dtype=torch.int64)}, assign=True)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Linear:\n\tWhile copying the parameter named "bias", whose dimensions '
        "in the model are ember.Size([2]) and whose dimensions in the checkpoint are ember.Size([2]), an exception "
        "occurred : ('Only Tensors of floating point and complex dtype can require gradients',).")
    assert lin.weight.sum().item() == 4.0


def test_load_state_dict_takes_a_one_element_tensor_for_a_scalar():
    bn = nn.BatchNorm1d(2)
    bn.load_state_dict({**bn.state_dict(), "num_batches_tracked": torch.tensor([7])})
    assert bn.num_batches_tracked.shape == () and bn.num_batches_tracked.item() == 7


def test_checkpoint_sequential_over_a_sequential_matches_the_plain_run():
    import numpy as np

    import ember.autograd as ea
    import ember.nn as nn
    from ember.autograd.checkpoint import checkpoint_sequential

    ea.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(8, 8), nn.Tanh()) for _ in range(6)])
    x = ea.randn(4, 8, requires_grad=True)
    model(x).sum().backward()
    expected = [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]
    model.zero_grad()
    x.grad = None
    checkpoint_sequential(model, 3, x, use_reentrant=False).sum().backward()
    got = [p.grad.numpy() for p in model.parameters()] + [x.grad.numpy()]
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_compile_without_an_installed_compiler_warns_and_stays_eager(monkeypatch):
    from ember.nn.modules import module as module_mod

    monkeypatch.setattr(module_mod, "_compiler", None)
    m = nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="Module.compile: no compiler is installed"):
        assert m.compile() is None
    assert "forward" not in m.__dict__


def test_compile_calls_the_installed_compiler_once(monkeypatch):
    from ember.nn.modules import module as module_mod

    class Recorder:
        """A compiler that records what it was given and runs the forward unchanged."""

        def __init__(self, fn, **options):
            self.fn, self.options = fn, options

        def __call__(self, *args):
            return self.fn(*args)

    monkeypatch.setattr(module_mod, "_compiler", Recorder)
    m = nn.Linear(2, 2)
    m.compile(fullgraph=True)
    m.compile()  # already compiled: kept
    got = m.__dict__["forward"]
    assert type(got) is Recorder and got.options == {"module": m, "fullgraph": True, "dynamic": None, "mode": None}
    x = m.weight.new_ones(3, 2)
    np.testing.assert_allclose(m(x).detach().numpy(), (x @ m.weight.T + m.bias).detach().numpy())


def test_state_dict_metadata_records_versions_and_gates_batchnorm_upgrade():
    import io

    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    sd = net.state_dict()
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("0", {"version": 1}), ("1", {"version": 2})])
    buf = io.BytesIO()
    torch.save(sd, buf)
    buf.seek(0)
    loaded = torch.load(buf)
    assert loaded._metadata == sd._metadata  # it survives a checkpoint, as PyTorch's
    # a version-2 BatchNorm state without num_batches_tracked is missing it (PyTorch's rule) ...
    del loaded["1.num_batches_tracked"]
    assert net.load_state_dict(loaded, strict=False).missing_keys == ["1.num_batches_tracked"]
    # ... an old one (no metadata) is upgraded, and the caller's dict is left as it was
    old = dict(net.state_dict())
    del old["1.num_batches_tracked"]
    assert net.load_state_dict(old).missing_keys == [] and "1.num_batches_tracked" not in old


def test_buffer_is_a_marked_detached_tensor_as_pytorchs():
    """`nn.Buffer(t)` returns a tensor (PyTorch prints and computes with it as one) that isinstance(.., Buffer)
    recognises, detached but keeping requires_grad; assigned to a module it registers with its persistence."""
    src = torch.ones(2, requires_grad=True) * 2
    b = nn.Buffer(src, persistent=False)
    assert isinstance(b, torch.Tensor) and isinstance(b, nn.Buffer) and not isinstance(src, nn.Buffer)
    assert b.requires_grad and b.grad_fn is None and b.tolist() == [2.0, 2.0]
    m = nn.Module()
    m.b = b
    m.c = nn.Buffer(torch.zeros(1))
    assert [n for n, _ in m.named_buffers()] == ["b", "c"] and list(m.state_dict()) == ["c"]


def test_register_buffer_of_a_non_tensor_names_the_namespace_tensor():
    m = nn.Module()
    with pytest.raises(TypeError, match=r"cannot assign 'list' object to buffer 'x' \(ember Tensor or None required\)"):
        m.register_buffer("x", [1])
    previous = dtypes.set_repr_namespace("torch")  # under ember.torch: PyTorch's words
    try:
        with pytest.raises(TypeError, match=r"\(torch Tensor or None required\)"):
            m.register_buffer("x", [1])
    finally:
        dtypes.set_repr_namespace(previous)


def test_public_state_dict_post_hooks_edit_in_place_and_return_none():
    m = nn.Linear(2, 2)
    h = m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd)
    with pytest.raises(RuntimeError, match="^state_dict post-hook must return None$"):
        m.state_dict()
    h.remove()
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": 1})  # the private form may replace it
    assert list(m.state_dict()) == ["only"]


def test_regular_and_full_backward_hooks_do_not_mix():
    m = nn.Linear(2, 2)
    assert m._is_full_backward_hook is None
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="^Cannot use both regular backward hooks and full backward hooks"):
        m.register_backward_hook(lambda *a: None)
    m2 = nn.Linear(2, 2)
    m2.register_backward_hook(lambda *a: None)
    assert m2._is_full_backward_hook is False
    with pytest.raises(RuntimeError, match="Please use only one of them.$"):
        m2.register_full_backward_hook(lambda *a: None)


def test_parametrized_modules_deepcopy_but_refuse_pickling():
    from ember.nn.utils import parametrize as P

    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", nn.Tanh())
    c = copy.deepcopy(m)
    assert P.is_parametrized(c, "weight") and c.weight is not m.weight and np.allclose(c.weight.detach().numpy(),
                                                                                       m.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="^Serialization of parametrized modules is only supported through "
                                           r"state_dict\(\)"):
        pickle.dumps(m)


def test_a_parametrization_may_not_change_shape_or_dtype_unless_unsafe():
    from ember.nn.utils import parametrize as P

    class Flatten(nn.Module):
        def forward(self, x):
            return x.reshape(-1)

    with pytest.raises(ValueError, match=r"^Registering a parametrization may not change the shape of the tensor, "
                                         r"unless `unsafe` flag is enabled.\nunparametrized shape: \w+.Size\(\[2, 3\]\)"
                                         r"\nparametrized shape: \w+.Size\(\[6\]\)$"):
        P.register_parametrization(nn.Linear(3, 2), "weight", Flatten())
    m = nn.Linear(3, 2)
    P.register_parametrization(m, "weight", Flatten(), unsafe=True)
    assert tuple(m.weight.shape) == (6,)
    m2 = nn.Linear(3, 2)
    P.register_parametrization(m2, "weight", nn.Tanh())
    with pytest.raises(ValueError, match="change the shape of the tensor, unless the `unsafe` flag is enabled"):
        P.register_parametrization(m2, "weight", Flatten())


def test_module_to_a_complex_dtype_converts_floating_tensors_and_warns_as_pytorch():
    m = nn.Linear(2, 2)
    m.register_buffer("step", torch.tensor(3))
    with pytest.warns(UserWarning, match="^Complex modules are a new feature under active development"):
        m.to(torch.complex64)
    assert m.weight.dtype == torch.complex64 and m.step.dtype == torch.int64 and isinstance(m.weight, nn.Parameter)
    with pytest.raises(TypeError, match="^nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                        "dtype=.*int32$"):
        m.to(torch.int32)


def test_load_state_dict_assign_marks_the_state_dicts_metadata():
    """PyTorch writes `assign_to_params_buffers` into the state dict's own `_metadata`: a later plain load of the
    same dict assigns too (a meta-device module then takes the tensors, without the no-op warning)."""
    import warnings

    sd = nn.Linear(3, 2).state_dict()
    nn.Linear(3, 2, device="meta").load_state_dict(sd, assign=True)
    assert sd._metadata[""]["assign_to_params_buffers"] is True
    m = nn.Linear(3, 2, device="meta")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.load_state_dict(sd)
    assert not m.weight.is_meta and m.weight.device.type == "cpu"
    fresh = nn.Linear(3, 2, device="meta")
    with pytest.warns(UserWarning, match="copying from a non-meta parameter"):
        fresh.load_state_dict(nn.Linear(3, 2).state_dict())
    assert fresh.weight.is_meta


def test_full_backward_hooks_see_none_for_non_tensor_arguments_and_check_pre_hook_results():
    class Scaled(nn.Module):
        def forward(self, x, scale):
            return x * scale

    seen = []
    m = Scaled()
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    m(torch.ones(2, requires_grad=True), 3.0).sum().backward()
    assert len(seen[0]) == 2 and seen[0][1] is None
    np.testing.assert_allclose(seen[0][0].numpy(), [3.0, 3.0])
    lin = nn.Linear(2, 2)
    lin.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="^Backward pre hook returned an invalid number of grad_output, got 2, but "
                                           "expected 1$"):
        lin(torch.ones(1, 2, requires_grad=True)).sum().backward()


class _ProductAndSum(nn.Module):
    def forward(self, a, b):
        return a * b, a + b


@pytest.mark.parametrize("grads, want_gi", [  # PyTorch 2.13's grad_input: zeros for an input without grad
    ((True, False), [[3.0, 3.0], [0.0, 0.0]]), ((False, True), [[0.0, 0.0], [1.0, 1.0]]),
    ((True, True), [[3.0, 3.0], [1.0, 1.0]])])
def test_full_backward_hook_sees_none_for_an_unused_output_and_zeros_for_an_input_without_grad(grads, want_gi):
    m, seen = _ProductAndSum(), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    a = torch.ones(2, requires_grad=grads[0])
    b = torch.full((2,), 3.0, requires_grad=grads[1])
    m(a, b)[0].sum().backward()
    (gi, go), = seen
    assert [g.tolist() for g in gi] == want_gi
    assert go[0].tolist() == [1.0, 1.0] and go[1] is None


def test_full_backward_hooks_without_input_grads_warn_and_may_not_return_gradients():
    lin = nn.Linear(2, 2)
    seen = []
    lin.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    with pytest.warns(UserWarning, match="^Full backward hook is firing when gradients are computed with respect to "
                                         "module outputs since no inputs require gradients"):
        lin(torch.ones(1, 2)).sum().backward()
    assert seen == [(None,)]
    lin.register_full_backward_hook(lambda mod, gi, go: (torch.ones(1, 2),))
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="^Backward hook for Modules where no input "
                                                                      "requires gradient should always return None"):
        lin(torch.ones(1, 2)).sum().backward()


def test_full_backward_hook_on_an_inplace_relu_raises_pytorchs_view_error():
    """The hook wraps the module's inputs in BackwardHookFunction (returned as-is, so views): an in-place ReLU
    writing its input raises PyTorch's error, naming that Function."""
    relu = nn.ReLU(inplace=True)
    relu.register_full_backward_hook(lambda *a: None)
    x = torch.ones(1, 2, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="^Output 0 of BackwardHookFunction is a view and is being modified "
                                           "inplace"):
        relu(x)
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda *a: None)
    out = lin(x)
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"


@pytest.mark.parametrize("make, x, warns", [
    (lambda: nn.ReLU(), lambda: torch.ones(2, requires_grad=True) * 1, None),  # one node from the input's
    (lambda: nn.ReLU(), lambda: torch.ones(2, requires_grad=True), "forward contains multiple autograd Nodes"),
    (lambda: nn.Linear(2, 2), lambda: torch.ones(1, 2, requires_grad=True) * 1, "multiple autograd Nodes"),
    (lambda: nn.Sequential(nn.Linear(2, 2), nn.ReLU()), lambda: torch.ones(1, 2), "multiple autograd Nodes"),
])
def test_non_full_backward_hooks_warn_where_pytorch_does(make, x, warns):
    import warnings

    m = make()
    m.register_backward_hook(lambda *a: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m(x()).sum().backward()
    hits = [w for w in caught if "non-full backward hook" in str(w.message)]
    assert all(w.category is FutureWarning for w in hits)  # PyTorch's category for these deprecations
    msgs = [str(w.message) for w in hits]
    if warns is None:
        assert msgs == []
    else:
        assert len(msgs) == 1 and warns in msgs[0] and msgs[0].endswith(
            "Please use register_full_backward_hook to get the documented behavior.")


def test_unflatten_refuses_sizes_that_are_not_ints():
    with pytest.raises(TypeError, match="^unflattened_size must be a tuple of ints, but found type int$"):
        nn.Unflatten(1, 10)
    with pytest.raises(TypeError, match="^unflattened_size must be tuple of ints, but found element of type tuple at"):
        nn.Unflatten(1, (("a", 2),))


def test_conversion_flags_choose_between_new_parameters_and_in_place_conversion():
    """torch.__future__'s flags: by default `.to(dtype)` keeps the Parameter objects; with the overwrite flag they
    are replaced (grads too); the swap flag keeps them and wins over overwrite."""
    from ember.nn.modules.module import CONVERSION_FLAGS

    m = nn.Linear(3, 2)
    w = m.weight
    m.to(torch.float64)
    assert m.weight is w and w.dtype == torch.float64
    m.weight.grad = torch.ones(2, 3, dtype=torch.float64)
    try:
        CONVERSION_FLAGS[0] = True
        m.to(torch.float32)
        assert m.weight is not w and isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
        assert m.weight.dtype == torch.float32 and m.weight.grad.dtype == torch.float32 and w.dtype == torch.float64
        CONVERSION_FLAGS[1] = True
        w = m.weight
        m.to(torch.float64)
        assert m.weight is w and w.dtype == torch.float64
    finally:
        CONVERSION_FLAGS[:] = [False, False]


def test_non_full_backward_hook_sees_the_last_nodes_gradients():
    """register_backward_hook hooks the grad_fn of the output (PyTorch's deprecated semantics): on
    Sequential(Linear, ReLU) it sees ReLU's node, grad_input the gradient at the ReLU's input (not None for an
    input without grad), and what it returns replaces that gradient."""
    import warnings

    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append((module, [g.numpy().copy() for g in grad_input], [g.numpy().copy() for g in grad_output]))
        return (grad_input[0] * 3,)

    seq.register_backward_hook(hook)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        out = seq(torch.tensor([[1.0, -2.0]]))
    assert out.grad_fn.name() == "ReluBackward0"  # no BackwardHookFunction for the deprecated hooks
    out.sum().backward()
    pre = seq[0](torch.tensor([[1.0, -2.0]])).detach().numpy()
    (module, gi, go), = seen
    assert module is seq
    np.testing.assert_array_equal(go[0], np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(gi[0], (pre > 0).astype(np.float32))
    np.testing.assert_allclose(seq[0].bias.grad.numpy(), 3 * (pre[0] > 0))


def test_state_dict_positional_arguments_warn_as_deprecated():
    """PyTorch still takes (destination, prefix, keep_vars) positionally, with a FutureWarning."""
    import warnings

    dest = OrderedDict()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = nn.Linear(1, 1).state_dict(dest, "pre.", True)
    assert out is dest and list(dest) == ["pre.weight", "pre.bias"] and dest["pre.weight"].requires_grad
    assert [w.category for w in caught] == [FutureWarning]
    assert str(caught[0].message).startswith("Positional args are being deprecated, use kwargs instead.")
    assert caught[0].filename == __file__


def test_load_state_dict_post_hook_must_not_return_a_value():
    lin = nn.Linear(2, 2)
    lin.register_load_state_dict_post_hook(lambda m, keys: keys)
    with pytest.raises(AssertionError, match="^Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                             "expected to return new values, if incompatible_keys need to be "
                                             "modified, it should be done inplace.$"):
        lin.load_state_dict(nn.Linear(2, 2).state_dict())


def test_global_forward_hook_with_kwargs_and_always_call():
    from ember.nn.modules.module import register_module_forward_hook

    class Scale(nn.Module):
        def forward(self, x, *, k):
            if k < 0:
                raise ValueError("negative k")
            return x * k

    seen = []
    h1 = register_module_forward_hook(lambda m, a, kw, out: seen.append(("kw", kw, out)), with_kwargs=True)
    h2 = register_module_forward_hook(lambda m, a, out: seen.append(("always", out)), always_call=True)
    try:
        Scale()(torch.ones(1), k=2.0)
        assert [s[0] for s in seen] == ["kw", "always"] and seen[0][1] == {"k": 2.0}
        assert seen[0][2].tolist() == [2.0] and seen[1][1].tolist() == [2.0]
        seen.clear()
        with pytest.raises(ValueError, match="negative k"):
            Scale()(torch.ones(1), k=-1.0)
        assert seen == [("always", None)]
    finally:
        h1.remove()
        h2.remove()
    from ember.nn.modules import _hooks
    assert not _hooks._global_forward_hooks_with_kwargs and not _hooks._global_forward_hooks_always_called


def test_full_backward_hook_on_a_dict_output_warns_and_is_skipped():
    """PyTorch hooks only a Tensor or tuple output; otherwise it warns and the hook never runs (the gradient
    reaches the inputs without passing the outputs)."""
    import warnings

    class Dict(nn.Module):
        def forward(self, a):
            return {"o": a * 2}

    calls = []
    d = Dict()
    d.register_full_backward_hook(lambda *a: calls.append(a))
    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = d(x)
    assert [str(w.message) for w in caught] == [
        "For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but received "
        "<class 'dict'>"]
    out["o"].sum().backward()
    assert calls == [] and x.grad.tolist() == [2.0, 2.0]


def test_module_moves_to_devices_ember_lacks_raise_pytorchs_errors():
    m = nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="^Torch not compiled with XPU enabled$"):
        m.xpu()
    with pytest.raises(RuntimeError, match="^PyTorch is not linked with support for ipu devices$"):
        m.ipu()
    with pytest.raises(AssertionError, match="^Torch not compiled with MTIA enabled."):
        m.mtia()
    with pytest.raises(RuntimeError, match="^Invalid device, must be MTIA device$"):
        m.mtia("cpu")


def test_module_compile_binds_its_arguments_as_torch_compile():
    """PyTorch's `Module.compile(*args, **kwargs)` passes them to `torch.compile(self._call_impl, ...)`."""
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="^compile\\(\\) takes from 0 to 1 positional arguments but 2 were given$"):
        m.compile(1)
    with pytest.raises(TypeError, match="^compile\\(\\) got an unexpected keyword argument 'foo'$"):
        m.compile(foo=1)
    assert m.compile(disable=True) is None and "forward" not in m.__dict__
