"""`torch.profiler`: ember-autograd's profiler (op events from core's dispatch hook, kernel spans,
`key_averages().table()`, Chrome traces, schedules)."""

from ember.autograd.profiler import (
    EventList, FunctionEvent, FunctionEventAvg, ProfilerAction, ProfilerActivity, profile, record_function, schedule,
    tensorboard_trace_handler,
)

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "FunctionEvent", "FunctionEventAvg", "EventList"]
