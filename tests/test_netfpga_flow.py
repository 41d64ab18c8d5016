"""The NetFPGA SUME build driver (hw/netfpga/flow/sume_flow.py) against recorded tool outputs.

No Xilinx tool runs here: each tool is tests/data/netfpga_flow/fake_tool.py, first on PATH, printing a
recorded log, writing the files the tool would write and exiting as the scenario says; every call is
appended to a trace file, so a test sees which tools ran and in what order.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "hw" / "netfpga" / "flow" / "sume_flow.py"
RECORDED = ROOT / "tests" / "data" / "netfpga_flow"
sys.path.insert(0, str(DRIVER.parent))
import sume_flow  # noqa: E402

SIM = "$P4_PROJECT_DIR/nf_sume_sdnet_ip/SimpleSumeSwitch"
RUNS = "$NF_DESIGN_DIR/hw/project/simple_sume_switch.runs"
TOOLS = ("p4c-sdnet", "sdnet", "vivado", "xsim", "python2", "make")

# What each tool call prints and writes in a good build
GOOD_RUN = {
    "vivado -version": {"log": "vivado-version.log"},
    "python2 -c": {},
    "p4c-sdnet": {"log": "p4c-sdnet-ok.log", "creates": [{"path": "nat64_sume.sdnet"},
                                                          {"path": ".sdnet_switch_info.dat"}]},
    "p4_px_tables.py": {"creates": [{"path": "eamt_v6.tbl"}, {"path": "session_v4.tbl"}]},
    "gen_testdata.py": {"log": "gen_testdata-ok.log", "creates": [
        {"path": f} for f in ("src.pcap", "dst.pcap", "Tuple_in.txt", "Tuple_expect.txt")]},
    "pcap2axi": {"creates": [{"path": "Packet_in.axi"}, {"path": "Packet_expect.axi"}]},
    "sdnet": {"log": "sdnet-ok.log", "creates": [
        {"path": SIM + "/vivado_sim.bash", "executable": True,
         "text": '#!/bin/sh\nexec "$FAKE_PYTHON" "$FAKE_TOOL" vivado_sim.bash "$@"\n'},
        {"path": SIM + "/Testbench/SimpleSumeSwitch_tb.sv"}]},
    "gen_P4_SWITCH_externs.py": {},
    "gen_P4_SWITCH_API.py": {},
    "gen_P4_SWITCH_CLI.py": {"creates": [{"path": "sw/CLI/P4_SWITCH_CLI.py"}]},
    "modify_P4_SWITCH_tb.py": {},
    "vivado_sim.bash": {"log": "vivado_sim-ok.log", "creates": [{"path": "config_writes.txt"}]},
    "gen_config_writes.py": {"creates": [{"path": "testdata/config_writes.py"},
                                         {"path": "testdata/config_writes.sh"}]},
    "make install_sdnet": {"log": "install_sdnet-ok.log", "creates": [
        {"path": "$SUME_FOLDER/lib/hw/contrib/cores/nf_sume_sdnet_ip/ip_proj/component.xml"}]},
    "make sim_switch_default": {"log": "sim_switch_default-ok.log"},
    "nf_test.py": {"log": "nf_test-ok.log"},
    "make simple_sume_switch": {"log": "bitstream-ok.log", "creates": [
        {"path": RUNS + "/synth_1/runme.log", "from": "synth-runme-ok.log"},
        {"path": RUNS + "/impl_1/runme.log", "from": "impl-runme-ok.log"},
        {"path": RUNS + "/impl_1/top_timing_summary_routed.rpt", "from": "top_timing_summary_routed-ok.rpt"},
        {"path": RUNS + "/impl_1/top.bit", "text": "bitstream of the fake Vivado\n"}]},
}
# The calls each step makes, in order
STEP_CALLS = {
    "p4c-sdnet": ["p4c-sdnet"],
    "tables": ["p4_px_tables.py"],
    "testdata": ["gen_testdata.py", "pcap2axi", "pcap2axi"],
    "sdnet": ["sdnet", "gen_P4_SWITCH_externs.py", "gen_P4_SWITCH_API.py", "gen_P4_SWITCH_CLI.py",
              "modify_P4_SWITCH_tb.py"],
    "sdnet-sim": ["vivado_sim.bash"],
    "config-writes": ["gen_config_writes.py"],
    "install-ip": ["make install_sdnet"],
    "sume-sim": ["make sim_switch_default", "nf_test.py"],
    "bitstream": ["make simple_sume_switch"],
}
ALL_CALLS = [c for step in sume_flow.STEP_NAMES for c in STEP_CALLS.get(step, [])]
PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] (\S+) \.\.\. (ok|FAILED) \((\d+\.\d s)\)", re.M)


class Sandbox:
    """A P4-NetFPGA tree, this project's SUME sources and fake tools, all in a temporary directory."""

    def __init__(self, tmp: Path):
        self.bin = tmp / "bin"
        self.trace_file = tmp / "trace"
        self.scenario_file = tmp / "scenario.json"
        self.hw = tmp / "hw"
        self.build = tmp / "build"
        sume = tmp / "P4-NetFPGA"
        sdnet = sume / "contrib-projects" / "sume-sdnet-switch"
        project = sdnet / "projects" / "nat64_sume"
        self.env = {
            "PATH": "%s:/usr/bin:/bin" % self.bin, "HOME": str(tmp), "LANG": "C.UTF-8",
            "SUME_FOLDER": str(sume), "SUME_SDNET": str(sdnet), "P4_PROJECT_NAME": "nat64_sume",
            "P4_PROJECT_DIR": str(project), "NF_DESIGN_DIR": str(project / "simple_sume_switch"),
            "FAKE_TRACE": str(self.trace_file), "FAKE_SCENARIO": str(self.scenario_file),
            "FAKE_TOOL": str(RECORDED / "fake_tool.py"), "FAKE_PYTHON": sys.executable,
        }
        for script in ("p4_px_tables.py", "gen_P4_SWITCH_externs.py", "gen_P4_SWITCH_API.py",
                       "gen_P4_SWITCH_CLI.py", "modify_P4_SWITCH_tb.py", "gen_config_writes.py"):
            self.write(sdnet / "bin" / script, "# stands for the P4-NetFPGA script; python2 is faked\n")
        self.write(sume / "tools" / "scripts" / "nf_test.py", "# faked\n")
        self.write(project / "Makefile", "# faked\n")
        self.write(project / "simple_sume_switch" / "Makefile", "# faked\n")
        self.write(project / "simple_sume_switch" / "test" / "sim_switch_default" / "run.py", "# faked\n")
        self.fake(sdnet / "bin" / "pcap2axi", "pcap2axi")
        for tool in TOOLS:
            self.fake(self.bin / tool, tool)
        self.write(self.hw / "nat64_sume.p4", "// the SUME variant (not compiled here)\n")
        self.write(self.build / "commands.txt", "table_cam_add_entry session_v4 set_v6 0xc0000201 => 0x1\n")
        self.write(self.build / "model_card.txt", "in echo nf1 00\nout echo drop\n")
        self.write(self.hw / "testdata" / "gen_testdata.py", "# faked\n")
        self.scenario()

    @staticmethod
    def write(path: Path, text: str):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def fake(self, path: Path, tool: str):
        self.write(path, '#!/bin/sh\nexec "%s" "%s" %s "$@"\n' % (sys.executable, RECORDED / "fake_tool.py", tool))
        path.chmod(0o755)

    def scenario(self, **changes):
        """The good run, with some calls changed: name=behaviour (name with '_' for '.', '-' or ' ')."""
        calls = dict(GOOD_RUN)
        for name, behaviour in changes.items():
            key = next(k for k in calls if re.sub(r"[.\- ]", "_", k) == name)
            calls[key] = behaviour
        self.scenario_file.write_text(json.dumps(calls))

    def run(self, *args, env=None):
        return subprocess.run([sys.executable, str(DRIVER), "--hw-dir", str(self.hw), "--build-dir", str(self.build),
                               *args], env=env or self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=60)

    def built(self):
        """What the driver wrote into the build directory (the sandbox put make's files there)."""
        return sorted(str(p.relative_to(self.build)) for p in self.build.rglob("*")
                      if p.name not in ("commands.txt", "model_card.txt"))

    def trace(self):
        """The tool calls made, without the check's probes of python2 and vivado."""
        if not self.trace_file.exists():
            return []
        return [c for c in self.trace_file.read_text().split("\n") if c and c not in ("vivado -version", "python2 -c")]

    def expand(self, path: str) -> Path:
        for name in ("P4_PROJECT_DIR", "NF_DESIGN_DIR"):
            path = path.replace("$" + name, self.env[name])
        return Path(path)


