"""torch.fx: traced graphs print, and their code reads, as PyTorch 2.13's (the literals below are real
PyTorch's output for the same programs); GraphModules compute what their modules do; Interpreter,
Transformer, replace_pattern and ShapeProp; errors with PyTorch's types and messages."""

import copy
import math
import operator
import os
import pickle
import subprocess
import sys

import pytest

import ember.torch as torch
import ember.torch.fx as fx
import ember.torch.nn as nn
import ember.torch.nn.functional as F
from ember.core import dispatch
from ember.torch.fx._symbolic_trace import is_fx_tracing
from ember.torch.fx.passes.shape_prop import ShapeProp
from ember.torch.fx.proxy import TraceError


def _leaf(x, k):
    return x * k


fx.wrap("_leaf")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.head = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x, mask=None):
        x = F.relu(self.conv(x))
        x = F.max_pool2d(self.bn(x), 2)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        x = self.head(x) * self.scale
        y = torch.cat([x, -x], dim=1)
        y = y.view(y.size(0), -1).sum(dim=-1, keepdim=True)
        y = F.dropout(torch.relu(y) / 2, 0.1, training=self.training)
        return {"logits": F.softmax(y, dim=-1), "feat": x[:, :2], "n": abs(x).shape[1] + 1}


NET_GRAPH = (
    "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
    "    %mask : [num_users=0] = placeholder[target=mask](default=None)\n"
    "    %conv : [num_users=1] = call_module[target=conv](args = (%x,), kwargs = {})\n"
    "    %relu : [num_users=1] = call_function[target=torch.nn.functional.relu](args = (%conv,), kwargs = {inplace: "
    "False})\n"
    "    %bn : [num_users=1] = call_module[target=bn](args = (%relu,), kwargs = {})\n"
    "    %max_pool2d : [num_users=1] = call_function[target=torch.nn.functional.max_pool2d](args = (%bn, 2), kwargs = "
    "{stride: None, padding: 0, dilation: 1, ceil_mode: False, return_indices: False})\n"
    "    %adaptive_avg_pool2d : [num_users=1] = call_function[target=torch.nn.functional.adaptive_avg_pool2d](args = "
    "(%max_pool2d, 1), kwargs = {})\n"
    "    %flatten : [num_users=1] = call_function[target=torch.flatten](args = (%adaptive_avg_pool2d, 1), "
    "kwargs = {})\n"
    "    %head_0 : [num_users=1] = call_module[target=head.0](args = (%flatten,), kwargs = {})\n"
    "    %head_1 : [num_users=1] = call_module[target=head.1](args = (%head_0,), kwargs = {})\n"
    "    %scale : [num_users=1] = get_attr[target=scale]\n"
    "    %mul : [num_users=4] = call_function[target=operator.mul](args = (%head_1, %scale), kwargs = {})\n"
    "    %neg : [num_users=1] = call_function[target=operator.neg](args = (%mul,), kwargs = {})\n"
    "    %cat : [num_users=2] = call_function[target=torch.cat](args = ([%mul, %neg],), kwargs = {dim: 1})\n"
    "    %size : [num_users=1] = call_method[target=size](args = (%cat, 0), kwargs = {})\n"
    "    %view : [num_users=1] = call_method[target=view](args = (%cat, %size, -1), kwargs = {})\n"
    "    %sum_1 : [num_users=1] = call_method[target=sum](args = (%view,), kwargs = {dim: -1, keepdim: True})\n"
    "    %relu_1 : [num_users=1] = call_function[target=torch.relu](args = (%sum_1,), kwargs = {})\n"
    "    %truediv : [num_users=1] = call_function[target=operator.truediv](args = (%relu_1, 2), kwargs = {})\n"
    "    %dropout : [num_users=1] = call_function[target=torch.nn.functional.dropout](args = (%truediv,), kwargs = "
    "{p: 0.1, training: True, inplace: False})\n"
    "    %softmax : [num_users=1] = call_function[target=torch.nn.functional.softmax](args = (%dropout,), kwargs = "
    "{dim: -1, _stacklevel: 3, dtype: None})\n"
    "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%mul, (slice(None, None, None), "
    "slice(None, 2, None))), kwargs = {})\n"
    "    %abs_1 : [num_users=1] = call_function[target=operator.abs](args = (%mul,), kwargs = {})\n"
    "    %getattr_1 : [num_users=1] = call_function[target=builtins.getattr](args = (%abs_1, shape), kwargs = {})\n"
    "    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%getattr_1, 1), kwargs = {})\n"
    "    %add : [num_users=1] = call_function[target=operator.add](args = (%getitem_1, 1), kwargs = {})\n"
    "    return {'logits': softmax, 'feat': getitem, 'n': add}")

