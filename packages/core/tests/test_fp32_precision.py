"""The float32 precision table (`torch.backends.*.fp32_precision`) and the legacy switches, as PyTorch 2.13 keeps
them: which entries a setter writes, and the RuntimeErrors a legacy getter raises after the APIs were mixed."""

import pytest

from ember.core import fp32_precision as P
from ember.core import settings


@pytest.fixture(autouse=True)
def _restore(monkeypatch):
    monkeypatch.setattr(P, "_table", dict(P._table))
    monkeypatch.setattr(P, "_cudnn_legacy", list(P._cudnn_legacy))
    monkeypatch.setattr(settings, "_matmul_precision", settings._matmul_precision)


def _all() -> list[str]:
    keys = [("generic", "all"), ("cuda", "matmul"), ("cuda", "all"), ("cuda", "conv"), ("cuda", "rnn"),
            ("mkldnn", "all"), ("mkldnn", "matmul"), ("mkldnn", "conv"), ("mkldnn", "rnn")]
    return [P.get_precision(*k) for k in keys]


def test_defaults_and_what_each_setter_writes():
    assert _all() == ["none", "none", "none", "tf32", "tf32", "none", "none", "none", "none"]
    P.set_precision("cuda", "all", "ieee")  # a backend's "all": each of its ops
    assert _all() == ["none", "ieee", "ieee", "ieee", "ieee", "none", "none", "none", "none"]
    P.set_precision("generic", "all", "bf16")  # every backend; "none" where it lacks the precision
    assert _all() == ["bf16", "none", "none", "none", "none", "bf16", "bf16", "bf16", "bf16"]
    settings.set_float32_matmul_precision("medium")
    assert P.get_precision("cuda", "matmul") == "tf32" and P.get_precision("mkldnn", "matmul") == "bf16"
    assert settings.get_float32_matmul_precision() == "medium"
    P.set_cudnn_allow_tf32(False)
    assert (P.get_precision("cuda", "conv"), P.get_precision("cuda", "rnn"), P.cudnn_allow_tf32()) == \
        ("none", "none", False)


def test_unknown_and_unsupported_precisions_are_refused_in_pytorchs_words():
    with pytest.raises(RuntimeError, match="^Unknown precision: foo$"):
        P.set_precision("cuda", "matmul", "foo")
    with pytest.raises(RuntimeError, match="^backend 'cuda' does not support precision 'bf16'$"):
        P.set_precision("cuda", "all", "bf16")
    with pytest.raises(TypeError) as info:  # PyTorch's pybind refusal of a precision that is no str
        P.set_precision("generic", "all", 3)
    assert str(info.value) == ("_set_fp32_precision_setter(): incompatible function arguments. The following "
                               "argument types are supported:\n    1. (arg0: str, arg1: str, arg2: str) -> str\n\n"
                               "Invoked with: 'generic', 'all', 3")


def test_a_legacy_getter_refuses_a_mix_of_the_two_apis():
    P.set_precision("generic", "all", "tf32")
    with pytest.raises(RuntimeError, match="^PyTorch is checking the matmul precision without a specific backend "
                                           "name,Current status indicate that you have used mix of the legacy and "
                                           "new APIs"):
        settings.get_float32_matmul_precision()
    with pytest.raises(RuntimeError, match="^PyTorch is checking whether allow_tf32_new is enabled for cuBlas "
                                           "matmul,Current status"):
        P.cublas_allow_tf32(settings._matmul_precision)
    assert P.cudnn_allow_tf32() is True
    P.set_precision("cuda", "conv", "ieee")
    with pytest.raises(RuntimeError, match="^PyTorch is checking whether allow_tf32 is enabled for cuDNN without a "
                                           "specific operator name,but the current flag"):
        P.cudnn_allow_tf32()
