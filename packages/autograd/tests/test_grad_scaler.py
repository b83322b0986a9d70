"""The fused loss-scaling kernels under GradScaler (`torch._amp_foreach_non_finite_check_and_unscale_`,
`torch._amp_update_scale_`): values, in-place semantics and PyTorch's refusals."""

import math

import pytest

import ember.autograd as torch


def test_unscale_multiplies_in_place_and_flags_non_finite():
    grads = [torch.tensor([2.0, 4.0]), torch.tensor([[8.0, math.inf]]), torch.tensor([3.0], dtype=torch.float16)]
    found = torch.zeros(1)
    assert torch._amp_foreach_non_finite_check_and_unscale_(grads, found, torch.tensor([0.5])) is None
    assert grads[0].tolist() == [1.0, 2.0] and grads[1].tolist() == [[4.0, math.inf]]
    assert grads[2].dtype is torch.float16 and grads[2].tolist() == [1.5]
    assert found.tolist() == [1.0]
    kept = torch.tensor([3.0])  # a finite pass leaves found_inf as it was
    torch._amp_foreach_non_finite_check_and_unscale_([torch.tensor([1.0, math.nan])], torch.zeros(1), torch.ones(1))
    torch._amp_foreach_non_finite_check_and_unscale_([torch.tensor([1.0])], kept, torch.tensor([0.5]))
    assert kept.tolist() == [3.0]


@pytest.mark.parametrize("args, message", [
    (([torch.ones(2)], torch.zeros(1, dtype=torch.int32), torch.ones(1)), "found_inf must be a float tensor."),
    (([torch.ones(2)], torch.zeros(2), torch.ones(1)), "found_inf must be a 1-element tensor."),
    (([torch.ones(2)], torch.zeros(1), torch.ones(1, dtype=torch.float64)), "inv_scale must be a float tensor."),
    (([torch.ones(2)], torch.zeros(1), torch.ones(2)), "inv_scale must be a 1-element tensor."),
])
def test_unscale_refuses_bad_operands(args, message):
    with pytest.raises(RuntimeError, match=message):
        torch._amp_foreach_non_finite_check_and_unscale_(*args)


def test_unscale_refuses_integer_tensors():
    with pytest.raises(NotImplementedError,
                       match="\"_amp_foreach_non_finite_check_and_unscale_cpu\" not implemented for 'Int'"):
        torch._amp_foreach_non_finite_check_and_unscale_([torch.ones(2, dtype=torch.int32)], torch.zeros(1),
                                                         torch.ones(1))


def test_update_scale_backs_off_grows_and_never_grows_to_inf():
    scale, tracker = torch.tensor([1024.0]), torch.zeros(1, dtype=torch.int32)
    seen = []
    for inf in (0.0, 0.0, 1.0, 0.0, 0.0, 0.0, math.nan):
        assert torch._amp_update_scale_(scale, tracker, torch.tensor([inf]), 2.0, 0.5, 3) is scale
        seen.append((scale.item(), tracker.item()))
    assert seen == [(1024.0, 1), (1024.0, 2), (512.0, 0), (512.0, 1), (512.0, 2), (1024.0, 0), (512.0, 0)]
    big = torch.tensor([3e38])
    torch._amp_update_scale_(big, torch.zeros(1, dtype=torch.int32), torch.zeros(1), 2.0, 0.5, 1)
    assert big.item() == pytest.approx(3e38, rel=1e-6)


@pytest.mark.parametrize("scale, tracker, found, message", [
    (torch.tensor([4.0], dtype=torch.float64), torch.zeros(1, dtype=torch.int32), torch.zeros(1),
     "current_scale must be a float tensor."),
    (torch.tensor([4.0, 1.0]), torch.zeros(1, dtype=torch.int32), torch.zeros(1),
     "current_scale must be a 1-element tensor."),
    (torch.tensor([4.0]), torch.zeros(1), torch.zeros(1), "growth_tracker must be an int tensor."),
    (torch.tensor([4.0]), torch.zeros(1, dtype=torch.int32), torch.zeros(2), "found_inf must be a 1-element tensor."),
])
def test_update_scale_refuses_bad_operands(scale, tracker, found, message):
    with pytest.raises(RuntimeError, match=message):
        torch._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 1)
