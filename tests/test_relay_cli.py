"""``olixono relay`` as a user runs it: accounts, the relay process and its signals, Mosquitto's configuration."""

from __future__ import annotations

import asyncio
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import aiomqtt
import pytest
from relay_fixtures import needs_mosquitto

from harness.mqtt import bare_client
from protocol import Identity
from relay import rules, users
from relay.mosquitto import (
    MAX_QUEUED_MESSAGES,
    MosquittoProcess,
    MosquittoSettings,
    free_port,
    listening,
    write_config,
)

ROOT = Path(__file__).resolve().parents[1]


def relay_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "relay", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_adduser_makes_a_token_shown_once_and_keeps_only_a_fast_hash(tmp_path):
    users_file = tmp_path / "users"
    key = Identity.generate().public.text
    done = relay_cli("adduser", key, "--users", str(users_file))
    assert done.returncode == 0, done.stderr
    found = re.search(r"^password: (\S+)$", done.stdout, re.M)
    assert found is not None, done.stdout
    token = found.group(1)
    assert len(token) == 32
    text = users_file.read_text()
    assert token not in text and re.fullmatch(rf"{key}:\$6\$[^$]+\$[^$]+\n", text)
    assert oct(users_file.stat().st_mode & 0o777) == "0o600"
    assert users.load(users_file)[key].verify(token) and not users.load(users_file)[key].verify(token[:-1])
    done = relay_cli("adduser", key, "--users", str(users_file), "--password-stdin", stdin="a" * 24 + "\n")
    assert done.returncode == 0 and "password:" not in done.stdout  # given, so not shown
    assert users.load(users_file)[key].verify("a" * 24)
    short = relay_cli("adduser", key, "--users", str(users_file), "--password-stdin", stdin="correct horse\n")
    assert short.returncode == 2 and "at least 20 characters" in short.stderr
    assert relay_cli("adduser", "not-a-key", "--users", str(users_file)).returncode == 2
    assert relay_cli("deluser", key, "--users", str(users_file)).returncode == 0
    assert users.load(users_file) == {}
    assert relay_cli("deluser", key, "--users", str(users_file)).returncode == 1


as_root = pytest.mark.skipif(os.getuid() != 0, reason="changes file owners: needs root (CI runs as root)")


@as_root
def test_older_pbkdf2_accounts_still_work_and_adduser_keeps_the_files_owner_and_mode(tmp_path):
    users_file = tmp_path / "users"
    old_key, new_key = Identity.generate().public.text, Identity.generate().public.text
    users.save(users_file, {old_key: users.PasswordHash.make("chosen by a person", 1000)})
    os.chmod(users_file, 0o640)
    os.chown(users_file, 4242, 4343)  # as if owned by the relay's own user (these tests run as root)
    assert relay_cli("adduser", new_key, "--users", str(users_file)).returncode == 0
    status = users_file.stat()
    assert (status.st_uid, status.st_gid, oct(status.st_mode & 0o777)) == (4242, 4343, "0o640")
    loaded = users.load(users_file)
    assert loaded[old_key].slow and loaded[old_key].verify("chosen by a person") and not loaded[new_key].slow
    with pytest.raises(users.UsersFileError):
        users.PasswordHash.parse("$6$AAAA$AAAA")  # a digest that is not 64 bytes


def test_account_names_are_keys_or_bridges():
    key = Identity.generate().public.text
    assert rules.is_key_text(key) and not rules.is_bridge_name(key)
    assert rules.is_bridge_name("bridge.club-2")
    for bad in ("alice", key[:-1], key + "A", key[:-1] + "/", "bridge.", "bridge.a/b", "bridge.+"):
        with pytest.raises(ValueError):
            rules.check_account_name(bad)
    # a text of 43 characters whose unused low bits are set is not the canonical text of any key
    assert not rules.is_key_text(key[:-1] + "B")  # "B" sets one of the two unused low bits


