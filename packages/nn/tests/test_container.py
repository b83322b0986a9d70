"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from collections import OrderedDict

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn


def test_sequential_positional_and_ordered_dict():
    a, b = nn.Linear(2, 3), nn.ReLU()
    seq = nn.Sequential(a, b)
    assert len(seq) == 2 and seq[0] is a and seq[-1] is b and list(seq) == [a, b]
    named = nn.Sequential(OrderedDict(fc=a, act=b))
    assert named.fc is a and named[1] is b
    x = torch.randn(4, 2)
    np.testing.assert_allclose(seq(x).detach().numpy(), np.maximum(a(x).detach().numpy(), 0), rtol=1e-6)


def test_sequential_slicing_and_mutation():
    layers = [nn.Linear(2, 2) for _ in range(4)]
    seq = nn.Sequential(*layers)
    sub = seq[1:3]
    assert isinstance(sub, nn.Sequential) and list(sub) == layers[1:3]
    seq.append(nn.ReLU())
    assert len(seq) == 5 and isinstance(seq[4], nn.ReLU)
    seq.insert(0, nn.Identity())
    assert isinstance(seq[0], nn.Identity) and seq[1] is layers[0]
    del seq[0]
    assert seq[0] is layers[0] and list(seq._modules) == ["0", "1", "2", "3", "4"]
    popped = seq.pop(-1)
    assert isinstance(popped, nn.ReLU) and len(seq) == 4
    seq.extend([nn.Tanh()])
    assert isinstance(seq[-1], nn.Tanh)
    seq[0] = nn.Identity()
    assert isinstance(seq[0], nn.Identity)
    with pytest.raises(IndexError, match="index 10 is out of range"):
        seq[10]
    assert len(seq + nn.Sequential(nn.ReLU())) == 6


def test_module_list():
    ml = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1)])
    ml.append(nn.ReLU())
    ml += [nn.Tanh()]
    assert len(ml) == 4 and isinstance(ml[-1], nn.Tanh)
    assert len(list(ml.parameters())) == 4
    ml.insert(0, nn.Identity())
    assert isinstance(ml[0], nn.Identity) and len(ml) == 5
    del ml[0]
    assert isinstance(ml[0], nn.Linear)
    assert isinstance(ml[1:], nn.ModuleList) and len(ml[1:]) == 3
    assert [type(m).__name__ for m in ml] == ["Linear", "Linear", "ReLU", "Tanh"]
    assert repr(nn.ModuleList()) == "ModuleList()"
    with pytest.raises(TypeError, match="iterable"):
        ml.extend(3)


def test_module_dict():
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.ReLU()
    md.update([("c", nn.Tanh())])
    assert list(md.keys()) == ["a", "b", "c"] and "b" in md and len(md) == 3
    assert md["a"] is md.a
    assert isinstance(md.pop("b"), nn.ReLU) and "b" not in md
    assert [k for k, _ in md.items()] == ["a", "c"]
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        md.update([("x",)])