NET_BODY = (
    "    conv = self.conv(x);  x = None\n"
    "    relu = torch.nn.functional.relu(conv, inplace = False);  conv = None\n"
    "    bn = self.bn(relu);  relu = None\n"
    "    max_pool2d = torch.nn.functional.max_pool2d(bn, 2, stride = None, padding = 0, dilation = 1, ceil_mode = "
    "False, return_indices = False);  bn = None\n"
    "    adaptive_avg_pool2d = torch.nn.functional.adaptive_avg_pool2d(max_pool2d, 1);  max_pool2d = None\n"
    "    flatten = torch.flatten(adaptive_avg_pool2d, 1);  adaptive_avg_pool2d = None\n"
    '    head_0 = getattr(self.head, "0")(flatten);  flatten = None\n'
    '    head_1 = getattr(self.head, "1")(head_0);  head_0 = None\n'
    "    scale = self.scale\n"
    "    mul = head_1 * scale;  head_1 = scale = None\n"
    "    neg = -mul\n"
    "    cat = torch.cat([mul, neg], dim = 1);  neg = None\n"
    "    size = cat.size(0)\n"
    "    view = cat.view(size, -1);  cat = size = None\n"
    "    sum_1 = view.sum(dim = -1, keepdim = True);  view = None\n"
    "    relu_1 = torch.relu(sum_1);  sum_1 = None\n"
    "    truediv = relu_1 / 2;  relu_1 = None\n"
    "    dropout = torch.nn.functional.dropout(truediv, p = 0.1, training = True, inplace = False);  truediv = None\n"
    "    softmax = torch.nn.functional.softmax(dropout, dim = -1, _stacklevel = 3, dtype = None);  dropout = None\n"
    "    getitem = mul[(slice(None, None, None), slice(None, 2, None))]\n"
    "    abs_1 = _operator_abs(mul);  mul = None\n"
    "    getattr_1 = abs_1.shape;  abs_1 = None\n"
    "    getitem_1 = getattr_1[1];  getattr_1 = None\n"
    "    add = getitem_1 + 1;  getitem_1 = None\n"
    "    return {'logits': softmax, 'feat': getitem, 'n': add}\n")