def test_topic_rules():
    u, v = Identity.generate().public.text, Identity.generate().public.text
    games = "olixono/1/games/" + "G" * 22
    assert rules.may_publish(u, f"{games}/{u}/7", private=True)
    assert not rules.may_publish(v, f"{games}/{u}/7", private=True)
    assert not rules.may_publish(None, f"{games}/{u}/7", private=True)
    assert not rules.may_publish(u, f"olixono/1/games/+/{u}/7", private=True)
    assert not rules.may_publish(u, "olixono/1/lobby", private=True)
    assert rules.may_publish("bridge.x", f"{games}/{u}/7", private=True)
    assert rules.may_publish(None, "olixono/1/anything", private=False)
    assert not rules.may_publish(None, "other/topic", private=False)
    assert rules.may_subscribe(u, "olixono/1/games/#", private=True)
    assert rules.may_subscribe(u, f"{games}/#", private=True)
    for bad in ("#", "olixono/#", "olixono/1/#", "olixono/+/games/#", "+/1/games/#"):
        assert not rules.may_subscribe(u, bad, private=True), bad
    assert rules.may_subscribe(None, "olixono/1/#", private=False)
    assert not rules.may_subscribe(None, "olixono/#", private=False)
    for private in (False, True):  # where the relay says its page is: its own word, read by all
        assert not rules.may_publish(u, "olixono/1/page", private=private)
        assert not rules.may_publish("bridge.x", "olixono/1/page", private=private)
        assert rules.may_subscribe(u, "olixono/1/page", private=private)


