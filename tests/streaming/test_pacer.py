import threading
import time
from datetime import timedelta

import pytest

from streaming.pacer import Pacer


def test_each_frame_is_stamped_at_its_place_on_the_wall_clock_from_the_anchor():
    pacer = Pacer(fps=24)
    pacer.anchor()
    opening = pacer.program_date_time()
    for _ in range(48):
        pacer.count_frame()
    assert pacer.program_date_time() - opening == timedelta(seconds=2)


def test_frames_ahead_of_the_wall_clock_wait_for_it():
    pacer = Pacer(fps=24)
    pacer.anchor()
    for _ in range(12):
        pacer.count_frame()
    started = time.monotonic()
    pacer.wait(threading.Event())
    assert time.monotonic() - started == pytest.approx(0.5, abs=0.1)


def test_an_unpaced_stream_never_waits():
    pacer = Pacer(fps=24, paced=False)
    pacer.anchor()
    for _ in range(240):
        pacer.count_frame()
    started = time.monotonic()
    pacer.wait(threading.Event())
    assert time.monotonic() - started < 0.05