def _deterministic(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
    return module


def test_traced_graph_prints_as_pytorchs():
    gm = fx.symbolic_trace(Net())
    assert str(gm.graph) == NET_GRAPH
    assert gm.code == "\n\n\ndef forward(self, x, mask = None):\n" + NET_BODY + "    "
    assert [(n.op, n.name) for n in gm.graph.nodes][:4] == [
        ("placeholder", "x"), ("placeholder", "mask"), ("call_module", "conv"), ("call_function", "relu")]
    relu = list(gm.graph.nodes)[3]
    assert relu.target is F.relu and relu.args[0].name == "conv" and relu.kwargs == {"inplace": False}


def test_print_readable_and_str_as_pytorchs():
    gm = fx.symbolic_trace(Net())
    indented = "".join("    " + line + "\n" for line in NET_BODY.splitlines())
    assert gm.print_readable(print_output=False) == (
        "class Net(torch.nn.Module):\n    def forward(self, x, mask = None):\n"
        "        # No stacktrace found for following nodes\n" + indented)
    assert type(gm).__name__ == "Net"
    assert str(gm).endswith(gm.code + "\n# To see more debug info, please use `graph_module.print_readable()`")


def test_graph_module_computes_the_module():
    net = _deterministic(Net()).eval()
    gm = fx.symbolic_trace(net)
    x = torch.linspace(-2, 2, 2 * 3 * 8 * 8).reshape(2, 3, 8, 8)
    want, got = net(x), gm(x)
    assert torch.equal(want["logits"], got["logits"]) and torch.equal(want["feat"], got["feat"])
    assert got["n"] == 5
    # the submodules and parameters are the module's own, not copies
    assert gm.conv is net.conv and gm.scale is net.scale
    assert list(gm.state_dict()) == ["scale", "conv.weight", "conv.bias", "bn.weight", "bn.bias", "bn.running_mean",
                                     "bn.running_var", "bn.num_batches_tracked", "head.0.weight", "head.0.bias"]


def test_deepcopy_copies_the_state_and_regenerates_forward():
    net = _deterministic(Net()).eval()
    gm = fx.symbolic_trace(net)
    dup = copy.deepcopy(gm)
    assert type(dup).__name__ == "GraphModule" and dup.code == gm.code and dup.graph.owning_module is dup
    assert dup.conv is not gm.conv and torch.equal(dup.conv.weight, gm.conv.weight)
    x = torch.linspace(-1, 1, 3 * 6 * 6).reshape(1, 3, 6, 6)
    assert torch.equal(dup(x)["logits"], gm(x)["logits"])


def test_buffers_and_tensor_constants_become_get_attrs():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)
            self.register_buffer("scale", torch.tensor(2.0))

        def forward(self, x):
            return self.lin(x).relu_() * self.scale + torch.tensor([1.0, 2.0])

    gm = fx.symbolic_trace(M())
    assert gm.code == ("\n\n\ndef forward(self, x):\n    lin = self.lin(x);  x = None\n"
                       "    relu_ = lin.relu_();  lin = None\n    scale = self.scale\n"
                       "    mul = relu_ * scale;  relu_ = scale = None\n"
                       "    _tensor_constant0 = self._tensor_constant0\n"
                       "    add = mul + _tensor_constant0;  mul = _tensor_constant0 = None\n    return add\n    ")
    assert list(gm.state_dict()) == ["scale", "_tensor_constant0", "lin.weight", "lin.bias"]


