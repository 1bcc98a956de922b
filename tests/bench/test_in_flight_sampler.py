"""bench/fanout_baselines.py's InFlightSampler: the means of the fake server's requests in
flight and of the slots held, over the samples from the first to the last busy one."""

import json
import threading
import urllib.request

from bench.fanout_baselines import InFlightSampler
from tests.fakes.fake_openai import FakeOpenAI


def test_the_means_are_over_the_busy_window_only():
    sampler = InFlightSampler("http://unused/v1", slots=lambda: 0)
    # idle, busy 3 (10 slots), a gap of 0 (12), busy 5 (14), idle: the window is the middle three
    sampler.samples = [(0, 0), (3, 10), (0, 12), (5, 14), (0, 0)]
    assert sampler.means() == {"server_in_flight_mean": 2.7, "slots_held_mean": 12.0}  # 8 / 3, 36 / 3
    sampler.samples = [(0, 0), (0, 3)]
    assert sampler.means() == {}  # nothing was ever in flight
    without_slots = InFlightSampler("http://unused/v1")
    without_slots.samples = [(4, None), (2, None)]
    assert without_slots.means() == {"server_in_flight_mean": 3.0}


def test_it_samples_a_real_servers_requests_in_flight():
    with FakeOpenAI(latency=0.4) as server:
        body = json.dumps({"model": "fake", "messages": [{"role": "user", "content": "Which? A: x B: y"}]}).encode()

        def ask():
            request = urllib.request.Request(f"{server.base_url}/chat/completions", data=body,
                                             headers={"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=10).read()

        with InFlightSampler(server.base_url, slots=lambda: 3, every=0.02) as sampler:
            callers = [threading.Thread(target=ask) for _ in range(3)]
            for caller in callers:
                caller.start()
            for caller in callers:
                caller.join()
    means = sampler.means()
    # Three requests waited 0.4 s together: most busy samples saw all three.
    assert 2.0 <= means["server_in_flight_mean"] <= 3.0 and means["slots_held_mean"] == 3.0
