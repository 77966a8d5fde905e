"""The olixono wire protocol, sans I/O: signed text lines, and the per-game verified transcript.

``protocol.messages`` is the grammar (one canonical line per message),
``protocol.keys`` the Ed25519 identities, ``protocol.session`` the state
machine that is fed lines and yields events, ``protocol.topics`` the MQTT
topic names. The specification for other implementers is ``PROTOCOL.md``.
"""

from protocol.errors import LocalProtocolError, Rejection, RemoteProtocolError
from protocol.keys import Identity, PublicKey, fingerprint
from protocol.messages import VERSION, Message, decode, encode
from protocol.session import GameSession

__all__ = [
    "VERSION", "GameSession", "Identity", "LocalProtocolError", "Message", "PublicKey",
    "Rejection", "RemoteProtocolError", "decode", "encode", "fingerprint",
]
