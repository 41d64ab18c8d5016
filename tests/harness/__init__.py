"""PTF-style packet-test harness: switches on veth pairs in a network namespace the tests create,
driven over P4Runtime by the PyPI `p4runtime` bindings, with scapy packets sent and verified on the
test side of every veth pair."""
