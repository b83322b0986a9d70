"""`torch.ctc_loss` (ATen's form, ember.core's `ctc_loss`): each sample's loss against a numpy float64 reference."""

import itertools
import re

import numpy as np
import pytest

import ember.core as E


def _reference(lp: np.ndarray, target: list[int], blank: int = 0) -> float:
    """-log of the summed probability of every alignment of length T that collapses to `target`."""
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
        if collapsed == target:
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total)


def test_without_a_reduction_each_samples_loss_as_pytorchs_binding():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 2, 3))
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets, tl = [[1, 2], [2, 2]], [2, 2]
    got = E.ctc_loss(E.tensor(lp), E.tensor(targets), E.tensor([4, 4]), E.tensor(tl))
    want = [_reference(lp[:, n], targets[n]) for n in range(2)]
    assert got.shape == (2,)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(E.ctc_loss(E.tensor(lp), E.tensor(targets), [4, 4], tl, 0, 1).item(),
                               np.mean(np.array(want) / tl), rtol=1e-10)


def test_aten_form_with_int_lengths_lists_only_the_arguments_given():
    # PyTorch 2.13: `torch.ctc_loss(lp, t, 5, 2)` lists four arguments and no "didn't match" line (seven expected)
    import pytest

    lp, t = E.log_softmax(E.zeros(6, 2, 4), 2), E.tensor([[1, 2], [3, 1]])
    with pytest.raises(TypeError) as e:
        E.ctc_loss(lp, t, 5, 2)
    assert str(e.value) == (
        "ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, int, int), but expected one "
        "of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int "
        "blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n * (Tensor log_probs, Tensor "
        "targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, "
        "bool zero_infinity = False)\n")


def test_a_non_int_after_an_int_length_and_empty_log_probs_are_pytorchs_errors():
    """PyTorch's parser takes a list opening with an int as `tuple of ints` and names the first element that is
    not one (1-based); empty log_probs are refused before any length check."""
    import pytest

    lp, t = E.log_softmax(E.zeros(6, 2, 4), 2), E.tensor([[1, 2], [3, 1]])
    for il, tl, name, pos, kind in (([6, 5.5], [2, 2], "input_lengths", 2, "float"),
                                    ([6, 6], (2, 2, None), "target_lengths", 3, "NoneType"),
                                    ((6, "6"), [2, 2], "input_lengths", 2, "str")):
        want = f"ctc_loss(): argument '{name}' failed to unpack the object at pos {pos} with error \"type must be " \
               f"tuple of ints,but got {kind}\""
        with pytest.raises(TypeError) as e:
            E.ctc_loss(lp, t, il, tl)
        assert str(e.value) == want
    for empty in (E.zeros(6, 0, 4), E.zeros(0, 2, 4)):
        with pytest.raises(RuntimeError, match=r"^log_probs tensor must not be empty$"):
            E.ctc_loss(empty, t, E.zeros(empty.shape[1], dtype=E.int64), E.zeros(empty.shape[1], dtype=E.int64))


@pytest.mark.parametrize("shape,rank", [((5,), 2), ((5, 1, 3, 1), 5)])
def test_log_probs_of_another_rank_are_unsqueezed_then_refused_as_pytorchs(shape, rank):
    """PyTorch treats every rank but 3 as unbatched and unsqueezes it, so the message names rank + 1."""
    with pytest.raises(RuntimeError, match=re.escape(f"Expected 3-dimensional tensor, but got {rank}-dimensional "
                                                     f"tensor for argument #1 'log_probs' (while checking arguments "
                                                     f"for ctc_loss_allocate_outputs)")):
        E.ctc_loss(E.zeros(*shape), E.tensor([[1, 2]]), [5], [2])