def test_proxy_refuses_control_flow_iteration_and_len():
    class Branch(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x

    class Loop(nn.Module):
        def forward(self, x):
            return [a for a in x]

    class Len(nn.Module):
        def forward(self, x):
            return len(x)

    class StarStar(nn.Module):
        def forward(self, x):
            return dict(**x)

    with pytest.raises(TraceError, match="^symbolically traced variables cannot be used as inputs to control flow$"):
        fx.symbolic_trace(Branch())
    for m in (Loop(), StarStar()):
        with pytest.raises(TraceError, match="^Proxy object cannot be iterated. This can be attempted when the Proxy "
                                             "is used in a loop or as a"):
            fx.symbolic_trace(m)
    with pytest.raises(RuntimeError, match=r"^'len' is not supported in symbolic tracing by default. If you want "
                                           r"this call to be recorded, please call torch.fx.wrap\('len'\) at module "
                                           "scope$"):
        fx.symbolic_trace(Len())
    assert issubclass(TraceError, ValueError)


def test_unpacking_a_proxy_indexes_it():
    class Unpack(nn.Module):
        def forward(self, x):
            a, b = x.chunk(2)
            return a - b

    assert fx.symbolic_trace(Unpack()).code == (
        "\n\n\ndef forward(self, x):\n    chunk = x.chunk(2);  x = None\n    getitem = chunk[0]\n"
        "    getitem_1 = chunk[1];  chunk = None\n    sub = getitem - getitem_1;  getitem = getitem_1 = None\n"
        "    return sub\n    ")


def test_proxy_is_torch_fx_proxy_and_records_tensor_functions():
    seen = []

    def f(x, y):
        seen.append(isinstance(x, torch.fx.Proxy) == is_fx_tracing())
        return torch.stack([torch.sigmoid(x), torch.matmul(x, y)]).transpose(0, 1)

    gm = fx.symbolic_trace(f)
    assert seen == [True] and not is_fx_tracing()
    assert [(n.op, n.target if isinstance(n.target, str) else n.target.__name__) for n in gm.graph.nodes] == [
        ("placeholder", "x"), ("placeholder", "y"), ("call_function", "sigmoid"), ("call_function", "matmul"),
        ("call_function", "stack"), ("call_method", "transpose"), ("output", "output")]
    x, y = torch.eye(2) * 3, torch.ones(2, 2)
    assert torch.equal(gm(x, y), f(x, y))


def test_tracing_leaves_eager_ops_unchecked():
    """The op-level `__torch_function__` check is on only while tracing: eager calls after cost what they did."""
    before = dispatch._protocol
    fx.symbolic_trace(lambda x: torch.relu(x) + 1)
    assert dispatch._protocol is before
    assert torch.relu is not None and torch.relu.__class__.__name__ == "Op"  # the namespace is restored


def test_wrap_records_a_leaf_function_and_concrete_args_assert():
    gm = fx.symbolic_trace(lambda x: _leaf(x, 3) + 1)
    assert str(gm.graph) == (
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        f"    %_leaf : [num_users=1] = call_function[target={__name__}._leaf](args = (%x, 3), kwargs = {{}})\n"
        "    %add : [num_users=1] = call_function[target=operator.add](args = (%_leaf, 1), kwargs = {})\n"
        "    return add")
    assert gm.code.startswith(f'\ntorch.fx._symbolic_trace.wrap("{__name__.replace(".", "_")}__leaf")\n\n')
    assert torch.equal(gm(torch.ones(2)), torch.full((2,), 4.0))

    def f(x, flag):
        return x + 1 if flag else x - 1

    gm = fx.symbolic_trace(f, concrete_args={"flag": True})
    assert gm.code == ("\n\n\ndef forward(self, x, flag_1):\n    eq = flag_1 == True;  flag_1 = None\n"
                       "    _assert = torch._assert(eq, 'flag has been specialized to have value True but got another "
                       "value');  eq = _assert = None\n    add = x + 1;  x = None\n    return add\n    ")
    assert torch.equal(gm(torch.ones(2), True), torch.full((2,), 2.0))


def test_autowrapped_math_function_is_a_leaf():
    def f(x):
        return x * math.sqrt(x.size(0))

    gm = fx.symbolic_trace(f)
    assert gm.code == ('\ntorch.fx._symbolic_trace.wrap("math_sqrt")\n\ndef forward(self, x):\n'
                       "    size = x.size(0)\n    sqrt = math_sqrt(size);  size = None\n"
                       "    mul = x * sqrt;  x = sqrt = None\n    return mul\n    ")
    assert gm(torch.ones(4)).tolist() == [2.0] * 4


def test_graph_by_hand_and_its_edits():
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y", default_value=2)
    a = g.call_function(operator.add, (x, y))
    b = g.call_method("relu", (a,))
    c = g.call_function(torch.sum, (b,), {"dim": 0})
    g.output((b, c))
    assert str(g) == (
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %y : [num_users=1] = placeholder[target=y](default=2)\n"
        "    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %y), kwargs = {})\n"
        "    %relu : [num_users=2] = call_method[target=relu](args = (%add,), kwargs = {})\n"
        "    %sum_1 : [num_users=1] = call_function[target=torch.sum](args = (%relu,), kwargs = {dim: 0})\n"
        "    return (relu, sum_1)")
    with g.inserting_after(a):
        d = g.call_function(torch.neg, (a,))
    b.replace_input_with(a, d)
    assert [n.name for n in g.nodes] == ["x", "y", "add", "neg", "relu", "sum_1", "output"]
    assert list(a.users) == [d] and d.all_input_nodes == [a] and a.next is d and d.prev is a
    with pytest.raises(RuntimeError, match=r"^Tried to erase Node add but it still had 1 users in the graph: "
                                           r"\{neg: None\}!$"):
        g.erase_node(a)
    g.call_function(torch.exp, (x,))
    assert g.eliminate_dead_code() is True
    assert [n.name for n in g.nodes] == ["x", "y", "add", "neg", "relu", "sum_1", "output"]
    assert b.format_node() == "%relu : [num_users=2] = call_method[target=relu](args = (%neg,), kwargs = {})"
    assert y.format_node() == "%y : [num_users=1] = placeholder[target=y](default=2)"
    assert g.python_code("self").src == (
        "\n\n\ndef forward(self, x, y = 2):\n    add = x + y;  x = y = None\n    neg = torch.neg(add);  add = None\n"
        "    relu = neg.relu();  neg = None\n    sum_1 = torch.sum(relu, dim = 0)\n    return (relu, sum_1)\n    ")
    gm = fx.GraphModule(nn.Module(), g)
    r, s = gm(torch.tensor([1.0, -5.0]))
    assert r.tolist() == [0.0, 3.0] and s.item() == 3.0


def test_node_args_are_immutable_and_map_arg_maps_nodes():
    g = fx.Graph()
    x = g.placeholder("x")
    cat = g.call_function(torch.cat, ([x, x],), {"dim": 0})
    message = ("object does not support mutation. If you are attempting to modify the kwargs or args of a "
               "torch.fx.Node object,\ninstead create a new copy of it and assign the copy to the node:\n\n"
               "    new_args = ...  # copy and mutate args\n    node.args = new_args")
    with pytest.raises(TypeError) as e:
        cat.args[0].append(1)
    assert str(e.value) == "'immutable_list' " + message
    with pytest.raises(TypeError) as e:
        cat.kwargs["dim"] = 1
    assert str(e.value) == "'immutable_dict' " + message
    assert fx.node.map_arg((x, [cat, 3], {"k": x}), lambda n: n.name) == ("x", ["cat", 3], {"k": "x"})
    cat.update_arg(0, [x])
    cat.update_kwarg("dim", 1)
    assert cat.args == ([x],) and cat.kwargs == {"dim": 1} and list(x.users) == [cat]


def test_lint_finds_a_use_before_definition():
    g = fx.Graph()
    p = g.placeholder("p")
    q = g.call_function(torch.relu, (p,))
    g.output(q)
    g.call_function(torch.relu, (p,)).prepend(q)
    with pytest.raises(RuntimeError, match="^Argument 'relu' of Node 'output' was used before it has been defined! "
                                           "Please check that Nodes in the graph are topologically ordered\n"):
        g.lint()


def test_print_tabular_needs_tabulate_as_pytorchs(capsys):
    g = fx.symbolic_trace(lambda x: x + 1).graph
    try:
        import tabulate  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            g.print_tabular()
        assert capsys.readouterr().out == (
            "`print_tabular` relies on the library `tabulate`, which could not be found on this machine. Run `pip "
            "install tabulate` to install the library.\n")
    else:
        g.print_tabular()
        assert "call_function" in capsys.readouterr().out


def test_interpreter_runs_node_by_node_with_pytorchs_errors(capsys):
    class Counting(fx.Interpreter):
        def call_function(self, target, args, kwargs):
            print("call", target.__name__)
            return super().call_function(target, args, kwargs)

    out = Counting(fx.symbolic_trace(lambda x: torch.relu(x) * 2)).run(torch.tensor([-1.0, 3.0]))
    assert out.tolist() == [0.0, 6.0] and capsys.readouterr().out == "call relu\ncall mul\n"
    gm = fx.symbolic_trace(lambda x, y: x + y)
    with pytest.raises(RuntimeError) as e:
        fx.Interpreter(gm).run(torch.ones(1))
    assert str(e.value) == (
        "Expected positional argument for parameter y, but one was not passed in!\n\nWhile executing %y : "
        "[num_users=1] = placeholder[target=y]\nOriginal traceback:\nNone\nUse tlparse to see full graph. "
        "(https://github.com/pytorch/tlparse?tab=readme-ov-file#tlparse-parse-structured-pt2-logs)")
    with pytest.raises(RuntimeError, match="^Node referenced nonexistent target nope$"):
        fx.Interpreter(gm).fetch_attr("nope.w")


def test_transformer_rewrites_calls():
    class ReluToSigmoid(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is torch.relu:
                target = torch.sigmoid
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "neg":
                return -args[0]
            return super().call_method(target, args, kwargs)

    t = ReluToSigmoid(fx.symbolic_trace(lambda x: torch.relu(x).neg() + 1)).transform()
    assert t.code == ("\n\n\ndef forward(self, x):\n    sigmoid = torch.sigmoid(x);  x = None\n"
                      "    neg = -sigmoid;  sigmoid = None\n    add = neg + 1;  neg = None\n    return add\n    ")
    x = torch.tensor([0.0, 2.0])
    assert torch.allclose(t(x), 1 - torch.sigmoid(x))


def test_replace_pattern_as_pytorchs():
    def pattern(x, w):
        return torch.mm(x, w).relu()

    def replacement(x, w):
        return torch.addmm(torch.zeros(1), x, w).clamp(min=0)

    class MM(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(3, 3))

        def forward(self, x):
            return torch.mm(x, self.w).relu() + torch.mm(x * 2, self.w).relu()

    m = MM()
    gm = fx.symbolic_trace(m)
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 2 and str(matches[0].anchor) == "relu"
    assert [(str(k), str(v)) for k, v in matches[0].nodes_map.items()] == [
        ("relu", "relu"), ("mm", "mm"), ("x", "x"), ("w", "w")]
    assert gm.code == (
        "\n\n\ndef forward(self, x):\n    w = self.w\n    mul = x * 2\n"
        "    _tensor_constant0 = self._tensor_constant0\n"
        "    addmm = torch.addmm(_tensor_constant0, x, w);  _tensor_constant0 = x = None\n"
        "    clamp = addmm.clamp(min = 0);  addmm = None\n    _tensor_constant0_1 = self._tensor_constant0\n"
        "    addmm_1 = torch.addmm(_tensor_constant0_1, mul, w);  _tensor_constant0_1 = mul = w = None\n"
        "    clamp_1 = addmm_1.clamp(min = 0);  addmm_1 = None\n    add = clamp + clamp_1;  clamp = clamp_1 = None\n"
        "    return add\n    ")
    x = torch.linspace(-1, 1, 6).reshape(2, 3)
    assert torch.allclose(gm(x), m(x))


def test_shape_prop_records_tensor_meta():
    gm = fx.symbolic_trace(nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Flatten(0)))
    ShapeProp(gm).propagate(torch.ones(2, 3))
    metas = [(n.name, tuple(n.meta["tensor_meta"].shape), n.meta["tensor_meta"].dtype, n.meta["tensor_meta"].stride,
              n.meta["tensor_meta"].requires_grad, n.meta["tensor_meta"].memory_format, n.meta["type"])
             for n in gm.graph.nodes]
    f32, cf, t = torch.float32, torch.contiguous_format, torch.Tensor
    assert metas == [("input_1", (2, 3), f32, (3, 1), False, cf, t), ("_0", (2, 5), f32, (5, 1), True, cf, t),
                     ("_1", (2, 5), f32, (5, 1), True, cf, t), ("_2", (10,), f32, (1,), True, cf, t),
                     ("output", (10,), f32, (1,), True, cf, t)]


class _Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)
        self.c = nn.Sequential(nn.Linear(2, 2))

    def forward(self, x):
        return self.a(x) + self.c(x)