@pytest.fixture
def box(tmp_path):
    return Sandbox(tmp_path)


def steps_reported(output):
    return [(int(k), int(n), name, verdict) for k, n, name, verdict, _ in PROGRESS.findall(output)]


def test_a_good_build_runs_every_step_in_order_with_progress_and_elapsed_time(box):
    proc = box.run()
    assert proc.returncode == 0, proc.stdout
    total = len(sume_flow.STEPS)
    assert steps_reported(proc.stdout) == [(k, total, name, "ok") for k, name in enumerate(sume_flow.STEP_NAMES, 1)]
    assert box.trace() == ALL_CALLS
    assert re.search(r"^done: %d steps in \d+\.\d s$" % total, proc.stdout, re.M)

    # the tools' output went to the logs, not to the terminal
    assert "is unused" not in proc.stdout
    p4c_log = box.build / "logs" / "02-p4c-sdnet.log"
    assert "[--Wwarn=unused] warning" in p4c_log.read_text()
    assert sorted(p.name for p in (box.build / "logs").iterdir()) == [
        "%02d-%s.log" % (k, s.name) for k, s in enumerate(sume_flow.STEPS, 1) if not s.internal]

    # the report: the bitstream copied out, the timing summary read from Vivado's report
    assert (box.build / "nat64_sume.bit").read_text() == "bitstream of the fake Vivado\n"
    assert "WNS 0.147 ns, TNS 0.000 ns, WHS 0.021 ns, THS 0.000 ns" in proc.stdout
    # a critical warning that is not on the stop list is named, and does not stop the build
    assert re.search(r"\[10/%d\] bitstream \.\.\. ok \(\d+\.\d s\); 1 critical warning not on the stop list in .*"
                     r"impl_1/runme\.log" % total, proc.stdout)


