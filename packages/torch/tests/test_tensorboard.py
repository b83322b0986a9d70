"""SummaryWriter's event files, read back with TensorBoard's own reader (and, in the torch
session, against the files PyTorch's writer makes for the same calls)."""

import glob
import io
import os
import struct
import zlib

import numpy as np
import pytest

import ember.autograd as ea

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from ember.torch.utils.tensorboard import SummaryWriter  # noqa: E402
from ember.torch.utils.tensorboard.png import encode_png  # noqa: E402


def _read(log_dir) -> EventAccumulator:
    acc = EventAccumulator(str(log_dir), size_guidance={"tensors": 0, "images": 0, "histograms": 0, "scalars": 0})
    acc.Reload()
    return acc


def _decode_png(data: bytes) -> np.ndarray:
    """Our own PNG reader for the test (filter type 0 rows only, which is what we write)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        chunks.setdefault(kind, b"")
        chunks[kind] += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    width, height, _, color, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    channels = {0: 1, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + width * channels)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def test_scalars_read_back_with_steps_and_values(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalar("loss/train", ea.tensor(1.0 / (step + 1)), global_step=step)
        w.add_scalar("lr", 0.1, global_step=0, new_style=True)
    acc = _read(tmp_path)
    events = acc.Scalars("loss/train")
    assert [e.step for e in events] == [0, 1, 2]
    np.testing.assert_allclose([e.value for e in events], [1.0, 0.5, 1 / 3], rtol=1e-6)
    (lr,) = acc.Tensors("lr")
    assert lr.tensor_proto.float_val == [pytest.approx(0.1)]


def test_add_scalar_rejects_a_non_scalar(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="scalar should be 0D"):
        w.add_scalar("x", ea.ones(3))


def test_add_scalars_writes_one_run_per_entry(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalars("run", {"a": 1.0, "b": 2.0}, global_step=5)
    for name, value in (("a", 1.0), ("b", 2.0)):
        (event,) = _read(tmp_path / f"run_{name}").Scalars("run")
        assert (event.step, event.value) == (5, value)


def test_histogram_counts_every_value_in_increasing_buckets(tmp_path):
    values = np.random.default_rng(0).normal(size=1000).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("weights", ea.from_numpy(values), global_step=1)
        w.add_histogram("fixed", ea.from_numpy(values), global_step=1, bins=10)
    acc = _read(tmp_path)
    for tag in ("weights", "fixed"):
        (event,) = acc.Histograms(tag)
        h = event.histogram_value
        assert h.num == 1000 and sum(h.bucket) == 1000
        assert h.min == pytest.approx(values.min()) and h.max == pytest.approx(values.max())
        assert h.sum == pytest.approx(values.sum(dtype=np.float64), rel=1e-5)
        assert h.sum_squares == pytest.approx(np.dot(values.astype(np.float64), values), rel=1e-6)
        assert np.all(np.diff(h.bucket_limit) > 0)
    counts, _ = np.histogram(values, bins=10)
    assert [int(c) for c in acc.Histograms("fixed")[0].histogram_value.bucket] == counts.tolist()


def test_images_round_trip_through_png(tmp_path):
    chw = np.random.default_rng(1).random((3, 8, 5), dtype=np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_image("img", ea.from_numpy(chw), global_step=0)
        w.add_images("batch", ea.from_numpy(np.stack([chw] * 4)), global_step=0)
        w.add_image("gray", np.arange(12, dtype=np.uint8).reshape(3, 4), dataformats="HW")
    acc = _read(tmp_path)
    (img,) = acc.Images("img")
    assert (img.height, img.width) == (8, 5)
    expected = (np.clip(chw.transpose(1, 2, 0), 0, 1) * 255 + 0.5).astype(np.uint8)
    np.testing.assert_array_equal(_decode_png(img.encoded_image_string), expected)
    (grid,) = acc.Images("batch")
    assert (grid.height, grid.width) == (16, 10)
    (gray,) = acc.Images("gray")
    np.testing.assert_array_equal(_decode_png(gray.encoded_image_string)[..., 0],
                                  np.arange(12).reshape(3, 4))


def test_add_image_names_a_bad_layout(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="dataformats 'CHW'"):
        w.add_image("img", np.zeros((2, 2)), dataformats="CHW")


def test_figure_is_rendered_to_an_image(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, global_step=3)
    (img,) = _read(tmp_path).Images("fig")
    assert (img.step, img.height, img.width) == (3, 50, 100)
    assert not plt.fignum_exists(fig.number)


def test_text_reads_back_as_a_string_tensor(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "lr **0.1**", global_step=2)
    acc = _read(tmp_path)
    (event,) = acc.Tensors("notes/text_summary")
    assert event.step == 2 and event.tensor_proto.string_val == [b"lr **0.1**"]
    assert acc.summary_metadata["notes/text_summary"].plugin_data.plugin_name == "text"


def test_hparams_are_read_by_the_hparams_plugin(tmp_path):
    from tensorboard.plugins.hparams import metadata

    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.1, "bsize": 32, "opt": "adam", "nesterov": True}, {"hparam/accuracy": 0.9},
                      run_name="trial")
    acc = _read(tmp_path / "trial")
    experiment = metadata.parse_experiment_plugin_data(
        acc.summary_metadata[metadata.EXPERIMENT_TAG].plugin_data.content)
    assert [h.name for h in experiment.hparam_infos] == ["lr", "bsize", "opt", "nesterov"]
    start = metadata.parse_session_start_info_plugin_data(
        acc.summary_metadata[metadata.SESSION_START_INFO_TAG].plugin_data.content)
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["opt"].string_value == "adam"
    assert start.hparams["nesterov"].bool_value is True
    (metric,) = acc.Scalars("hparam/accuracy")
    assert metric.value == pytest.approx(0.9)


def test_embedding_files_and_projector_config(tmp_path):
    from google.protobuf import text_format
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

    mat = np.arange(12, dtype=np.float32).reshape(4, 3)
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(ea.from_numpy(mat), metadata=["a", "b", "c", "d"],
                        label_img=ea.zeros(4, 3, 2, 2), global_step=7, tag="words")
    folder = tmp_path / "00007" / "words"
    np.testing.assert_array_equal(np.loadtxt(folder / "tensors.tsv", delimiter="\t"), mat)
    assert (folder / "metadata.tsv").read_text().split() == ["a", "b", "c", "d"]
    assert _decode_png((folder / "sprite.png").read_bytes()).shape == (4, 4, 3)
    config = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(), ProjectorConfig())
    (info,) = config.embeddings
    assert info.tensor_path == "00007/words/tensors.tsv" and info.metadata_path == "00007/words/metadata.tsv"
    assert list(info.sprite.single_image_dim) == [2, 2]


def test_encode_png_rejects_what_it_cannot_write():
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((2, 2, 3), np.float32))


def test_default_log_dir_is_under_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_exp") as w:
        w.add_scalar("x", 1.0)
        assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_exp")
    assert glob.glob(str(tmp_path / "runs" / "*_exp" / "events.out.tfevents.*"))


@pytest.mark.torch
def test_same_calls_read_back_the_same_as_pytorchs_writer(tmp_path):
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    values = np.random.default_rng(2).normal(size=200).astype(np.float32)
    image = np.random.default_rng(3).random((3, 4, 6), dtype=np.float32)
    for kind, writer_cls, tensor in (("ember", SummaryWriter, ea.from_numpy), ("torch", TorchWriter, torch.from_numpy)):
        with writer_cls(str(tmp_path / kind)) as w:
            w.add_scalar("s", tensor(np.array(0.25, np.float32)), global_step=4)
            w.add_histogram("h", tensor(values), global_step=1)
            w.add_image("i", tensor(image), global_step=0)
            w.add_text("t", "hello", global_step=0)
    ours, theirs = _read(tmp_path / "ember"), _read(tmp_path / "torch")
    assert (ours.Scalars("s")[0].step, ours.Scalars("s")[0].value) == (4, theirs.Scalars("s")[0].value)
    h_ours, h_theirs = ours.Histograms("h")[0].histogram_value, theirs.Histograms("h")[0].histogram_value
    assert (h_ours.num, h_ours.min, h_ours.max) == (h_theirs.num, h_theirs.min, h_theirs.max)
    assert h_ours.sum == pytest.approx(h_theirs.sum, rel=1e-5)
    assert sum(h_ours.bucket) == sum(h_theirs.bucket)
    i_ours, i_theirs = ours.Images("i")[0], theirs.Images("i")[0]
    assert (i_ours.height, i_ours.width) == (i_theirs.height, i_theirs.width)
    from PIL import Image

    theirs_pixels = np.asarray(Image.open(io.BytesIO(i_theirs.encoded_image_string)))
    assert np.abs(_decode_png(i_ours.encoded_image_string).astype(int) - theirs_pixels.astype(int)).max() <= 1
    assert ours.Tensors("t/text_summary")[0].tensor_proto.string_val == \
        theirs.Tensors("t/text_summary")[0].tensor_proto.string_val
