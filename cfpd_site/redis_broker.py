"""kombu's Redis transport with a channel that can close after Redis went away.

When Redis stops, the worker's consumer closes its channel to reconnect; kombu 5.7's
Redis channel first lets go of its connection pools, then (in the virtual channel's
close) tries to give back the messages it held unacknowledged, which needs a new pool
from a connection already released: AttributeError ('NoneType' object has no attribute
'hostname'), which Celery reports as an "Unrecoverable error" and the worker exits. Every
worker died with a 20 s Redis outage (issue 32). Here that close ends as the virtual
channel's would (its cycle closed, the channel removed from the connection); the
messages it held stay in Redis's unacknowledged set, given back to the queue after the
visibility timeout, and their units are sent again by the workers' watchers meanwhile
(a unit is claimed once: a second message for it asks nothing twice).
"""

from kombu.transport import redis, virtual


class QoS(redis.QoS):
    """Acknowledging (or giving back) a message of a channel already closed needs a pool
    from its released connection: the same AttributeError, from a task that ends after
    the consumer reconnected. The message is moot there (see above)."""

    def ack(self, delivery_tag):
        try:
            super().ack(delivery_tag)
        except AttributeError:
            virtual.QoS.ack(self, delivery_tag)  # this process's bookkeeping only

    def reject(self, delivery_tag, requeue=False):
        try:
            super().reject(delivery_tag, requeue=requeue)
        except AttributeError:
            virtual.QoS.ack(self, delivery_tag)

    def restore_unacked(self, client=None):
        try:
            return super().restore_unacked(client)
        except AttributeError:
            return None


class Channel(redis.Channel):
    QoS = QoS

    def close(self):
        try:
            super().close()
        except AttributeError:
            self.closed = True
            cycle = getattr(self, "_cycle", None)
            if cycle is not None:
                cycle.close()
                self._cycle = None
            if self.connection is not None:
                self.connection.close_channel(self)
            self.exchange_types = None


class Transport(redis.Transport):
    Channel = Channel