def test_ordinary_warnings_do_not_stop_the_build(box):
    """The good logs hold ordinary warnings (Vivado, p4c, scapy) and a critical warning off the list."""
    good_logs = [v["log"] for v in GOOD_RUN.values() if v.get("log")] + ["synth-runme-ok.log", "impl-runme-ok.log"]
    text = "".join((RECORDED / name).read_text() for name in good_logs)
    assert "WARNING: [Synth 8-3331]" in text and "WARNING: No route found" in text
    for name in good_logs:
        assert [f for f in sume_flow.scan_log(RECORDED / name) if f.fatal] == [], name
    assert box.run("--only", "bitstream").returncode == 0


@pytest.mark.parametrize("step, change, line", [
    ("bitstream", {"make_simple_sume_switch": dict(GOOD_RUN["make simple_sume_switch"], creates=[
        {"path": RUNS + "/impl_1/runme.log", "from": "impl-runme-timing-missed.log"},
        {"path": RUNS + "/impl_1/top.bit", "text": "a bitstream that misses timing\n"}])},
     "CRITICAL WARNING: [Timing 38-282] The design failed to meet the timing requirements."),
    ("install-ip", {"make_install_sdnet": dict(GOOD_RUN["make install_sdnet"], log="install_sdnet-locked-ip.log")},
     "WARNING: [IP_Flow 19-2162] IP 'axis_data_fifo_0' is locked:"),
])
def test_a_warning_that_is_really_an_error_stops_the_build_although_the_tool_exited_0(box, step, change, line):
    box.scenario(**change)
    proc = box.run()
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED, proc.stdout
    number = sume_flow.STEP_NAMES.index(step) + 1
    assert steps_reported(proc.stdout)[-1][2:] == (step, "FAILED")
    assert len(steps_reported(proc.stdout)) == number
    assert line in proc.stdout
    message_id = re.search(r"\[(\w+ \d+-\d+)\]", line).group(1)
    assert "[%s] stops the build: %s" % (message_id, sume_flow.STOP_MESSAGE_IDS[message_id]) in proc.stdout
    assert "full log: %s" % (box.build / "logs" / ("%02d-%s.log" % (number, step))) in proc.stdout
    assert "resume with: make -C hw/netfpga FROM=%s" % step in proc.stdout
    assert box.trace() == ALL_CALLS[:ALL_CALLS.index(STEP_CALLS[step][-1]) + 1]
    assert not (box.build / "nat64_sume.bit").exists()