def test_parameter_list_and_dict():
    pl = nn.ParameterList([torch.zeros(2), nn.Parameter(torch.ones(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(torch.zeros(1))
    assert len(list(pl.parameters())) == 3
    assert repr(nn.ParameterList([torch.zeros(2, 3)])) == \
        "ParameterList(  (0): Parameter containing: [ember.float32 of size 2x3])"
    pd = nn.ParameterDict({"w": torch.zeros(2)})
    pd["b"] = nn.Parameter(torch.ones(1))
    assert isinstance(pd["w"], nn.Parameter) and list(pd.keys()) == ["w", "b"] and "b" in pd
    assert [n for n, _ in pd.named_parameters()] == ["w", "b"]
    del pd["w"]
    assert list(pd) == ["b"]


def test_parameter_dict_sorts_a_plain_dict_and_prints_tensor_types():
    # PyTorch adds a plain dict's entries in key order, an OrderedDict's or a pair list's as given
    pd = nn.ParameterDict({"w": torch.zeros(2), "b": torch.zeros(2, 3, dtype=torch.float64)})
    assert list(pd) == ["b", "w"] and [n for n, _ in pd.named_parameters()] == ["b", "w"]
    assert list(nn.ParameterDict(OrderedDict(w=torch.zeros(1), b=torch.zeros(1)))) == ["w", "b"]
    assert list(nn.ParameterDict([("w", torch.zeros(1)), ("b", torch.zeros(1))])) == ["w", "b"]
    pd.update({"z": torch.zeros(1), "a": torch.zeros(1)})
    assert list(pd) == ["b", "w", "a", "z"]
    assert repr(nn.ParameterDict({"w": torch.zeros(2)})) == \
        "ParameterDict(  (w): Parameter containing: [torch.FloatTensor of size 2])"
    assert "(b): Parameter containing: [torch.DoubleTensor of size 2x3]" in repr(pd)


def test_data_parallel_wraps_one_device():
    lin = nn.Linear(2, 2)
    dp = nn.DataParallel(lin)
    x = torch.randn(3, 2)
    np.testing.assert_array_equal(dp(x).detach().numpy(), lin(x).detach().numpy())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert repr(dp) == "DataParallel(\n  (module): Linear(in_features=2, out_features=2, bias=True)\n)"


def test_module_tables_are_plain_dicts_and_hook_tables_ordered_as_pytorchs():
    from collections import OrderedDict

    import ember.nn as nn

    m = nn.Linear(1, 1)
    assert type(m._parameters) is dict and type(m._buffers) is dict and type(m._modules) is dict
    assert type(m._forward_hooks_with_kwargs) is OrderedDict and type(m._forward_pre_hooks) is OrderedDict
    assert repr(nn.Sequential(nn.ReLU())._modules) == "{'0': ReLU()}"
    lst = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    lst.insert(1, nn.ReLU())  # in place: still a dict, renumbered
    assert type(lst._modules) is dict and list(lst._modules) == ["0", "1", "2"]
    del lst[0]  # PyTorch rebuilds an OrderedDict here
    assert type(lst._modules) is OrderedDict and list(lst._modules) == ["0", "1"]


def test_module_list_insert_shifts_keys_unchecked_as_pytorch():
    """PyTorch's ModuleList.insert moves entries up one key at a time and stores the module without add_module's
    type check: a non-module goes in, a negative index fails on key "-1" after shifting, a far index leaves a gap."""
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml.insert(1, "x")
    assert list(ml._modules.items())[1] == ("1", "x") and "(1): 'x'" in repr(ml)
    ml.insert(7, nn.SiLU())
    assert list(ml._modules) == ["0", "1", "2", "7"] and isinstance(list(ml)[3], nn.SiLU)
    short = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    with pytest.raises(KeyError, match="'-1'"):
        short.insert(-1, nn.Sigmoid())
    assert [type(m).__name__ for m in short._modules.values()] == ["ReLU", "ReLU", "Tanh"]


def test_sequential_repeats_and_extends_in_place_as_pytorch():
    a, b = nn.Linear(2, 2), nn.ReLU()
    seq = nn.Sequential(a, b)
    twice = seq * 2
    assert list(twice) == [a, b, a, b] and list(twice._modules) == ["0", "1", "2", "3"] and len(seq) == 2
    assert list(3 * seq) == [a, b] * 3
    same = seq
    seq *= 2
    assert seq is same and list(seq) == [a, b, a, b]
    seq += nn.Sequential(nn.Tanh())
    assert seq is same and len(seq) == 5 and isinstance(seq[4], nn.Tanh)
    assert len(list(seq.parameters())) == 2  # the repeated Linear is one set of parameters
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: <class '.*Sequential'> and "
                                        r"<class 'float'>"):
        seq * 2.0
    with pytest.raises(ValueError, match=r"Non-positive multiplication factor 0 for <class '.*Sequential'>"):
        seq *= 0
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        seq += [nn.ReLU()]


def test_parameter_dict_or_reversed():
    a, b = nn.Parameter(torch.ones(1)), torch.zeros(1)
    pd = nn.ParameterDict({"a": a})
    merged = pd | {"b": b}  # a new ParameterDict, the tensor made a Parameter, pd untouched
    assert type(merged) is nn.ParameterDict and list(merged) == ["a", "b"] and merged["a"] is a
    assert isinstance(merged["b"], nn.Parameter) and list(pd) == ["a"]
    left = {"b": b} | pd  # a plain dict on the left stays a plain dict (dict.copy, then update)
    assert type(left) is dict and list(left) == ["b", "a"] and left["b"] is b and left["a"] is a
    pd |= {"c": torch.zeros(2)}
    assert list(pd) == ["a", "c"] and list(reversed(pd)) == ["c", "a"]


@pytest.mark.parametrize("cls, caller", [(nn.ModuleDict, "ModuleDict"), (nn.ParameterDict, "ParametersDict")])
def test_dict_update_errors_are_pytorchs(cls, caller):
    kind = cls.__name__
    with pytest.raises(TypeError, match=f"^{caller}.update should be called with an iterable of key/value pairs, "
                                        "but got int$"):
        cls().update(3)
    with pytest.raises(TypeError, match=f"^{kind} update sequence element #0 should be Iterable; isint$"):
        cls().update([3])
    with pytest.raises(ValueError, match=f"^{kind} update sequence element #1 has length 1; 2 is required$"):
        cls().update([("a", nn.ReLU() if cls is nn.ModuleDict else torch.zeros(1)), ("b",)])


def test_dict_update_takes_two_character_strings_as_pairs():
    pd = nn.ParameterDict()
    pd.update(["ab"])  # PyTorch unpacks the string: key "a", value "b"
    assert pd["a"] == "b"
    with pytest.raises(TypeError, match="^str is not a Module subclass$"):
        nn.ModuleDict().update(["ab"])
