"""The benchmark's entry points run and report what they promise (a smoke test, not a timing)."""

from __future__ import annotations

from ember.data import bench


def test_run_returns_throughput_and_receive_times():
    res = bench.run(batch_size=8, num_workers=(0, 1), num_batches=4, epochs=1, image_shape=(3, 8, 8),
                    compare_torch=False)
    assert res["config"] == {"batch_size": 8, "num_batches": 4, "epochs": 1, "image_shape": [3, 8, 8]}
    assert res["torch"] is None
    assert res["ember"][0]["batches_per_s"] > 0 and res["ember"][0]["receive_ms"] is None
    assert res["ember"][1]["batches_per_s"] > 0 and res["ember"][1]["receive_ms"] > 0


def test_synthetic_images_transform():
    ds = bench.SyntheticImages(2, (3, 4, 4))
    img, label = ds[1]
    expected = ((ds.images[1].astype("float32") / 255.0 - 0.5) / 0.25)[..., ::-1]
    assert img.dtype == "float32" and (img == expected).all() and 0 <= label < 10


def test_main_prints_a_table(capsys):
    bench.main(["--batch-size", "4", "--num-batches", "3", "--epochs", "1", "--workers", "0", "--no-torch"])
    out = capsys.readouterr().out
    assert "batches/s" in out and "ember" in out
