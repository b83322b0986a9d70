"""`rearrange` (torch.func's einops): results against numpy's reshape/transpose, gradients, and functorch's
errors."""

import numpy as np
import pytest

import ember.autograd as torch
from ember.autograd.einops import DimensionBindError, rearrange


def _x():
    return torch.arange(48.0, dtype=torch.float64).reshape(2, 4, 6)


@pytest.mark.parametrize("pattern, lengths, reference", [
    ("a b c -> c b a", {}, lambda a: a.transpose(2, 1, 0)),
    ("a b c -> a (c b)", {}, lambda a: a.transpose(0, 2, 1).reshape(2, 24)),
    ("a (h w) c -> a h w c", {"h": 2}, lambda a: a.reshape(2, 2, 2, 6)),
    ("a b (c k) -> (a k) b c", {"k": 3}, lambda a: a.reshape(2, 4, 2, 3).transpose(0, 3, 1, 2).reshape(6, 4, 2)),
    ("a ... -> ... a", {}, lambda a: a.transpose(1, 2, 0)),
    ("... c -> (...) c", {}, lambda a: a.reshape(8, 6)),
    ("a b c -> a 1 b c 1", {}, lambda a: a.reshape(2, 1, 4, 6, 1)),
])
def test_matches_numpy(pattern, lengths, reference):
    x = _x()
    np.testing.assert_array_equal(rearrange(x, pattern, **lengths).numpy(), reference(x.numpy()))


def test_left_unit_axis_is_summed_as_functorch_does():
    x = _x()
    np.testing.assert_array_equal(rearrange(x, "a b 1 -> a b").numpy(), x.numpy().sum(2))


def test_a_list_is_stacked_first():
    out = rearrange([torch.ones(2, 3), torch.zeros(2, 3)], "n a b -> a (n b)")
    np.testing.assert_array_equal(out.numpy(), np.concatenate([np.ones((2, 3)), np.zeros((2, 3))], 1))


def test_gradient_flows_back_through_the_permutation():
    x = _x().requires_grad_()
    w = torch.arange(48.0, dtype=torch.float64).reshape(6, 8)
    (rearrange(x, "a (h w) c -> c (a h w)", h=2) * w).sum().backward()
    expected = np.arange(48.0).reshape(6, 2, 2, 2).transpose(1, 2, 3, 0).reshape(2, 4, 6)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


@pytest.mark.parametrize("pattern, lengths, error, message", [
    ("a b c", {}, ValueError, "Pattern must contain a single '->' separator"),
    ("a b c -> a b", {}, ValueError, "Identifiers only on one side of rearrange expression (should be on both): {'c'}"),
    ("a b -> a b", {}, ValueError, "Number of dimensions in pattern (2) must be equal to the number of dimensions in "
                                   "the tensor (3)"),
    ("a a c -> a c", {}, ValueError, "Indexing expression contains duplicate dimension 'a'"),
    ("a b c -> a b 2 c", {}, ValueError, "rearrange only supports unnamed axes of size 1"),
    ("a b c$ -> a b c", {}, ValueError, "Unknown character '$'"),
    ("a b c -> a b c", {"d": 3}, ValueError, "Identifiers not found in rearrange expression: {'d'}"),
    ("a b c -> a b c", {"a": 2.0}, TypeError, "rearrange axis lengths must be integers, got: <class 'float'>"),
    ("a b (c d) -> a b c d", {}, DimensionBindError, "cannot infer the sizes of two dimensions at once d2 and d3"),
    ("a b (c d) -> a b c d", {"d": 4}, DimensionBindError,
     "inferred dimension does not evenly fit into larger dimension: 6 vs ('?', 4)"),
    ("a b c -> a b c", {"a": 5}, DimensionBindError,
     "Dimension sizes to do not match (2 != 5) when matching dimension pack (d0,)"),
])
def test_errors_are_functorchs(pattern, lengths, error, message):
    with pytest.raises(error) as e:
        rearrange(_x(), pattern, **lengths)
    assert str(e.value) == message
