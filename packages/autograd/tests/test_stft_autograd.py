"""stft and istft differentiate: float64 finite differences through the composed transform."""

import numpy as np

import ember.autograd as E
from ember.autograd.gradcheck import gradcheck


def test_stft_and_istft_gradients_by_finite_differences():
    rng = np.random.default_rng(0)
    x = E.tensor(rng.standard_normal(24)).requires_grad_()
    w = E.tensor(np.hanning(8) + 0.2).requires_grad_()

    def power(x, w):
        return E.stft(x, 8, hop_length=3, window=w, return_complex=True).abs().pow(2).sum(0)

    assert gradcheck(power, (x, w), eps=1e-6, atol=1e-6)

    def roundtrip(x):
        s = E.stft(x, 8, hop_length=2, window=E.ones(8, dtype=E.float64), return_complex=True)
        return E.istft(s * 0.5, 8, hop_length=2, window=E.ones(8, dtype=E.float64), length=24)

    assert gradcheck(roundtrip, (x,), eps=1e-6, atol=1e-6)
