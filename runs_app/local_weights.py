"""Which workers take the bundled local models' units (issue 42: the local models run on
whichever worker has their weights).

The engine sends a bundled model's units to a queue of their own, `LOCAL_QUEUE`
(`queueing`); every other message goes to Celery's default queue. A worker decides once,
at its start (`tasks.subscribe_to_local_units`), whether it consumes that queue too:
`CFPD_LOCAL_WEIGHTS` "1" yes, "0" no, "auto" (the default with Redis) when every bundled
model can be loaded here — its converted weights in `CFPD_MODELS_DIR`, or its weights
package installed to convert them (`gateway.local_models.check_ready`, nothing loaded). A
worker without them never takes a local unit; the embedded default (no Redis, one worker)
takes them always, as before. A worker started with `--queues cfpd-local` consumes only them.
"""

from __future__ import annotations

import logging

from django.conf import settings

from gateway import local_models

LOCAL_QUEUE = "cfpd-local"
YES = {"1", "yes", "true", "on"}
NO = {"0", "no", "false", "off"}


def holds_local_weights(setting: str | None = None, models_dir=None) -> tuple[bool, str]:
    """(whether this worker takes the local models' units, why), from `setting`
    (CFPD_LOCAL_WEIGHTS by default) and the weights found in `models_dir`."""
    setting = (settings.CFPD_LOCAL_WEIGHTS if setting is None else setting).strip().lower()
    if setting in YES:
        return True, f"CFPD_LOCAL_WEIGHTS={setting}"
    if setting in NO:
        return False, f"CFPD_LOCAL_WEIGHTS={setting}"
    models_dir = settings.CFPD_MODELS_DIR if models_dir is None else models_dir
    for bundled in local_models.BUNDLED:
        try:
            local_models.check_ready(bundled.alias, models_dir)
        except local_models.LocalModelError as exc:
            return False, f"no weights for {bundled.name}: {exc}"
    return True, "the bundled models' weights are here"


def subscribe(consumer_queues, hostname: str = "") -> bool:
    """Add `LOCAL_QUEUE` to a starting worker's queues (Celery's `app.amqp.queues`) when it
    holds the weights; say which in its log. True when it takes the local units. (A queue
    this process learns of later, by sending to it, is not consumed: Celery keeps the
    queues to consume apart from those it knows, even with no --queues given.)"""
    takes, why = holds_local_weights()
    log = logging.getLogger(__name__)
    if takes:
        consumer_queues.select_add(LOCAL_QUEUE)
        log.warning("%s takes the local models' units (queue %s): %s", hostname or "this worker", LOCAL_QUEUE, why)
    else:
        log.warning("%s does not take the local models' units (queue %s): %s", hostname or "this worker",
                    LOCAL_QUEUE, why)
    return takes
