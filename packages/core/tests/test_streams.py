"""torch.Stream / torch.Event (ember.core.streams): on the CPU an idle stream and events that cannot be
recorded, as PyTorch's; on CUDA (simulator) they wrap ember.core.cuda's stream and event."""

import pytest

import ember.core as E
from ember.core.streams import Event, Stream


def test_cpu_stream_is_idle_and_synchronizes_at_once():
    s = Stream("cpu")
    assert (s.device_type, s.device_index, s.stream_id, s.device) == ("cpu", -1, 0, E.device("cpu"))
    assert s.query() and s.synchronize() is None and s.wait_event(Event("cpu")) is None
    assert s == Stream("cpu") and hash(s) == hash(Stream("cpu"))
    with s:
        assert E.ones(2).sum().item() == 2.0
    assert repr(s) == "torch.Stream device_type=cpu, device_index=-1, stream_id=0"


def test_cpu_events_cannot_be_recorded_as_in_pytorch():
    e = Event("cpu")
    assert e.query() and e.wait() is None and e.synchronize() is None
    for call in (e.record, Stream("cpu").record_event, lambda: Stream("cpu").wait_stream(Stream("cpu"))):
        with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
            call()
    with pytest.raises(ValueError, match="enable_timing=True"):
        e.elapsed_time(Event("cpu"))


@pytest.mark.torch
def test_cpu_behaviour_matches_pytorch():
    torch = pytest.importorskip("torch")
    s, e = torch.Stream(device="cpu"), torch.Event(device="cpu")
    assert repr(Stream("cpu")) == repr(s) and s.query() == Stream("cpu").query() and e.query() == Event("cpu").query()
    with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
        e.record()


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
def test_cuda_stream_orders_work_and_records_events():
    s = Stream("cuda")
    assert s.device_type == "cuda" and s.device == E.device("cuda", 0)
    with s:
        x = E.ones(3, device="cuda") * 2
    e = s.record_event()
    e.synchronize()
    assert e.query() and x.cpu().tolist() == [2.0, 2.0, 2.0]
    Stream("cuda").wait_event(e)
    a, b = Event("cuda", enable_timing=True), Event("cuda", enable_timing=True)
    a.record(s)
    b.record(s)
    b.synchronize()
    assert a.elapsed_time(b) >= 0
