"""The settings file (``config.toml``: the relays a game goes through when none is named) and ``olixono relays``,
which says which relays a game would go through, from where, and whether each answers."""

from __future__ import annotations

import pytest
from cli_helpers import home, run

from client.shell.settings import SettingsError, load_settings, settings_path
from relay.mosquitto import free_port


def write_settings(env: dict[str, str], text: str) -> None:
    path = settings_path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('relays = "mqtt://a.example"', "relays is a list of relay URLs in quotes"),
        ("relays = [1, 2]", "relays is a list of relay URLs in quotes"),
        ('relays = [""]', "relays is a list of relay URLs in quotes"),
        ('relay = ["mqtt://a.example"]', "has relay, which olixono does not know"),
        ("relays = [", "is not TOML"),
        (b"\xff\xfe".decode("latin-1"), "is not TOML"),
    ],
)
def test_a_wrong_settings_file_is_an_error_that_says_where_and_what(tmp_path, text, problem):
    env, _ = home(tmp_path, "p")
    write_settings(env, text)
    with pytest.raises(SettingsError, match=problem) as caught:
        load_settings(env)
    assert str(settings_path(env)) in str(caught.value)


def test_no_settings_file_is_no_settings_and_the_relays_come_in_their_order(tmp_path):
    env, _ = home(tmp_path, "p")
    assert load_settings(env).relays == ()
    write_settings(env, '# mine\nrelays = ["mqtts://relay.example.org", "public"]\n')
    assert load_settings(env).relays == ("mqtts://relay.example.org", "public")


async def test_olixono_relays_says_which_relays_from_where_and_whether_each_answers(tmp_path, relay):
    """The default; the settings file's list (``public`` expanded, each with TLS); ``OLIXONO_RELAY`` over it;
    ``--relay`` over both; ``--check`` asks each relay (a live one answers, a dead port does not: exit 1); a wrong
    settings file stops every command that would read it, with the file named; ``--public`` shows the kept list."""
    env, _ = home(tmp_path, "p")
    code, out, err = await run(env, "relays")
    assert code == 0 and "none named: the default" in out and "R1  mqtt://127.0.0.1:1883  no TLS" in out, err
    write_settings(env, 'relays = ["mqtt://club.example:1884", "public"]')
    code, out, _ = await run(env, "relays")
    assert code == 0 and f"from {settings_path(env)}" in out
    assert "R1  mqtt://club.example:1884  no TLS" in out and "R2  mqtts://test.mosquitto.org:8886  TLS" in out
    assert "R4  mqtts://broker.hivemq.com:8883  TLS" in out
    dead = f"mqtt://127.0.0.1:{free_port()}"
    code, out, _ = await run(dict(env, OLIXONO_RELAY=f"{relay.url} {dead}"), "relays", "--check", "--timeout", "3")
    assert code == 1 and "from $OLIXONO_RELAY" in out
    assert f"R1  {relay.url}  no TLS  answers" in out and f"R2  {dead}  no TLS  does not answer: nothing answers" in out
    code, out, _ = await run(env, "relays", "--relay", relay.url, "--check")
    assert code == 0 and "from --relay" in out and "answers" in out and "club.example" not in out
    write_settings(env, "relays = [")
    for command in (["relays"], ["games"], ["watch", "A" * 22]):
        code, out, err = await run(env, *command, timeout=30)
        assert code != 0 and f"the settings file {settings_path(env)} is not TOML" in err, (command, out, err)
    code, out, _ = await run(env, "relays", "--public")
    assert code == 0 and "mqtts://broker.emqx.io:8883" in out and "limits:" in out and "signed and chained" in out


async def test_a_host_on_the_public_brokers_prints_a_join_command_that_says_public():
    from client.cores.relays import PUBLIC_BROKERS
    from client.flows.network import join_command
    from client.shell.transport import RelayAddress

    addresses = [RelayAddress.parse(broker.url) for broker in PUBLIC_BROKERS]
    assert join_command("G" * 22, addresses, False) == f"olixono join {'G' * 22} --relay public"
    mine = RelayAddress.parse("mqtt://club.example")
    assert join_command("G" * 22, [mine, *addresses], False).endswith("--relay mqtt://club.example:1883 --relay public")


async def test_the_readmes_remote_play_through_the_public_brokers(tmp_path):
    """README, "Two homes": ``olixono host oxono --relay public`` prints ``olixono join GAME --relay public``, which
    the guest types, and they play to the end; here ``public`` stands, by ``OLIXONO_PUBLIC_RELAYS``, for two relays
    of this machine (the suite reaches no other), an embedded one and Mosquitto. The settings file's
    ``relays = ["public"]`` then plays the same way with no --relay at all, and ``olixono relays`` says so."""
    from cli_helpers import finish, read_until, spawn, stop, transcript
    from relay_fixtures import Relay

    from protocol import verify_transcript

    relays = [Relay("embedded", tmp_path / "a"), Relay("mosquitto", tmp_path / "b")]
    for relay in relays:
        relay.workdir.mkdir()
        await relay.start()
    public = " ".join(relay.url for relay in relays)
    host_env, guest_env = (dict(home(tmp_path, name)[0], OLIXONO_PUBLIC_RELAYS=public) for name in ("host", "guest"))
    write_settings(guest_env, 'relays = ["public"]')
    host = guest = None
    try:
        code, out, _ = await run(guest_env, "relays", "--check")
        assert code == 0 and f"R1  {relays[0].url}  no TLS  answers" in out and f"R2  {relays[1].url}" in out
        host = await spawn(host_env, "host", "oxono", "--relay", "public", "--bot", "random", "--seed", "1")
        host_lines: list[str] = []
        said = await read_until(host, r"olixono join (\S{22})( --relay \S+)*", host_lines)
        game = said.group(1)
        assert said.group(0) == f"olixono join {game} --relay public"
        guest = await spawn(guest_env, "join", game, "--bot", "random", "--seed", "2")  # the settings file's relays
        guest_lines: list[str] = []
        assert await finish(guest, guest_lines) == 0, "\n".join(guest_lines)
        assert await finish(host, host_lines) == 0, "\n".join(host_lines)
    finally:
        for process in (host, guest):
            await stop(process)
        for relay in relays:
            await relay.stop()
    lines = transcript(host_env, game)
    assert lines == transcript(guest_env, game)
    session, _, problem = verify_transcript(lines)
    assert problem is None and session.result is not None
