"""The progress bar draws rate and time left on a terminal and writes nothing elsewhere."""

import io

from ember.bench.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_output_when_the_stream_is_not_a_terminal():
    stream = io.StringIO()
    with Progress(3, "Table 1", stream=stream) as bar:
        for _ in range(3):
            bar.update(1, model="ResNet-50")
    assert stream.getvalue() == ""


def test_a_terminal_gets_a_bar_with_count_rate_and_the_shown_values():
    stream = _Terminal()
    with Progress(3, "digits", stream=stream) as bar:
        for _ in range(3):
            bar.update(1, loss=0.5, acc=1)
    text = stream.getvalue()
    final = text.split("\r")[-1]
    assert final.startswith("digits: 100%")
    assert "3/3" in final and "it/s" in final
    assert "loss=0.5000" in final and "acc=1" in final
