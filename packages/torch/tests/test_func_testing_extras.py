"""torch.testing.assert_allclose (deprecated), torch.func.functionalize and
torch.func.replace_all_batch_norm_modules_, with PyTorch's warnings, defaults and errors."""

import numpy as np
import pytest

import ember.torch as torch

DEPRECATED = r"`torch.testing.assert_allclose\(\)` is deprecated since 1.12"


def test_assert_allclose_defaults_and_warning():
    with pytest.warns(FutureWarning, match=DEPRECATED):
        torch.testing.assert_allclose(torch.tensor([1.0]), [1.000_05])  # float32: rtol 1e-4, atol 1e-5
    with pytest.warns(FutureWarning, match=DEPRECATED), pytest.raises(AssertionError, match="not close"):
        torch.testing.assert_allclose(torch.tensor([1.0]), [1.001])
    with pytest.warns(FutureWarning, match=DEPRECATED):
        torch.testing.assert_allclose(torch.tensor([float("nan")]), [float("nan")])  # NaNs equal by default
        torch.testing.assert_allclose(torch.tensor([1.0], dtype=torch.float64), torch.tensor([1.0]))  # no dtype check
        torch.testing.assert_allclose(torch.tensor([1.0]), [1.001], rtol=0.0, atol=0.01)
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        torch.testing.assert_allclose(torch.tensor([3]), [4])  # integers: exact


def test_assert_close_needs_both_tolerances_or_neither():
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified or omitted, but got no atol"):
        torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0]), rtol=0.1)
    with pytest.raises(ValueError, match="but got no rtol"):
        torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0]), atol=0.1)


def test_functionalize_keeps_values_and_input_mutations():
    def f(x):
        y = x.clone()
        y.add_(1)
        x.mul_(2)
        return y.view(-1)

    x = torch.tensor([[1.0, 2.0]])
    out = torch.func.functionalize(f)(x)
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(x.numpy(), [[2.0, 4.0]])
    assert torch.func.functionalize(f).__name__ == "f"
    with pytest.raises(RuntimeError, match="received invalid argument for remove=views"):
        torch.func.functionalize(f, remove="views")


def test_debug_unwrap_returns_the_tensor_inside_a_transform():
    seen = []
    torch.func.grad(lambda x: seen.append(torch.func.debug_unwrap(x)) or (x * x).sum())(torch.ones(2))
    assert isinstance(seen[0], torch.Tensor)
    with pytest.raises(TypeError):
        torch.func.debug_unwrap(3)


def test_replace_all_batch_norm_modules_uses_batch_statistics():
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Sequential(
        torch.nn.BatchNorm1d(4, track_running_stats=False)))
    assert torch.func.replace_all_batch_norm_modules_(net) is net
    bn = net[1]
    assert not bn.track_running_stats and bn.running_mean is None and bn.running_var is None
    assert bn.num_batches_tracked is None and "running_mean" not in net.state_dict().keys()
    net.eval()
    x = torch.randn(5, 3)
    h = net[0](x).detach().numpy()
    expected = (h - h.mean(0)) / np.sqrt(h.var(0) + 1e-5)
    np.testing.assert_allclose(net[1](net[0](x)).detach().numpy(), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.torch
def test_replace_all_batch_norm_modules_matches_pytorch():
    real = pytest.importorskip("torch")
    theirs = real.func.replace_all_batch_norm_modules_(real.nn.Sequential(real.nn.BatchNorm2d(2)))
    ours = torch.func.replace_all_batch_norm_modules_(torch.nn.Sequential(torch.nn.BatchNorm2d(2)))
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    assert ours[0].track_running_stats == theirs[0].track_running_stats


def test_assert_close_rejects_a_tensor_against_a_number_and_names_mapping_keys():
    with pytest.raises(TypeError, match=r"^No comparison pair was able to handle inputs of type <class 'torch.Tensor'> "
                                        r"and <class 'float'>\.$"):
        torch.testing.assert_close(torch.tensor([1.0]), 1.0)
    with pytest.raises(AssertionError) as info:
        torch.testing.assert_close({"a": 1}, {"b": 1})
    assert str(info.value) == ("The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
                               "Additional keys in the actual mapping: ['a']")


def test_assert_close_rejects_a_tensor_against_a_number_inside_containers_naming_the_item():
    prefix = r"^No comparison pair was able to handle inputs of type <class 'torch.Tensor'> and <class 'float'>\."
    with pytest.raises(TypeError, match=prefix + r"\n\nThe failure occurred for item \[0\]$"):
        torch.testing.assert_close([torch.tensor(1.0)], [1.0])
    with pytest.raises(TypeError, match=prefix + r"\n\nThe failure occurred for item \['a'\]$"):
        torch.testing.assert_close({"a": torch.tensor(1.0)}, {"a": 1.0})
    with pytest.raises(TypeError, match=prefix + r"\n\nThe failure occurred for item \[0\]\[1\]$"):
        torch.testing.assert_close([[1.0, torch.tensor(2.0)]], [[1.0, 2.0]])
    torch.testing.assert_close([1.0, (torch.ones(2),)], [1.0, (torch.ones(2),)])


def test_assert_close_refuses_a_tensor_against_a_list_or_array():
    import numpy as np

    for other in ([1.0, 2.0], np.array([1.0, 2.0])):
        with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type <class "):
            torch.testing.assert_close(torch.tensor([1.0, 2.0]), other)
    torch.testing.assert_close(torch.nn.Parameter(torch.ones(1)), torch.ones(1))
    torch.testing.assert_close(np.ones(2), np.ones(2))


def test_assert_close_pairs_as_pytorchs_for_arrays_strings_numpy_scalars_and_promotion():
    import numpy as np

    with pytest.raises(AssertionError, match=r"attribute 'dtype' do not match: .*int64 != .*float64"):
        torch.testing.assert_close(np.array([1, 2]), np.array([1.0, 2.0]))
    with pytest.raises(AssertionError, match=r"Greatest absolute difference: 0.5 at index \(1,\)"):
        torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1.0, 2.5]), check_dtype=False)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type <class 'str'>"):
        torch.testing.assert_close("a", "a")
    with pytest.raises(AssertionError, match=r"\(up to 1e-07 allowed\)"):  # a numpy scalar is a Python number
        torch.testing.assert_close(np.float32(1.0), np.float32(1.1))
    with pytest.raises(TypeError, match="of type <class '.*Parameter'> and <class '.*Tensor'>"):
        torch.testing.assert_close(torch.nn.Parameter(torch.ones(1)), torch.ones(1), allow_subclasses=False)
