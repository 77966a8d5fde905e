"""The settings file, ``config.toml`` in the olixono config folder (``~/.config/olixono/config.toml``): what a player
sets once rather than at every command. Today one setting, the relays a game goes through when no ``--relay`` and no
``OLIXONO_RELAY`` names any::

    relays = ["public"]
    relays = ["mqtts://relay.example.org", "mqtt://club.example:1883"]

A missing file is no settings; a file that cannot be read, is not TOML, or holds what olixono does not know is an
error that says where and what (a setting silently ignored would play through relays nobody chose).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from client.shell.identity import config_dir

SETTINGS_FILE = "config.toml"
KNOWN = {"relays"}


class SettingsError(ValueError):
    """The settings file is unreadable or wrong: the message says which file, and what."""


@dataclass(frozen=True)
class Settings:
    path: Path
    relays: tuple[str, ...] = ()
    """The relays (URLs, or ``public``) named by the file, in its order; none when it names none."""


def settings_path(environ: dict[str, str] | None = None) -> Path:
    return config_dir(environ) / SETTINGS_FILE


def load_settings(environ: dict[str, str] | None = None) -> Settings:
    """The settings file's settings (none when there is no file); :class:`SettingsError` when it is wrong."""
    path = settings_path(environ)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read the settings file {path}: {exc}") from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"the settings file {path} is not TOML: {exc}") from None
    unknown = sorted(set(table) - KNOWN)
    if unknown:
        raise SettingsError(
            f"the settings file {path} has {', '.join(unknown)}, which olixono does not know "
            f"(it knows: {', '.join(sorted(KNOWN))})"
        )
    relays = table.get("relays", [])
    if not isinstance(relays, list) or not all(isinstance(relay, str) and relay.strip() for relay in relays):
        raise SettingsError(
            f"the settings file {path}: relays is a list of relay URLs in quotes, such as "
            'relays = ["mqtts://relay.example.org", "public"]'
        )
    return Settings(path, tuple(relay.strip() for relay in relays))