def test_relay_process_prints_where_it_listens_and_stops_on_sigterm(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "relay", "--port", "0", "--data", str(tmp_path / "data"), "--web", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert process.stdout is not None
    try:
        first = process.stdout.readline()
        match = re.search(r"listening on mqtt://127\.0\.0\.1:(\d+)", first)
        assert match, first
        port = int(match.group(1))
        told = [process.stdout.readline() for _ in range(6)]
        page_line = next(line for line in told if "the watching page" in line)
        web = re.search(
            r"the watching page: http://127\.0\.0\.1:(\d+)/ \(MQTT over WebSocket at "
            r"ws://127\.0\.0\.1:(\d+)/mqtt\)",
            page_line,
        )
        assert web and web.group(1) == web.group(2), page_line

        async def talk() -> None:
            async with bare_client(port, timeout=5) as client:
                await client.publish("olixono/1/games/x/y/0", b"hi", qos=1, retain=True)
            from test_relay_web import http_get

            status, headers, _ = await http_get(int(web.group(1)), "/__init__.py")  # the page's files only
            assert status == 404 and "default-src 'none'" in headers["content-security-policy"]

        import asyncio

        asyncio.run(talk())
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == 0, err
    assert "relay stopped" in out
    assert "connected 127.0.0.1:" in err  # connections are logged
    assert (tmp_path / "data" / "retained.sqlite3").exists()


def test_relay_refuses_a_missing_users_file(tmp_path):
    done = relay_cli("--port", "0", "--users", str(tmp_path / "nobody"))
    assert done.returncode == 1 and "adduser" in done.stderr


def test_mosquitto_config_writes_a_complete_configuration(tmp_path):
    users_file = tmp_path / "users"
    key = Identity.generate().public.text
    users.add_user(users_file, key)
    users.add_user(users_file, "bridge.north")
    (tmp_path / "bridge-password").write_text("s3cret\n")
    done = relay_cli(
        "mosquitto-config",
        str(tmp_path / "conf"),
        "--users",
        str(users_file),
        "--port",
        "18999",
        "--bridge-to",
        "relay.example:1883",
        "--bridge-user",
        "bridge.south",
        "--bridge-password-file",
        str(tmp_path / "bridge-password"),
    )
    assert done.returncode == 0, done.stderr
    assert "mosquitto -c " in done.stdout
    assert "mosquitto_sub -h 127.0.0.1 -p 18999 -V mqttv311 -u KEY -P PASSWORD -t 'olixono/1/games/#' -v" in done.stdout
    assert "does not contain" not in done.stdout and "no %c or %u" in done.stdout  # the warning, explained
    conf = (tmp_path / "conf" / "mosquitto.conf").read_text()
    for line in (
        "listener 18999 127.0.0.1",
        "set_tcp_nodelay true",
        f"max_queued_messages {MAX_QUEUED_MESSAGES}",
        "persistence true",
        "autosave_on_changes true",
        "allow_anonymous false",
        "max_packet_size 2560",
        "address relay.example:1883",
        "topic olixono/1/games/# both 1",
        "remote_username bridge.south",
        "remote_password s3cret",
        "user mosquitto",
    ):
        assert line in conf.splitlines(), line
    acl = (tmp_path / "conf" / "acl").read_text()
    assert "pattern write olixono/1/games/+/%u/#" in acl and "user bridge.north" in acl
    assert (tmp_path / "conf" / "passwords").read_text() == users_file.read_text()
    assert oct((tmp_path / "conf" / "mosquitto.conf").stat().st_mode & 0o777) == "0o600"  # it holds a password


@pytest.mark.network
@as_root
@needs_mosquitto
def test_the_documented_way_to_add_an_account_to_a_running_mosquitto(tmp_path):
    """docs/relay.md: mosquitto-config, Mosquitto running as its own user, `adduser` run as root on its passwords
    file, `kill -HUP`: the new account logs in, and the accounts made before still do."""
    pwd.getpwnam("mosquitto")  # the Debian package's user
    home = Path(tempfile.mkdtemp(prefix="olixono-mosquitto-"))  # outside pytest's root-only folders
    os.chmod(home, 0o755)
    first, second = Identity.generate().public.text, Identity.generate().public.text
    users_file = home / "users"
    _, first_token = users.add_user(users_file, first)
    port = free_port()
    conf = write_config(home / "conf", MosquittoSettings(port=port, users_file=users_file, run_as="mosquitto"))
    passwords = home / "conf" / "passwords"
    try:
        with MosquittoProcess(conf, port) as relay:
            done = relay_cli("adduser", second, "--users", str(passwords))
            assert done.returncode == 0, done.stderr
            found = re.search(r"^password: (\S+)$", done.stdout, re.M)
            assert found is not None and relay.pid is not None, done.stdout
            second_token = found.group(1)
            os.kill(relay.pid, signal.SIGHUP)

            async def login(name: str, token: str) -> None:
                for attempt in range(50):  # Mosquitto re-reads its files on its next loop, not at once
                    try:
                        async with bare_client(port, username=name, password=token, timeout=5) as client:
                            await client.publish(f"olixono/1/games/{'G' * 22}/{name}/0", b"line", qos=1)
                            return
                    except aiomqtt.MqttCodeError:
                        if attempt == 49:
                            said = relay.log_text()[-2000:]
                            raise AssertionError(f"{name[:8]} was refused; Mosquitto said:\n{said}") from None
                        await asyncio.sleep(0.1)

            asyncio.run(login(second, second_token))
            asyncio.run(login(first, first_token))
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_the_mosquitto_sub_hint_says_how_to_log_in_and_trust_the_certificate():
    from relay.mosquitto import mosquitto_sub_command

    assert mosquitto_sub_command("relay.example", 8883, True, Path("ca.pem")) == (
        "mosquitto_sub -h relay.example -p 8883 -V mqttv311 -u KEY -P PASSWORD --cafile ca.pem "
        "-t 'olixono/1/games/#' -v"
    )
    assert "-u" not in mosquitto_sub_command("127.0.0.1", 1883, False, None)


def test_a_relay_process_that_ends_before_it_listens_is_named_at_once():
    """The wait for a relay to listen ends on the relay's process ending, not on its safety bound."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    try:
        with pytest.raises(
            RuntimeError, match=f"the embedded relay ended with status 3 before it listened on 127.0.0.1:{port}"
        ):
            listening(port, process, "the embedded relay", 600)
    finally:
        process.kill()
        process.wait(10)


def test_a_relay_process_slow_to_listen_is_waited_for():
    """A relay that listens only after a while (a busy machine): the wait ends when it listens."""
    port = free_port()
    slow = (
        "import socket, time\n"
        "time.sleep(1)\n"
        f"server = socket.create_server(('127.0.0.1', {port}))\n"
        "server.accept()\n"  # the wait's own connection; then the process stays until ended
        "time.sleep(600)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", slow])
    try:
        listening(port, process, "the slow relay", 600)
        assert process.poll() is None
    finally:
        process.kill()
        process.wait(10)