def test_a_tool_that_exits_non_zero_stops_the_build_before_the_next_tool(box):
    box.scenario(p4c_sdnet={"log": "p4c-sdnet-error.log", "exit": 1})
    proc = box.run()
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED
    assert steps_reported(proc.stdout) == [(1, 11, "check", "ok"), (2, 11, "p4c-sdnet", "FAILED")]
    assert "p4c-sdnet exited with status 1" in proc.stdout
    assert "error: TopPipe.eamt_v6: match kind lpm on a 128-bit key is not supported" in proc.stdout
    assert "key = { hdr.ipv6.dst_addr: lpm; }" in proc.stdout        # the context line after it
    assert "full log: %s" % (box.build / "logs" / "02-p4c-sdnet.log") in proc.stdout
    assert box.trace() == ["p4c-sdnet"]


def test_error_lines_fail_the_step_even_when_the_script_exits_0(box):
    box.scenario(vivado_sim_bash={"log": "vivado_sim-elaboration-error.log"})   # a bash script without set -e
    proc = box.run()
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED
    assert steps_reported(proc.stdout)[-1][2:] == ("sdnet-sim", "FAILED")
    assert "its log reports errors" in proc.stdout
    assert "ERROR: [XSIM 43-3322] Static elaboration of top level Verilog design unit(s)" in proc.stdout
    assert "gen_config_writes.py" not in box.trace()


def test_the_log_scan_finds_each_kind_of_failure_in_the_recorded_logs():
    def fatal(name):
        return [(f.first + 1, f.last + 1, f.reason) for f in sume_flow.scan_log(RECORDED / name) if f.fatal]
    assert fatal("p4c-sdnet-error.log") == [(4, 4, "")]
    assert fatal("vivado_sim-elaboration-error.log") == [(4, 4, ""), (5, 5, "")]
    assert fatal("impl-runme-timing-missed.log") == [
        (9, 9, "[Timing 38-282] stops the build: " + sume_flow.STOP_MESSAGE_IDS["Timing 38-282"])]
    assert fatal("install_sdnet-locked-ip.log") == [
        (16, 16, "[IP_Flow 19-2162] stops the build: " + sume_flow.STOP_MESSAGE_IDS["IP_Flow 19-2162"])]
    assert fatal("nf_test-traceback.log") == [(3, 6, "a Python script crashed")]
    assert [f.first + 1 for f in sume_flow.scan_log(RECORDED / "impl-runme-timing-missed.log") if not f.fatal] == [3]


def test_a_python_traceback_fails_the_step_even_when_the_script_exits_0(box):
    box.scenario(nf_test_py={"log": "nf_test-traceback.log"})      # nf_test.py exits 0 whatever happened
    proc = box.run()
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED
    assert steps_reported(proc.stdout)[-1][2:] == ("sume-sim", "FAILED")
    assert "a Python script crashed" in proc.stdout
    assert "Traceback (most recent call last):" in proc.stdout
    assert "ImportError: No module named config_writes" in proc.stdout
    assert "make simple_sume_switch" not in box.trace()


def test_the_sume_simulation_must_report_a_pass(box):
    box.scenario(nf_test_py={"log": "sim_switch_default-ok.log"})    # exits 0 having compared nothing
    proc = box.run("--from", "sume-sim")
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED
    assert "the tools exited 0 but never reported a pass" in proc.stdout


@pytest.mark.parametrize("change, message", [
    ({"p4c_sdnet": {"log": "p4c-sdnet-ok.log", "creates": [{"path": "nat64_sume.sdnet"}]}},
     "did not produce {P4_PROJECT_DIR}/src/.sdnet_switch_info.dat"),
    # BMv2-style "table_add" lines are ignored by p4_px_tables.py, which writes empty tables and exits 0
    ({"p4_px_tables_py": {"creates": [{"path": "eamt_v6.tbl", "text": ""}]}},
     "{P4_PROJECT_DIR}/src/eamt_v6.tbl is empty"),
])
def test_a_step_that_exits_0_without_its_output_fails(box, change, message):
    box.scenario(**change)
    proc = box.run()
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED
    assert message.format(**box.env) in proc.stdout
    assert "sdnet" not in box.trace() and "gen_testdata.py" not in box.trace()


def test_an_output_left_by_an_earlier_run_is_not_taken_for_this_one(box):
    assert box.run().returncode == 0
    bitstream = box.expand(RUNS + "/impl_1/top.bit")
    os.utime(str(bitstream), (1e9, 1e9))
    box.scenario(make_simple_sume_switch={"log": "bitstream-ok.log"})     # Vivado reused the old project
    proc = box.run("--from", "bitstream")
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED
    assert "top.bit is from an earlier run (2001-09-" in proc.stdout
    assert "remove $NF_DESIGN_DIR/hw/project first" in proc.stdout


