"""The shell dtypes (int1..int7, uint1..uint7, bits*, float4_e2m1fn_x2, the quantized types): attributes,
promotion and the few ops PyTorch 2.13's CPU build runs on them, with its errors for the rest."""

import numpy as np
import pytest

import ember.core as ec
from ember.core import dtypes


def test_attributes_match_pytorch():
    assert [ec.int4.itemsize, ec.bits16.itemsize, ec.qint32.itemsize, ec.float4_e2m1fn_x2.itemsize] == [1, 2, 4, 1]
    assert ec.int3.is_signed and not ec.uint5.is_signed and ec.float4_e2m1fn_x2.is_signed
    assert ec.float4_e2m1fn_x2.is_floating_point and not ec.uint4.is_floating_point
    assert ec.bit is ec.uint1 and ec.uint4.to_real() is ec.uint4
    with pytest.raises(RuntimeError, match="^Bits types are undefined$"):
        ec.bits8.is_signed
    with pytest.raises(RuntimeError, match="^isSignedType not supported for quantized types$"):
        ec.qint8.is_signed
    with pytest.raises(RuntimeError, match="^Unknown Complex ScalarType for Float4_e2m1fn_x2$"):
        ec.float4_e2m1fn_x2.to_complex()


@pytest.mark.parametrize("a, b, expected", [
    (ec.uint4, ec.float32, ec.float32), (ec.float4_e2m1fn_x2, ec.uint2, ec.float4_e2m1fn_x2),
    (ec.uint4, ec.int64, "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt4 "
                         "and Long"),
    (ec.bits8, ec.float32, "Promotion from Bits8 and Float is unsupported."),
    (ec.qint8, ec.bits8, "promoteTypes with quantized numbers is not handled yet; figure out what the correct rules "
                         "should be, offending types: QInt8 Bits8"),
    (ec.int4, ec.float8_e5m2, "Promotion for Float8 Types is not supported, attempted to promote Int4 and "
                              "Float8_e5m2"),
    (ec.float32, ec.int4, "ix_b != -1 INTERNAL ASSERT FAILED"),
])
def test_promotion_follows_pytorch(a, b, expected):
    if isinstance(expected, dtypes.dtype):
        assert ec.promote_types(a, b) is expected
    else:
        with pytest.raises(RuntimeError) as e:
            ec.promote_types(a, b)
        assert str(e.value).startswith(expected)


def test_views_keep_bytes_and_dtype():
    raw = ec.arange(8, dtype=ec.uint8)
    x = raw.view(ec.uint4).reshape(2, 4)
    assert x.dtype is ec.uint4 and x.t().dtype is ec.uint4 and x.element_size() == 1
    assert ec.cat([x, x]).dtype is ec.uint4
    assert ec.zeros(4, dtype=ec.float32).view(ec.bits16).shape == (8,)
    np.testing.assert_array_equal(x[1].view(ec.uint8).numpy(), [4, 5, 6, 7])


def test_bits_and_float4_copy_but_sub_byte_ints_do_not():
    b = ec.arange(4, dtype=ec.uint8).view(ec.bits8)
    c = b.reshape(2, 2).t().contiguous()
    assert c.dtype is ec.bits8
    np.testing.assert_array_equal(c.view(ec.uint8).numpy(), [[0, 2], [1, 3]])
    np.testing.assert_array_equal(b.clone().zero_().view(ec.uint8).numpy(), [0, 0, 0, 0])
    with pytest.raises(NotImplementedError, match="^\"copy_kernel\" not implemented for 'Int4'$"):
        ec.empty(3, dtype=ec.int4).clone()
    z = ec.zeros(2, 3, dtype=ec.uint2)
    assert z.dtype is ec.uint2 and z.view(ec.uint8).sum().item() == 0
    with pytest.raises(NotImplementedError, match="^\"fill_cpu\" not implemented for 'UInt2'$"):
        z.fill_(0)
    np.testing.assert_array_equal(b.reshape(2, 2).flip(0).view(ec.uint8).numpy(), [[2, 3], [0, 1]])
    with pytest.raises(NotImplementedError, match="^\"flip_cpu\" not implemented for 'Bits8'$"):
        b.flip(0)


def test_refusals_name_pytorchs_kernels():
    x = ec.arange(4, dtype=ec.uint8).view(ec.uint4)
    for fn, msg in [(lambda: x + 1, "\"copy_\" not implemented for 'UInt4'"),
                    (lambda: x.sum(), "\"sum_cpu\" not implemented for 'UInt4'"),
                    (lambda: x.to(ec.float32), "\"copy_\" not implemented for 'UInt4'"),
                    (lambda: ec.ones(2, dtype=ec.bits8), "\"fill_cpu\" not implemented for 'Bits8'"),
                    (lambda: repr(x), "\"_local_scalar_dense_cpu\" not implemented for 'UInt4'"),
                    (lambda: x == x, "\"eq_cpu\" not implemented for 'UInt4'")]:
        with pytest.raises(NotImplementedError) as e:
            fn()
        assert str(e.value) == msg
    with pytest.raises(RuntimeError, match="^load_scalar: invalid type$"):
        x.tolist()
    with pytest.raises(TypeError, match="^Got unsupported ScalarType UInt4$"):
        x.numpy()
    with pytest.raises(RuntimeError, match="^store_scalar: invalid type$"):
        ec.tensor([1], dtype=ec.uint4)


