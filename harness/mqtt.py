"""The one factory of bare MQTT clients for tests, benchmarks and the harness: flooders, attackers, probes, readers
that speak MQTT themselves rather than through the project's :class:`client.shell.transport.Link`.

Every such client talks to a relay on 127.0.0.1 (the network rules of the test suite), with ``TCP_NODELAY`` as the
project's own clients (a small publish leaves at once), MQTT 3.1.1 (what both relays speak to players) unless told
otherwise, and a bounded timeout, so that no caller forgets one of them.
"""

from __future__ import annotations

from typing import Any

import aiomqtt

from client.shell.transport import NODELAY

HOST = "127.0.0.1"
TIMEOUT = 5.0
"""Seconds an MQTT request of a bare client may take (connect, subscribe, a QoS 1 publish) before it fails."""


def bare_client(port: int, *, timeout: float = TIMEOUT, **options: Any) -> aiomqtt.Client:
    """A client of the relay at 127.0.0.1:``port``; ``options`` as :class:`aiomqtt.Client` takes them (``username``,
    ``password``, ``bind_address``, ``identifier``, ``tls_context``, ``protocol``, ``keepalive``…)."""
    options.setdefault("protocol", aiomqtt.ProtocolVersion.V311)
    return aiomqtt.Client(HOST, port, socket_options=NODELAY, timeout=timeout, **options)