def test_submodule_management():
    gm = fx.symbolic_trace(_Sub())
    assert [n for n, _ in gm.named_modules()] == ["", "a", "c", "c.0"]
    assert gm.add_submodule("extra.lin", nn.Linear(2, 2)) is True
    assert [n for n, _ in gm.named_modules()] == ["", "a", "c", "c.0", "extra", "extra.lin"]
    gm.delete_all_unused_submodules()
    assert [n for n, _ in gm.named_modules()] == ["", "a", "c", "c.0"]
    assert list(gm.state_dict()) == ["a.weight", "a.bias", "c.0.weight", "c.0.bias"]


def test_custom_leaf_modules():
    class LeafTracer(fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, _Sub) or super().is_leaf_module(m, qualname)

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = _Sub()

        def forward(self, x):
            return self.sub(x).sigmoid()

    assert str(LeafTracer().trace(Outer())) == (
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %sub : [num_users=1] = call_module[target=sub](args = (%x,), kwargs = {})\n"
        "    %sigmoid : [num_users=1] = call_method[target=sigmoid](args = (%sub,), kwargs = {})\n    return sigmoid")
    tracer = fx.Tracer()
    assert [tracer.is_leaf_module(m, "") for m in (nn.Linear(1, 1), nn.Sequential(), nn.ModuleList())] == [
        True, False, True]


