"""The Mininet switch class: two hosts routed through one P4RuntimeSwitch, programmed over
P4Runtime by the test as a controller would, with real ping and TCP between the hosts."""
import pathlib
import tempfile

import pytest

from harness import ROOT, netns
from harness.p4rt import P4RuntimeClient
from switch_process import SwitchProcess   # mininet/ is on the path (harness/__init__.py)

ROUTER_MAC = "00:00:00:00:0a:01"


@pytest.fixture(scope="module")
def net():
    netns.enter_private_namespace()
    from mininet.net import Mininet
    from mininet.topo import Topo
    from p4switch import P4Host, P4RuntimeSwitch

    class TwoHosts(Topo):
        def build(self):
            s1 = self.addSwitch("s1", cls=P4RuntimeSwitch, device_id=1, log_dir=tempfile.mkdtemp(prefix="nat64fabric-mn-"))
            for n in (1, 2):
                h = self.addHost(f"h{n}", cls=P4Host, ip=f"10.0.{n}.1/24", mac=f"00:00:00:00:00:0{n}")
                self.addLink(h, s1, port2=n)

    network = Mininet(topo=TwoHosts(), controller=None, autoSetMacs=False)
    network.start()
    try:
        yield network
    finally:
        network.stop()


def test_hosts_reach_each_other_through_the_p4_switch(net):
    s1 = net.get("s1")
    assert s1.data_ports() == {1: "s1-eth1", 2: "s1-eth2"}
    p4info, device_config = SwitchProcess({}, target="softswitch").build_pipeline(
        ROOT / "softswitch" / "examples" / "l3_forwarding.p4", tempfile.mkdtemp(prefix="nat64fabric-p4-"))
    client = P4RuntimeClient(f"127.0.0.1:{s1.grpc_port}", s1.device_id)
    try:
        assert client.arbitrate().status.code == 0
        client.set_pipeline(p4info, device_config)
        for n in (1, 2):
            client.write(client.update("INSERT", client.table_entry(
                "L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": (f"10.0.{n}.0", 24)},
                action="L3Ingress.set_next_hop_v4",
                params={"port": n, "src_mac": ROUTER_MAC, "dst_mac": f"00:00:00:00:00:0{n}"})))
        for n in (1, 2):
            h = net.get(f"h{n}")
            h.cmd(f"ip route add default via 10.0.{n}.254")
            h.cmd(f"ip neigh replace 10.0.{n}.254 lladdr {ROUTER_MAC} dev h{n}-eth0")
        h1, h2 = net.get("h1"), net.get("h2")
        ping = h1.cmd("ping -c 3 -i 0.2 -W 2 10.0.2.1")
        assert " 0% packet loss" in ping, ping
        assert "ttl=63" in ping, "one routed hop decrements the TTL"
        # TCP with real checksums, both ways (the switch recomputes the IPv4 header checksum).
        scripts = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-mn-"))
        (scripts / "server.py").write_text(
            "import socket\ns = socket.socket()\ns.bind(('0.0.0.0', 5001))\ns.listen()\n"
            "c, _ = s.accept()\nc.sendall(c.recv(100)[::-1])\n")
        (scripts / "client.py").write_text(
            "import socket, time\nfor i in range(50):\n    try:\n"
            "        c = socket.create_connection(('10.0.2.1', 5001), timeout=2)\n        break\n"
            "    except OSError:\n        time.sleep(0.1)\nc.sendall(b'fabric')\nprint(c.recv(100).decode())\n")
        h2.cmd(f"python3 {scripts / 'server.py'} &")
        reply = h1.cmd(f"python3 {scripts / 'client.py'}")
        assert reply.strip() == "cirbaf", reply
    finally:
        client.close()


def test_the_switches_grpc_ports_are_never_a_connections_local_port_and_a_taken_one_is_skipped(net):
    """A fabric torn down leaves its connections in TIME_WAIT on their local ports; none of those
    may be a port the next fabric's switches count on. Outside a private namespace, where the
    kernel may still hand one out, the next switch skips a port something holds."""
    import socket
    from p4switch import P4RuntimeSwitch
    from switch_process import SWITCH_GRPC_PORTS
    reserved = pathlib.Path("/proc/sys/net/ipv4/ip_local_reserved_ports").read_text().strip()
    assert reserved == f"{SWITCH_GRPC_PORTS.start}-{SWITCH_GRPC_PORTS.stop - 1}"
    listener = socket.create_server(("127.0.0.1", 0))
    clients = []
    try:
        # Unreserved, 200 local ports drawn from 32768-60999 miss 50001-50999 about once in a thousand runs.
        for _ in range(200):
            clients.append(socket.create_connection(listener.getsockname()))
            clients.append(listener.accept()[0])
        assert not [c.getsockname()[1] for c in clients[::2] if c.getsockname()[1] in SWITCH_GRPC_PORTS]
        following = P4RuntimeSwitch.next_grpc_port
        with socket.create_server(("127.0.0.1", following)):
            switch = P4RuntimeSwitch("s9", device_id=9, log_dir=tempfile.mkdtemp(prefix="nat64fabric-mn-"))
            switch.terminate()      # its shell; no switch process was started
        assert switch.grpc_port == following + 1
        assert P4RuntimeSwitch.next_grpc_port == following + 2
    finally:
        for c in clients:
            c.close()
        listener.close()
