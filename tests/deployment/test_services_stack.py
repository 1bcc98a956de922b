"""The real services the stack runs on: a message through the configured Celery broker
(Redis when REDIS_URL is set, the embedded file broker otherwise)."""

import uuid

import pytest
from kombu import Connection, Exchange, Queue

from cfpd_site.celery import app


@pytest.mark.both_passes(reason="the broker is the pass's own: the file broker, then Redis")
def test_a_message_goes_through_the_configured_broker_and_back():
    name = f"cfpd-test-{uuid.uuid4().hex[:8]}"
    exchange = Exchange(name, type="direct")
    queue = Queue(name, exchange, routing_key=name, auto_delete=True)
    with Connection(app.conf.broker_url, transport_options=app.conf.broker_transport_options) as connection:
        connection.ensure_connection(max_retries=2)
        producer = connection.Producer(serializer="json")
        producer.publish({"ping": name}, exchange=exchange, routing_key=name, declare=[queue])
        simple = connection.SimpleQueue(queue)
        message = simple.get(block=True, timeout=5)
        message.ack()
        simple.close()
    assert message.payload == {"ping": name}