def test_float4_prints_its_bytes_as_numbers():
    x = (ec.arange(3, dtype=ec.uint8) * 17).view(ec.float4_e2m1fn_x2)
    assert repr(x) == "tensor([ 0., 17., 34.], dtype=ember.float4_e2m1fn_x2)"
    assert repr(ec.zeros(2, dtype=ec.float4_e2m1fn_x2)) == "tensor([0., 0.], dtype=ember.float4_e2m1fn_x2)"
    assert repr(ec.empty(0, dtype=ec.uint3)) == "tensor([], dtype=ember.uint3)"
    assert (x == x).all()


def test_finfo_and_iinfo_as_pytorch():
    f = ec.finfo(ec.float4_e2m1fn_x2)
    assert f.bits == 8
    with pytest.raises(NotImplementedError, match="^\"lowest\" not implemented for 'Float4_e2m1fn_x2'$"):
        f.min
    with pytest.raises(TypeError, match="^bad argument type for built-in operation$"):
        repr(f)
    with pytest.raises(TypeError, match="requires an integer input type"):
        ec.iinfo(ec.uint4)
    q = ec.iinfo(ec.qint8)
    assert (q.bits, q.min, q.max) == (8, -128, 127) and ec.iinfo(ec.quint4x2).max == 255
    with pytest.raises(NotImplementedError, match="^\"dtype\" not implemented for 'QInt8'$"):
        q.dtype
    with pytest.raises(RuntimeError, match="^Unknown Complex ScalarType for Float8_e5m2$"):
        ec.float8_e5m2.to_complex()


def test_result_type_ranks_shell_dtypes_as_pytorch():
    u4, i4 = ec.empty(2, dtype=ec.uint4), ec.empty(2, dtype=ec.int4)
    assert ec.result_type(u4, 2) is ec.uint4 and ec.result_type(u4, 1.5) is ec.float32
    assert ec.result_type(i4, 1j) is ec.complex64
    assert ec.result_type(ec.ones(2), ec.empty((), dtype=ec.int4)) is ec.float32
    with pytest.raises(RuntimeError, match="^unsupported scalarType$"):
        ec.result_type(ec.empty(2, dtype=ec.bits8), 1.5)
    with pytest.raises(RuntimeError, match="^ix_a != -1 INTERNAL ASSERT FAILED"):
        ec.result_type(i4, 1.5)
    with pytest.raises(RuntimeError, match="^Unknown Complex ScalarType for Float4_e2m1fn_x2$"):
        ec.result_type(ec.empty(2, dtype=ec.float4_e2m1fn_x2), 1j)


@pytest.mark.parametrize("make, message", [
    (lambda: ec.zeros(2, dtype=ec.float4_e2m1fn_x2).to(ec.float32), "\"copy_kernel\" not implemented for "
                                                                       "'Float4_e2m1fn_x2'"),
    (lambda: ec.zeros(2, dtype=ec.float16).to(ec.float4_e2m1fn_x2), "\"copy_\" not implemented for 'Float4_e2m1fn_x2'"),
    (lambda: ec.zeros(2, dtype=ec.float4_e2m1fn_x2).to(ec.uint4), "\"copy_\" not implemented for 'UInt4'"),
    (lambda: ec.zeros(2, dtype=ec.bits8).copy_(ec.zeros(2)), "\"copy_\" not implemented for 'Bits8'"),
])
def test_casts_name_pytorchs_copy_kernels(make, message):
    with pytest.raises(NotImplementedError) as e:
        make()
    assert str(e.value) == message


def test_quantized_dtypes_without_a_quantizer_fail_as_pytorch():
    q = ec.empty(2, dtype=ec.qint8)
    assert q.dtype is ec.qint8 and q.shape == (2,)
    with pytest.raises(RuntimeError, match="cannot call qscheme on UnknownQuantizer$"):
        repr(q)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::zero_' with arguments from the "
                                                  "'QuantizedCPU' backend"):
        ec.zeros(2, dtype=ec.quint8)
    with pytest.raises(RuntimeError, match="^empty_strided not supported on quantized tensors yet"):
        ec.ones(2).to(ec.qint32)


def test_setting_a_number_names_pytorchs_fill_or_copy_kernel():
    b = ec.zeros(3, dtype=ec.bits8)
    with pytest.raises(NotImplementedError, match="^\"fill_out\" not implemented for 'Bits8'$"):
        b[1:] = 2
    with pytest.raises(NotImplementedError, match="^\"copy_kernel\" not implemented for 'Int4'$"):
        ec.zeros(3, dtype=ec.int4)[0] = 1
