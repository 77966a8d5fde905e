"""The identity file: XDG location, owner-only permissions, refusal of unsafe or damaged files; ``olixono id``."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from client.shell.identity import HEADER, IdentityError, config_dir, get_identity, load_identity


def test_config_dir_follows_xdg(tmp_path):
    assert config_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "olixono"
    assert config_dir({"XDG_CONFIG_HOME": "relative/path"}).parts[-2:] == (".config", "olixono")
    assert config_dir({}).parts[-2:] == (".config", "olixono")


def test_created_once_with_owner_only_permissions(tmp_path):
    path = tmp_path / "cfg" / "olixono" / "identity"
    first, created = get_identity(path)
    assert created
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again, created = get_identity(path)
    assert not created and again.public == first.public
    assert path.read_text().startswith(HEADER + " ")


def test_unsafe_permissions_are_refused(tmp_path):
    path = tmp_path / "identity"
    get_identity(path)
    os.chmod(path, 0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_identity(path)


@pytest.mark.parametrize("content", ["", "hello", f"{HEADER} short", f"ssh-ed25519 {'A' * 43}"])
def test_damaged_files_are_refused(tmp_path, content):
    path = tmp_path / "identity"
    path.write_text(content)
    os.chmod(path, 0o600)
    with pytest.raises(IdentityError, match="not an olixono identity file"):
        load_identity(path)


def test_olixono_id_command(tmp_path):
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    first = subprocess.run([sys.executable, "-m", "client", "id"], env=env, capture_output=True, text=True, timeout=60)
    second = subprocess.run([sys.executable, "-m", "client", "id"], env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == second.returncode == 0
    assert "Created a new identity" in first.stdout and "Created" not in second.stdout
    assert first.stdout.splitlines()[-3:] == second.stdout.splitlines()
    assert (tmp_path / "olixono" / "identity").exists()
