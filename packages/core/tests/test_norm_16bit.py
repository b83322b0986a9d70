"""bfloat16/float16 batch and instance norm on the CPU as PyTorch 2.13 rounds them: an all-bfloat16 batch norm keeps
its statistics (and the variance sum behind its invstd) in bfloat16 and updates bfloat16 running statistics in
bfloat16 arithmetic; a 16-bit instance norm applies weight and bias inside the one batch norm (PyTorch's values)."""

import ember.core as E


def _inputs(dt):
    x = (E.sin(E.arange(2 * 3 * 50, dtype=E.float32) * 1.3) * 3 + 1.5).reshape(2, 3, 50).to(dt)
    return x, E.tensor([0.7, 1.2, 1.9]).to(dt), E.tensor([0.1, -0.2, 0.3]).to(dt)


def test_all_bfloat16_batch_norm_rounds_statistics_as_pytorch():
    x, w, b = _inputs(E.bfloat16)
    rm, rv = E.zeros(3, dtype=E.bfloat16), E.ones(3, dtype=E.bfloat16)
    out = E.batch_norm(x, rm, rv, w, b, training=True)
    assert out.dtype is E.bfloat16
    assert out.float().sum().item() == 20.1689453125
    assert out[0, :, :4].tolist() == [[0.08447265625, 1.046875, 0.59765625, -0.59765625],
                                      [1.1875, -0.76953125, -1.921875, -0.5859375],
                                      [-2.109375, -1.234375, 2.0, 2.859375]]
    assert rm.tolist() == [0.1552734375, 0.154296875, 0.1416015625]
    assert rv.tolist() == [1.3515625, 1.3515625, 1.359375]


def test_16bit_instance_norm_applies_its_affine_inside_the_batch_norm():
    x, w, b = _inputs(E.bfloat16)
    out = E.instance_norm(x, weight=w, bias=b)
    assert out.float().sum().item() == 20.03125
    assert out[1, :, :3].tolist() == [[0.298828125, 1.0703125, 0.392578125], [0.94921875, -1.109375, -1.8671875],
                                      [-2.25, -0.7265625, 2.421875]]
    h = E.instance_norm(x.half(), weight=w.half(), bias=b.half())
    assert h.dtype is E.float16
    assert h[1, :, :3].tolist() == [[0.29931640625, 1.07421875, 0.39208984375],
                                    [0.95263671875, -1.1083984375, -1.8623046875],
                                    [-2.255859375, -0.7255859375, 2.41796875]]



def test_16bit_group_norm_applies_scale_and_shift_in_float32_once():
    x = (E.sin(E.arange(2 * 4 * 30, dtype=E.float32) * 1.3) * 3 + 1.5).reshape(2, 4, 30)
    w, b = E.tensor([0.7, 1.2, 1.9, -0.4]), E.tensor([0.1, -0.2, 0.3, 0.05])
    bf = E.group_norm(x.bfloat16(), 2, w.bfloat16(), b.bfloat16())
    assert bf.dtype is E.bfloat16
    assert bf.float().sum().item() == 18.818408966064453
    assert bf[1, :, :3].tolist() == [[-0.765625, 0.328125, 1.1015625], [0.19140625, 1.5234375, 0.3515625],
                                     [2.921875, 1.078125, -1.984375], [-0.1142578125, 0.53125, 0.490234375]]
    h = E.group_norm(x.half(), 2, w.half(), b.half())
    assert h.float().sum().item() == 18.814043045043945
    assert h[1, 0, :3].tolist() == [-0.76513671875, 0.328369140625, 1.1025390625]


def test_16bit_batch_norm_output_is_one_fused_multiply_add_as_pytorchs():
    """PyTorch's vectorized `fmadd(x, alpha, beta)`: an input equal to the running mean keeps the rounding of
    `beta = -mean * alpha` (3.49e-9), where a separate product and sum give 0 (PyTorch 2.13's values)."""
    bf = E.bfloat16
    x = E.tensor([[-0.55078125, -1.359375], [0.75, 2.5]], dtype=bf)
    out = E.batch_norm(x, E.tensor([-0.55078125, -1.359375], dtype=bf), E.tensor([1.0625, 1.2890625], dtype=bf),
                       training=False)
    assert out.float().tolist() == [[3.4924596548080444e-09, 4.6566128730773926e-09], [1.265625, 3.40625]]