def test_torch_fx_is_an_attribute_of_torch_under_the_runner(tmp_path):
    """HuggingFace's `isinstance(x, torch.fx.Proxy)` works after a bare `import torch`; fx.experimental is absent."""
    script = tmp_path / "prog.py"
    script.write_text("import torch\nprint(torch.fx.Proxy, isinstance(torch.ones(1), torch.fx.Proxy))\n"
                      "try:\n    import torch.fx.experimental\nexcept ImportError as e:\n    print('ImportError', e)\n")
    r = subprocess.run([sys.executable, "-m", "ember.torch", str(script)], capture_output=True, text=True,
                       timeout=300, env=os.environ.copy())
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "<class 'torch.fx.proxy.Proxy'> False",
        "ImportError torch.fx.experimental: torch.fx's experimental package is not provided by ember (`import torch` "
        "resolves to ember.torch); see docs/porting.md"]


def test_star_args_and_keyword_only_parameters_become_placeholders():
    class M(nn.Module):
        def forward(self, x, *xs, scale=2, **kw):
            return (x + xs[0]) * scale

    gm = fx.symbolic_trace(M())
    assert str(gm.graph) == (
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %scale : [num_users=1] = placeholder[target=scale](default=2)\n"
        "    %_xs : [num_users=1] = placeholder[target=*xs]\n    %_kw : [num_users=0] = placeholder[target=**kw]\n"
        "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%_xs, 0), kwargs = {})\n"
        "    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %getitem), kwargs = {})\n"
        "    %mul : [num_users=1] = call_function[target=operator.mul](args = (%add, %scale), kwargs = {})\n"
        "    return mul")
    assert gm.code.startswith("\n\n\ndef forward(self, x, scale = 2, *xs, **kw):\n    _xs = xs\n    _kw = kw\n")
    assert gm(torch.ones(1), 3, torch.full((1,), 5.0)).tolist() == [18.0]  # (scale=3 lands before *xs, as PyTorch's)