def test_the_report_refuses_a_design_that_misses_timing_even_without_vivados_warning(box):
    box.scenario(make_simple_sume_switch=dict(GOOD_RUN["make simple_sume_switch"], creates=[
        {"path": RUNS + "/impl_1/top_timing_summary_routed.rpt", "from": "top_timing_summary_routed-missed.rpt"},
        {"path": RUNS + "/impl_1/top.bit"}]))
    proc = box.run()
    assert proc.returncode == sume_flow.EXIT_STEP_FAILED
    assert steps_reported(proc.stdout)[-2:] == [(10, 11, "bitstream", "ok"), (11, 11, "report", "FAILED")]
    assert "the routed design misses timing (WNS -0.412 ns, TNS -96.310 ns, WHS 0.021 ns" in proc.stdout
    assert not (box.build / "nat64_sume.bit").exists()


def test_missing_tools_settings_and_sources_are_all_listed_before_any_step_runs(box):
    env = {k: v for k, v in box.env.items() if k not in ("SUME_FOLDER", "SUME_SDNET", "NF_DESIGN_DIR")}
    for tool in ("sdnet", "vivado", "xsim"):
        (box.bin / tool).unlink()
    (box.hw / "nat64_sume.p4").unlink()
    (box.build / "model_card.txt").unlink()
    proc = box.run(env=env)
    assert proc.returncode == sume_flow.EXIT_NOT_READY
    assert steps_reported(proc.stdout) == [(1, 11, "check", "FAILED")]
    assert "not on PATH: sdnet\n" in proc.stdout and "not on PATH: xsim, vivado\n" in proc.stdout
    assert "settings not set: SUME_SDNET, SUME_FOLDER, NF_DESIGN_DIR" in proc.stdout
    assert "missing %s/nat64_sume.p4 (needed by p4c-sdnet)" % box.hw in proc.stdout
    assert "missing %s/model_card.txt (needed by testdata)\n      -> generated by make -C hw/netfpga after make " \
           "build" % box.build in proc.stdout
    assert "Nothing was built." in proc.stdout
    assert box.trace() == [] and box.built() == []


@pytest.mark.parametrize("change, message", [
    ({"vivado__version": {"log": "vivado-version-2019.log"}},
     "vivado is v2019.1; the P4-NetFPGA flow needs Vivado 2018.2"),
    ({"python2__c": {"log": "python2-no-scapy.log", "exit": 1}},
     "python2 does not run or lacks scapy (ImportError: No module named scapy.all)"),
])
def test_the_check_runs_vivado_and_python2_once_to_see_they_fit(box, change, message):
    box.scenario(**change)
    proc = box.run()
    assert proc.returncode == sume_flow.EXIT_NOT_READY
    assert message in proc.stdout
    assert box.trace() == []


def test_from_resumes_at_a_step_after_the_check(box):
    box.scenario(vivado_sim_bash={"log": "vivado_sim-ok.log", "exit": 1})
    assert box.run().returncode == sume_flow.EXIT_STEP_FAILED
    box.trace_file.unlink()
    box.scenario()
    proc = box.run("--from", "sdnet-sim")
    assert proc.returncode == 0, proc.stdout
    assert [(k, name) for k, _, name, _ in steps_reported(proc.stdout)] == \
        [(1, "check")] + [(k, n) for k, n in enumerate(sume_flow.STEP_NAMES, 1) if k >= 6]
    assert box.trace() == ALL_CALLS[ALL_CALLS.index("vivado_sim.bash"):]
    assert (box.build / "logs" / "02-p4c-sdnet.log").exists()      # the earlier steps' logs are kept


def test_only_runs_one_step(box):
    proc = box.run("--only", "tables")
    assert proc.returncode == 0, proc.stdout
    assert [name for _, _, name, _ in steps_reported(proc.stdout)] == ["check", "tables"]
    assert box.trace() == ["p4_px_tables.py"]


