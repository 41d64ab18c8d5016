"""`make mn-cli` as a user drives it: mininet/demo.py --cli starts the fabric, prints how to reach the
REST API and the dashboard from another terminal, and leaves the Mininet CLI running. The hints are
run here exactly as printed (bash, from this process's network namespace, where the demo opened its
forwarded port: the demo itself moves into a private one); host commands, `nodes` and `net` print
their output; nothing printed carries an escape code. Root and Mininet, like the end-to-end suite.

The demo runs as `sudo make mn-cli` runs it, SUDO_USER set: its hints read the credentials file with
`sudo cat`, and they are run as printed (as root, with Debian's sudo); the hints of a root shell (no
SUDO_USER), built by the same function, are run too.

The CLI reads from a pipe here, not a terminal: each command is sent once the prompt is back, as a
user types (Mininet hands whatever waits on its input to a running host command)."""
import json
import os
import pathlib
import re
import select
import signal
import shutil
import subprocess
import sys
import time
import types
import urllib.request

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "mininet"))
import demo  # noqa: E402

PROMPT = "mininet> "
SRV1_VIA_POOL6 = "2001:db8:64::c633:640a"      # 198.51.100.10 in the demo's pool6
SUDO_USER = "nobody"            # sudo sets it to the user who ran sudo; only its presence counts


class Cli:
    """The demo under --cli, its output (stdout and stderr) read as it comes."""

    def __init__(self):
        env = dict(os.environ, SUDO_USER=SUDO_USER)
        env["TERM"] = "xterm-256color"          # as in a terminal: nothing may come out as escape codes
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "mininet" / "demo.py"), "--cli"], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.everything = ""

    def until_prompt(self, timeout):
        """What the demo printed until its next prompt."""
        out, deadline = b"", time.time() + timeout
        while not out.endswith(PROMPT.encode()):
            left = deadline - time.time()
            if left <= 0 or self.proc.poll() is not None:
                self.everything += out.decode(errors="replace")
                raise AssertionError(f"no prompt (exit {self.proc.poll()}); printed:\n{self.everything[-4000:]}")
            if select.select([self.proc.stdout], [], [], min(left, 1))[0]:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                out += chunk
        text = out.decode()
        self.everything += text
        return text[:-len(PROMPT)]

    def command(self, line, timeout=60):
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        return self.until_prompt(timeout)

    def exit(self):
        self.proc.stdin.write(b"exit\n")
        self.proc.stdin.close()
        self.everything += self.proc.stdout.read().decode()
        return self.proc.wait(timeout=120)

    def kill(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def cli():
    if os.geteuid() != 0:
        pytest.fail("the demo needs root (Mininet): run make test as root")
    c = Cli()
    try:
        c.banner = c.until_prompt(timeout=240)
        yield c
    finally:
        c.kill()


def printed(banner, pattern):
    found = re.search(pattern, banner, re.M)
    assert found, f"{pattern!r} not in:\n{banner}"
    return found


def api_port_and_credentials(banner):
    """The API's address and forwarded port, and the credentials file, as the banner names them."""
    url = printed(banner, r"^REST API from any terminal of this machine: (http://127\.0\.0\.1:(\d+)/onos/nat64fabric)/$")
    credentials = printed(banner, r"^dashboard: .* the line USER:PASSWORD in (/\S+)\)$")
    return url.group(1), int(url.group(2)), credentials.group(1)


def run_hints(curl, nat64ctl):
    """Runs the curl and nat64ctl hints through bash, as a user pastes them, from this process's namespace."""
    out = subprocess.run(["bash", "-c", curl], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    devices = json.loads(out.stdout)["devices"]
    assert sorted(d["id"] for d in devices) == ["device:border1", "device:border2", "device:leaf1", "device:leaf2"]
    assert all(d["connected"] for d in devices)
    out = subprocess.run(["bash", "-c", nat64ctl.replace(" sessions", " devices")], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:4] == ["id", "role", "connected", "entries"], out.stdout


def test_under_sudo_the_rest_hints_read_the_credentials_with_sudo_and_work_as_printed(cli):
    if not shutil.which("sudo"):
        pytest.fail("sudo is missing: `make deps` installs it (the hints printed under sudo run it)")
    url, _, credentials = api_port_and_credentials(cli.banner)
    curl = printed(cli.banner, r"^  (curl .*)$").group(1)
    nat64ctl = printed(cli.banner, r"^  (\S*/bin/nat64ctl .* sessions)$").group(1)
    assert curl == f'curl -s -u "$(sudo cat {credentials})" {url}/devices'
    assert nat64ctl == f'{ROOT}/bin/nat64ctl --url {url} --user "$(sudo cat {credentials})" sessions'
    run_hints(curl, nat64ctl)


def test_in_a_root_shell_the_rest_hints_read_the_credentials_file_and_work(cli, monkeypatch):
    url, port, credentials = api_port_and_credentials(cli.banner)
    monkeypatch.delenv("SUDO_USER", raising=False)
    hints = demo.how_to_reach(types.SimpleNamespace(credentials=pathlib.Path(credentials)), port)
    curl = printed(hints, r"^  (curl .*)$").group(1)
    nat64ctl = printed(hints, r"^  (\S*/bin/nat64ctl .* sessions)$").group(1)
    assert curl == f'curl -s -u "$(cat {credentials})" {url}/devices'
    assert nat64ctl == f'{ROOT}/bin/nat64ctl --url {url} --user "$(cat {credentials})" sessions'
    run_hints(curl, nat64ctl)


def test_the_dashboard_url_is_printed_and_served(cli):
    url = printed(cli.banner, r"^dashboard: (http://127\.0\.0\.1:\d+/dashboard/) ").group(1)
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/html")
        assert b"app.js" in r.read()


def test_host_commands_print_their_output(cli):
    out = cli.command(f"h1 ping -6 -c 2 -i 0.3 -W 3 {SRV1_VIA_POOL6}")
    assert f"PING {SRV1_VIA_POOL6}" in out and "2 packets transmitted" in out, out
    out = cli.command("nodes")
    assert "available nodes are:" in out and {"h1", "h2", "e1", "srv1", "srv2", "leaf1", "border2"} <= set(out.split())
    out = cli.command("net")
    assert re.search(r"^h1 h1-eth0:leaf1-eth1$", out, re.M), out
    out = cli.command("srv1 echo said on the server")
    assert out.strip() == "said on the server"


def test_nothing_printed_has_escape_codes_and_exit_tears_down(cli):
    assert cli.exit() == 0, cli.everything[-3000:]
    assert "\x1b" not in cli.everything, [line for line in cli.everything.splitlines() if "\x1b" in line]