def test_pickle_rebuilds_from_the_generated_code():
    net = _deterministic(Net()).eval()
    gm = fx.symbolic_trace(net)
    back = pickle.loads(pickle.dumps(gm))
    assert type(back).__name__ == "GraphModule" and back.code == gm.code and str(back.graph) == str(gm.graph)
    x = torch.linspace(-1, 1, 3 * 6 * 6).reshape(1, 3, 6, 6)
    assert torch.equal(back(x)["logits"], gm(x)["logits"]) and torch.equal(back.conv.weight, net.conv.weight)


def test_python_tensor_functions_and_submodule_functions_print_as_pytorchs():
    def f(x, y):
        return torch.cdist(x, y), torch.split(x, 1)[0], torch.linalg.norm(x, dim=-1), torch.fft.rfft(x).abs()

    gm = fx.symbolic_trace(f)
    assert torch.functional.einsum is torch.einsum
    # PyTorch's, but for `torch._C._linalg.linalg_norm` and `torch._C._fft.fft_rfft` (ember has no torch._C)
    assert gm.code == (
        "\n\n\ndef forward(self, x, y):\n"
        "    cdist = torch.functional.cdist(x, y, p = 2.0, compute_mode = 'use_mm_for_euclid_dist_if_necessary');  "
        "y = None\n    split = torch.functional.split(x, 1, dim = 0)\n    getitem = split[0];  split = None\n"
        "    linalg_norm = torch.linalg.norm(x, dim = -1)\n    fft_rfft = torch.fft.rfft(x);  x = None\n"
        "    abs_1 = fft_rfft.abs();  fft_rfft = None\n    return (cdist, getitem, linalg_norm, abs_1)\n    ")
    x = torch.linspace(-1, 1, 8).reshape(2, 4)
    assert all(torch.allclose(a, b) for a, b in zip(gm(x, x), f(x, x)))