def test_dry_run_prints_the_commands_and_runs_nothing(box):
    proc = box.run("--dry-run", env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0
    assert "$ cd $P4_PROJECT_DIR/src && p4c-sdnet -o nat64_sume.sdnet --sdnet_info .sdnet_switch_info.dat" \
        in proc.stdout
    assert "python2 $SUME_FOLDER/tools/scripts/nf_test.py sim --major switch --minor default" in proc.stdout
    assert box.trace() == [] and box.built() == []


def test_every_stop_message_id_has_a_one_line_reason():
    for message_id, reason in sume_flow.STOP_MESSAGE_IDS.items():
        assert re.fullmatch(r"[A-Za-z_]+ \d+-\d+", message_id)
        assert reason and "\n" not in reason


def test_make_check_says_plainly_that_the_flow_cannot_run_on_this_machine():
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
    if any(Path(d, "vivado").exists() for d in env["PATH"].split(":")):
        pytest.skip("this machine has Vivado")
    proc = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "hw" / "netfpga"), "check"], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    assert proc.returncode != 0
    assert "[1/11] check ... FAILED" in proc.stdout
    assert "No Xilinx tools here (p4c-sdnet, sdnet, vivado, xsim): the NetFPGA SUME build cannot run on this machine." \
        in proc.stdout
    assert "Nothing was built." in proc.stdout
    assert "tests/test_netfpga_flow.py" in proc.stdout
    assert "[2/11]" not in proc.stdout


def test_make_writes_commands_txt_from_the_sample_fabric_in_p4_px_tables_syntax():
    """The table step's input, generated from the controller's desired state by the agent (make build
    first): every line is a p4_px_tables.py command or a comment; the static BIB entry's session
    entries and the routes are there."""
    commands = ROOT / "hw" / "netfpga" / "build" / "commands.txt"
    if commands.exists():
        commands.unlink()
    proc = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "hw" / "netfpga"), "build/commands.txt"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    assert proc.returncode == 0, proc.stdout
    lines = commands.read_text().splitlines()
    cam = re.compile(r"table_cam_add_entry [\w.]+ [\w.]+( 0x[0-9a-f]+)+ =>( 0x[0-9a-f]+)*")
    lpm = re.compile(r"table_lpm_add_entry [\w.]+ [\w.]+ [0-9a-f.:]+/\d+ =>( 0x[0-9a-f]+)*")
    for line in lines:
        assert line.startswith("# ") or cam.fullmatch(line) or lpm.fullmatch(line), line
    # the static BIB 2001:db8:1::10#53 <-> 192.0.2.9#5353 (UDP), each entry with its slot of session_hit, from the last
    assert "table_cam_add_entry translate.session_v6 translate.snat 0x11 0x20010db8000100000000000000000010 0x35" \
           " => 0xc0000209 0x14e9 0x0 0x0 0x1fff" in lines
    assert "table_cam_add_entry translate.session_v4 translate.dnat 0x11 0xc0000209 0x14e9" \
           " => 0x20010db8000100000000000000000010 0x35 0x0 0x0 0x1ffe" in lines
    assert "table_lpm_add_entry ipv4_routes set_next_hop 198.51.100.0/24 => 0x2 0xaa01 0x220" in lines
    assert proc.stdout.startswith("commands.txt: %d entries" % sum(1 for l in lines if l.startswith("table_")))

    bad = subprocess.run(["java", "-jar", str(ROOT / "hw" / "netfpga" / "agent" / "target" / "sume-agent.jar"),
                          "commands", "--config", str(ROOT / "hw" / "netfpga" / "testdata" / "sample-fabric.json"),
                          "--device", "device:nope"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("sume-agent: ") and "device:nope is not configured" in bad.stderr, bad.stderr


def test_the_agents_tools_refuse_a_program_not_for_the_card_and_missing_files_in_one_line():
    agent = ["java", "-jar", str(ROOT / "hw" / "netfpga" / "agent" / "target" / "sume-agent.jar")]
    v1model = subprocess.run([*agent, "commands", "--config", str(ROOT / "hw" / "netfpga" / "testdata" / "sample-fabric.json"),
                              "--device", "device:border1", "--program", str(ROOT / "p4" / "nat64.p4")],
                             capture_output=True, text=True, timeout=60)
    assert v1model.returncode == 2 and v1model.stdout == "" and "is a v1model program" in v1model.stderr, v1model.stderr
    missing = subprocess.run([*agent, "record", "--commands", "/nonexistent/commands.txt", "--cases", "/nonexistent/cases.txt"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and missing.stdout == "", missing.stdout
    assert missing.stderr.strip() == "sume-agent: --commands /nonexistent/commands.txt: no such file", missing.stderr
