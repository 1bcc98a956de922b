"""The model libraries (transformers, bert-score, torch) imported and models loaded one
thread at a time per process (pure: no Django).

The worker runs its tasks in threads, and transformers 5 is not safe to import from two at
once: a thread asking for a name (`from transformers import AutoConfig`) while another runs
the package's `__init__` gets ImportError "cannot import name 'AutoConfig'", and two threads
importing bert-score's modules can stop each other (Python's `_DeadlockError`). The demo's
worker, asked for the validation page's presets at once, reported the bundled encoder "not
available on this machine" (issue 38). Every loader of a model or an encoder
(gateway.local_runtime, crisis_app.bertscore_scorer) runs under `loading`: the libraries'
first imports happen in one thread, and a load (seconds, on every core) never competes with
another; calls on a loaded model are not held."""

from __future__ import annotations

import functools
import threading

# Re-entrant: a loader may call another (an encoder's self-check reads its class).
LOADING = threading.RLock()


def loading(function):
    """`function` run under LOADING."""

    @functools.wraps(function)
    def one_at_a_time(*args, **kwargs):
        with LOADING:
            return function(*args, **kwargs)

    return one_at_a_time