def clamp01(x):
    return x.clamp(0, 1)


def test_autowrap_functions_graph_copy_and_node_copy():
    class M(nn.Module):
        def forward(self, x):
            return clamp01(x) * 2

    tracer = fx.Tracer(autowrap_functions=(clamp01,))
    g = tracer.trace(M())
    body = ("    %x : [num_users=1] = placeholder[target=x]\n"
            f"    %clamp01 : [num_users=1] = call_function[target={__name__}.clamp01](args = (%x,), kwargs = {{}})\n"
            "    %mul : [num_users=1] = call_function[target=operator.mul](args = (%clamp01, 2), kwargs = {})\n"
            "    return mul")
    assert str(g) == "graph():\n" + body
    copy_ = fx.Graph()
    val_map = {}
    copy_.output(copy_.graph_copy(g, val_map))
    assert str(copy_) == "graph():\n" + body and [n.name for n in val_map] == ["x", "clamp01", "mul"]
    single = fx.Graph()
    inp = single.placeholder("inp")
    single.output(single.node_copy(list(g.nodes)[1], lambda a: inp))
    assert str(single) == (
        "graph():\n    %inp : [num_users=1] = placeholder[target=inp]\n"
        f"    %clamp01 : [num_users=1] = call_function[target={__name__}.clamp01](args = (%inp,), kwargs = {{}})\n"
        "    return clamp01")
    gm = fx.GraphModule(tracer.root, g)
    assert gm(torch.tensor([-1.0, 0.5, 3.0])).tolist() == [0.0, 1.0, 2.0]


def test_a_tensors_method_called_with_a_proxy_records_a_call_method():
    class PE(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("pe", torch.arange(12.0).reshape(1, 6, 2))

        def forward(self, x):
            x.size(1)
            return x + self.pe[:, :3].to(x.dtype), torch.ones(1).sum() + x.new_zeros(1)

    gm = fx.symbolic_trace(PE())
    assert gm.code == (  # PyTorch's: the buffer's slice is a constant, its `.to(x.dtype)` recorded
        "\n\n\ndef forward(self, x):\n    size = x.size(1);  size = None\n"
        "    _tensor_constant0 = self._tensor_constant0\n    getattr_1 = x.dtype\n"
        "    to = _tensor_constant0.to(getattr_1);  _tensor_constant0 = getattr_1 = None\n"
        "    add = x + to;  to = None\n    new_zeros = x.new_zeros(1);  x = None\n"
        "    _tensor_constant1 = self._tensor_constant1\n"
        "    add_1 = _tensor_constant1.add(new_zeros);  _tensor_constant1 = new_zeros = None\n"
        "    return (add, add_1)\n    ")
    out, s = gm(torch.ones(2, 3, 2))
    assert out[1, 2].tolist() == [5.0, 6.0] and s.tolist() == [1.0]


def test_editing_the_graph_while_iterating_its_nodes():
    gm = fx.symbolic_trace(lambda x: torch.relu(x) + torch.sigmoid(x) * 2)
    g, visited = gm.graph, []
    for n in g.nodes:
        visited.append(n.name)
        if n.op == "call_function" and n.target is torch.relu:
            with g.inserting_after(n):
                new = g.call_function(torch.neg, (n,))
            n.replace_all_uses_with(new)
            new.update_arg(0, n)
        if n.op == "call_function" and n.target is torch.sigmoid:
            with g.inserting_before(n):
                t = g.call_function(torch.tanh, n.args)
            n.replace_all_uses_with(t)
            g.erase_node(n)
    assert visited == ["x", "relu", "neg", "sigmoid", "mul", "add", "output"]  # inserted after: visited, as PyTorch's
    gm.recompile()
    assert gm.code == ("\n\n\ndef forward(self, x):\n    relu = torch.relu(x)\n"
                       "    neg = torch.neg(relu);  relu = None\n    tanh = torch.tanh(x);  x = None\n"
                       "    mul = tanh * 2;  tanh = None\n"
                       "    add = neg + mul;  neg = mul = None\n    return add\n    ")
