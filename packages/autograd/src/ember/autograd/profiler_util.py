"""`torch.autograd.profiler_util`: the event classes a profile's results are made of (`EventList`,
`FunctionEvent`, `FunctionEventAvg`), for code that imports them from there."""

from ember.autograd.profiler import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]
