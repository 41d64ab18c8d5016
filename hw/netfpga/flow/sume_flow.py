#!/usr/bin/env python3
"""Build driver for the NetFPGA SUME variant of the NAT64 pipeline (hw/netfpga/nat64_sume.p4).

It runs the P4-NetFPGA workflow (SDNet 2018.2, Vivado 2018.2, the P4-NetFPGA-live tree) one step at a
time, in order: each tool's output goes to a log under the build directory, and a step passes only
when its tools exit 0, its logs hold no error (Vivado "ERROR:", a critical warning on the stop list
below, a Python traceback, a failed packet comparison) and the files it must make exist, are not empty
and were written by this run. The first step that fails stops the build with the log lines that
matter. Step 1 checks every tool, setting and source the chosen steps need before anything runs.

    sume_flow.py                 every step          sume_flow.py --from STEP   resume at STEP
    sume_flow.py --only STEP     one step            sume_flow.py --check       the check alone
    sume_flow.py --dry-run       print the commands  sume_flow.py --list        the steps

Exit status: 0 built, 1 a step failed, 3 the check failed (nothing ran), 130 interrupted.
Python 3.6 or later, standard library only. README.md beside this file says more.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import string
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, List, NamedTuple, Optional, Tuple

HW_DIR = Path(__file__).resolve().parent.parent          # hw/netfpga: the program and its sources
REPO_ROOT = HW_DIR.parent.parent
PROGRAM = "nat64_sume"
# SimpleSumeSwitch's control port in the SUME address map, as the P4-NetFPGA project Makefiles set it
SWITCH_BASE_ADDRESS = "0x44020000"
SIM_DIR = "$P4_PROJECT_DIR/nf_sume_sdnet_ip/SimpleSumeSwitch"      # what sdnet -workDir makes
RUNS_DIR = "$NF_DESIGN_DIR/hw/project/simple_sume_switch.runs"     # Vivado's synth_1 and impl_1 runs
EXIT_STEP_FAILED, EXIT_NOT_READY, EXIT_INTERRUPTED = 1, 3, 130

# Vivado messages that stop the build although Vivado only warns and carries on to a bitstream.
# Matched by ID at WARNING or CRITICAL WARNING severity; any other critical warning is counted and
# named after the step, but does not stop it. Keep one line of reason per ID.
STOP_MESSAGE_IDS = {
    "Timing 38-282": "the routed design fails timing: the card would drop or corrupt packets at line rate",
    "Synth 8-3352": "a net has several drivers: synthesis keeps one of them and the logic is wrong",
    "Synth 8-6859": "a pin has several drivers (Synth 8-3352 in newer Vivado versions)",
    "Synth 8-4442": "a black-box module has unconnected pins: part of the design is missing or cut off",
    "Common 17-55": "an XDC constraint matched no object: a pin or timing constraint was silently dropped",
    "Vivado 12-1411": "a port could not be placed on its package pin: the SUME board wiring would not match",
    "IP_Flow 19-2162": "an IP core is locked (made for another Vivado version or part): its definition is stale",
    "Vivado 12-4802": "a locked IP has no synthesis checkpoint: Vivado itself warns of incorrect behaviour",
}

VIVADO_MESSAGE = re.compile(r"^(CRITICAL WARNING|WARNING): \[([^\]]+)\]")
# Lines that fail a step whatever the exit status: Vivado, xsim and SDNet "ERROR:", p4c's
# "file(line): error:", SystemVerilog $error/$fatal in xsim, and the SUME simulation's packet check.
ERROR_LINE = re.compile(r"(^|[\s)\]])(ERROR|Error|error|FATAL_ERROR|Fatal):")
SUME_SIM_MISMATCH = re.compile(r"^\s*FAIL \(")
TRACEBACK_START = "Traceback (most recent call last):"

EXCERPT_MAX_LINES = 20
EXCERPT_LINE_WIDTH = 240
# Outputs older than the step's start (less this slack for coarse file-system clocks) are stale
FRESHNESS_SLACK_S = 2.0


class Step(NamedTuple):
    """One step of the flow. Strings may name settings as $VAR: the environment (P4-NetFPGA's
    settings.sh), $HW_DIR (the program's sources) and $BUILD_DIR (logs and results)."""
    name: str
    title: str
    tools: Tuple[str, ...] = ()             # on PATH
    inputs: Tuple[str, ...] = ()            # files from outside the flow, checked before step 1
    cwd: str = ""
    commands: Tuple[Tuple[str, ...], ...] = ()
    produces: Tuple[str, ...] = ()          # files (or globs) the step must write, non-empty
    tool_logs: Tuple[str, ...] = ()         # logs the tools write beside their output, also checked
    reads: Tuple[str, ...] = ()             # files of earlier steps an internal step reads
    passed_marker: str = ""                 # a line the log must hold (for tools that exit 0 on failure)
    next_hint: str = ""                     # what to do when the step fails
    internal: Optional[Callable] = None     # a step the driver does itself (check, report)


class Finding(NamedTuple):
    path: Path
    first: int          # 0-based line span in the file
    last: int
    fatal: bool
    reason: str         # why it stops the flow (empty for a counted critical warning)


class Flow:
    """The settings one run works with, and where it writes."""

    def __init__(self, hw_dir: Path, build_dir: Path, environ: dict):
        self.build_dir = build_dir
        self.settings = dict(environ, HW_DIR=str(hw_dir), BUILD_DIR=str(build_dir))
        self.selected = []      # the steps this run does, check excluded

    def expand(self, text: str) -> str:
        return string.Template(text).safe_substitute(self.settings)

    @property
    def log_dir(self) -> Path:
        return self.build_dir / "logs"


def display(path) -> str:
    """A path as the user can find it: relative to the repository root when inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def shell_words(argv) -> str:
    """A command as the user would type it (unset $SETTINGS left readable, as in a dry run)."""
    return " ".join(a if re.fullmatch(r"[\w@%+=:,./$-]+", a) else shlex.quote(a) for a in argv)


def format_elapsed(seconds: float) -> str:
    if seconds < 60:
        return "%.1f s" % seconds
    if seconds < 3600:
        return "%d min %02d s" % (seconds // 60, seconds % 60)
    return "%d h %02d min" % (seconds // 3600, seconds % 3600 // 60)


def referenced_settings(text: str) -> List[str]:
    return [m.group(1) or m.group(2) for m in re.finditer(r"\$(?:(\w+)|\{(\w+)\})", text)]


# ---------------------------------------------------------------------------------------------
# Step 1: everything the chosen steps need, listed in full before any of them runs

TOOL_HINTS = {
    "p4c-sdnet": "Xilinx SDNet 2018.2: source /opt/Xilinx/SDNet/2018.2/settings64.sh",
    "sdnet": "Xilinx SDNet 2018.2: source /opt/Xilinx/SDNet/2018.2/settings64.sh",
    "vivado": "Xilinx Vivado 2018.2: source /opt/Xilinx/Vivado/2018.2/settings64.sh",
    "xsim": "Xilinx Vivado 2018.2: source /opt/Xilinx/Vivado/2018.2/settings64.sh",
    "python2": "Python 2.7 with scapy: the P4-NetFPGA scripts are Python 2 (apt-get install python-scapy)",
    "make": "GNU make",
}
XILINX_TOOLS = ("p4c-sdnet", "sdnet", "vivado", "xsim")
SETTINGS_HINT = ("set P4_PROJECT_NAME=%s in $SUME_FOLDER/tools/settings.sh of your P4-NetFPGA-live checkout "
                 "and source it (P4-NetFPGA wiki, Getting Started)" % PROGRAM)
# Missing inputs are explained by the setting their path starts with
INPUT_HINTS = {
    "HW_DIR": "a source of the SUME variant, kept in hw/netfpga (p4/README.md lists what it must change)",
    "BUILD_DIR": "generated by make -C hw/netfpga after make build (commands.txt: from testdata/sample-fabric.json "
                 "by the agent; model_card.txt: testdata/cases.py's frames through the agent's model card)",
    "SUME_FOLDER": "the P4-NetFPGA tree is incomplete: $SUME_FOLDER must be a P4-NetFPGA-live (2018.2) checkout",
    "SUME_SDNET": "the P4-NetFPGA tree is incomplete: $SUME_FOLDER must be a P4-NetFPGA-live (2018.2) checkout",
    "P4_PROJECT_DIR": "create the P4-NetFPGA project once: $SUME_SDNET/bin/make_new_p4_proj.py %s" % PROGRAM,
    "NF_DESIGN_DIR": "create the P4-NetFPGA project once: $SUME_SDNET/bin/make_new_p4_proj.py %s" % PROGRAM,
}
VIVADO_VERSION = "v2018.2"


def check_step(flow: Flow):
    steps = flow.selected
    path = flow.settings.get("PATH", "")
    tools = list(dict.fromkeys(t for s in steps for t in s.tools))
    missing_tools = [t for t in tools if shutil.which(t, path=path) is None]

    texts = [" ".join((s.cwd,) + s.inputs + s.produces + s.tool_logs + s.reads + sum(s.commands, ())) for s in steps]
    needed = list(dict.fromkeys(v for t in texts for v in referenced_settings(t)
                                if v not in ("HW_DIR", "BUILD_DIR")))
    if "P4_PROJECT_DIR" in needed:
        needed.insert(0, "P4_PROJECT_NAME")     # settings.sh derives the project's paths from it
    missing_settings = [v for v in needed if not flow.settings.get(v)]

    problems = []
    if missing_tools:
        by_hint = {}
        for tool in missing_tools:
            by_hint.setdefault(TOOL_HINTS.get(tool, "install it"), []).append(tool)
        for hint, names in by_hint.items():
            problems.append("not on PATH: %s\n      -> %s" % (", ".join(names), hint))
    if missing_settings:
        problems.append("settings not set: %s\n      -> %s" % (", ".join(missing_settings), SETTINGS_HINT))
    project = flow.settings.get("P4_PROJECT_NAME")
    if project and project != PROGRAM:
        problems.append("P4_PROJECT_NAME is %r: the P4-NetFPGA settings select another project\n      -> %s"
                        % (project, SETTINGS_HINT))

    for step in steps:
        for item in step.inputs:
            expanded = flow.expand(item)
            if "$" in expanded:
                continue        # its setting is missing, reported above
            if not Path(expanded).is_file():
                root = referenced_settings(item)[0]
                problems.append("missing %s (needed by %s)\n      -> %s"
                                % (display(expanded), step.name, flow.expand(INPUT_HINTS[root])))

    # Found on PATH is not enough: a pyenv shim or a Python 2 without scapy fails hours later
    if "python2" in tools and "python2" not in missing_tools:
        status, out = probe(path, "python2", "-c", "import scapy.all")
        if status != 0:
            lines = [l.strip() for l in out.splitlines() if l.strip()] or ["no output"]
            said = next((l for l in reversed(lines) if "Error" in l), lines[0])
            problems.append("python2 does not run or lacks scapy (%s)\n      -> %s" % (said, TOOL_HINTS["python2"]))
    if "vivado" in tools and "vivado" not in missing_tools:
        version = re.search(r"Vivado (v\S+)", probe(path, "vivado", "-version")[1])
        if not version or not version.group(1).startswith(VIVADO_VERSION):
            problems.append("vivado is %s; the P4-NetFPGA flow needs Vivado 2018.2 (SDNet 2018.2's output "
                            "and the SUME IP cores are tied to it)\n      -> %s"
                            % (version.group(1) if version else "of an unknown version", TOOL_HINTS["vivado"]))

    if not problems:
        return [], []
    found_xilinx = [t for t in XILINX_TOOLS if shutil.which(t, path=path)]
    if found_xilinx:
        header = ["The SUME build cannot start; it needs:"]
    else:
        header = ["No Xilinx tools here (%s): the NetFPGA SUME build cannot run on this machine."
                  % ", ".join(XILINX_TOOLS), "It needs:"]
    footer = ["Nothing was built."]
    if not found_xilinx:
        footer.append("What is tested here instead: the step driver, against recorded tool outputs "
                      "(tests/test_netfpga_flow.py).")
    return header + ["  - " + p for p in problems] + footer, []


def probe(path: str, tool: str, *args: str):
    """Runs a tool found on PATH once; returns its exit status (None if it could not run) and output."""
    try:
        proc = subprocess.run([shutil.which(tool, path=path)] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    return proc.returncode, proc.stdout


# ---------------------------------------------------------------------------------------------
# The last step: where the bitstream is, and whether the routed design met timing

TIMING_REPORT = RUNS_DIR + "/impl_1/top_timing_summary_routed.rpt"
BITSTREAM = RUNS_DIR + "/impl_1/top.bit"
CONFIG_WRITES = "$P4_PROJECT_DIR/testdata/config_writes.sh"


def report_step(flow: Flow):
    bitstream, writes = Path(flow.expand(BITSTREAM)), Path(flow.expand(CONFIG_WRITES))
    missing = [p for p in (bitstream, writes) if not p.is_file()]
    if missing:
        return ["%s is missing: run the step that makes it first (make -C hw/netfpga steps)" % display(p)
                for p in missing], []
    report = Path(flow.expand(TIMING_REPORT))
    timing = read_timing_summary(report)
    if timing is None:
        return ["no design timing summary in %s: cannot tell whether the design meets timing" % display(report)], []
    summary = "WNS %s ns, TNS %s ns, WHS %s ns, THS %s ns" % timing
    if any(float(worst) < 0 for worst in (timing[0], timing[2])):
        return ["the routed design misses timing (%s, from %s)" % (summary, display(report))], []

    flow.build_dir.mkdir(parents=True, exist_ok=True)
    result, writes_copy = flow.build_dir / (PROGRAM + ".bit"), flow.build_dir / writes.name
    shutil.copyfile(str(bitstream), str(result))
    shutil.copyfile(str(writes), str(writes_copy))
    return [], ["bitstream:    %s (%.1f MB)" % (display(result), result.stat().st_size / 1e6),
                "table writes: %s" % display(writes_copy),
                "timing:       %s, all constraints met" % summary,
                "next: copy both into $NF_DESIGN_DIR/bitfiles and run program_switch.sh there as root"]


def read_timing_summary(report: Path):
    """WNS, TNS, WHS, THS from the Design Timing Summary of Vivado's report_timing_summary."""
    if not report.is_file():
        return None
    lines = report.read_text(errors="replace").splitlines()
    for i, line in enumerate(lines):
        if "WNS(ns)" in line and "WHS(ns)" in line:
            rows = [row.split() for row in lines[i + 1:] if row.strip() and set(row.strip()) - set("- ")]
            values = rows[0] if rows else []
            try:
                return tuple("%.3f" % float(values[k]) for k in (0, 1, 4, 5))
            except (IndexError, ValueError):      # "NA": nothing was timed
                return None
    return None


# ---------------------------------------------------------------------------------------------
# The steps, in order. Commands and files are those of the P4-NetFPGA workflow (wiki "Workflow
# Overview" and the project Makefiles of P4-NetFPGA-live), run here one tool at a time.

STEPS = (
    Step("check", "tools, settings and sources", internal=check_step),
    Step("p4c-sdnet", "P4 program to SDNet (p4c-sdnet)",
         tools=("p4c-sdnet",), inputs=("$HW_DIR/%s.p4" % PROGRAM,), cwd="$P4_PROJECT_DIR/src",
         commands=(("p4c-sdnet", "-o", PROGRAM + ".sdnet", "--sdnet_info", ".sdnet_switch_info.dat",
                    "$HW_DIR/%s.p4" % PROGRAM),),
         produces=("$P4_PROJECT_DIR/src/%s.sdnet" % PROGRAM, "$P4_PROJECT_DIR/src/.sdnet_switch_info.dat"),
         next_hint="fix the P4 program at the lines above (SDNet accepts a subset of P4_16 on SimpleSumeSwitch)"),
    Step("tables", "table entries to SDNet table files (p4_px_tables.py)",
         tools=("python2",), inputs=("$BUILD_DIR/commands.txt", "$SUME_SDNET/bin/p4_px_tables.py"),
         cwd="$P4_PROJECT_DIR/src",
         commands=(("python2", "$SUME_SDNET/bin/p4_px_tables.py", "$BUILD_DIR/commands.txt", ".sdnet_switch_info.dat"),),
         produces=("$P4_PROJECT_DIR/src/*.tbl",),
         next_hint="each line of commands.txt must be table_cam_add_entry, table_tcam_add_entry or "
                   "table_lpm_add_entry (other lines are ignored) and give every key and every action "
                   "parameter as an integer"),
    Step("testdata", "simulation packets and metadata (gen_testdata.py, pcap2axi)",
         tools=("python2",),
         inputs=("$HW_DIR/testdata/gen_testdata.py", "$BUILD_DIR/model_card.txt", "$SUME_SDNET/bin/pcap2axi"),
         cwd="$P4_PROJECT_DIR/testdata",
         commands=(("python2", "$HW_DIR/testdata/gen_testdata.py", "$BUILD_DIR/model_card.txt"),
                   ("$SUME_SDNET/bin/pcap2axi", "--output", "Packet_in.axi", "--bus_width", "256", "src.pcap"),
                   ("$SUME_SDNET/bin/pcap2axi", "--output", "Packet_expect.axi", "--bus_width", "256", "dst.pcap")),
         produces=tuple("$P4_PROJECT_DIR/testdata/" + f for f in (
             "src.pcap", "dst.pcap", "Tuple_in.txt", "Tuple_expect.txt", "Packet_in.axi", "Packet_expect.axi")),
         next_hint="gen_testdata.py writes src.pcap, dst.pcap, Tuple_in.txt and Tuple_expect.txt from "
                   "build/model_card.txt, which make -C hw/netfpga writes (make build first)"),
    Step("sdnet", "SDNet to HDL, testbench and switch API (sdnet)",
         tools=("sdnet", "python2"),
         inputs=tuple("$SUME_SDNET/bin/" + f for f in (
             "gen_P4_SWITCH_externs.py", "gen_P4_SWITCH_API.py", "gen_P4_SWITCH_CLI.py", "modify_P4_SWITCH_tb.py")),
         cwd="$P4_PROJECT_DIR",
         commands=(
             ("sdnet", "src/%s.sdnet" % PROGRAM, "-skipEval", "-busType", "axi", "-busWidth", "256",
              "-singlecontrolport", "-workDir", "nf_sume_sdnet_ip", "-altVivadoScripts"),
             ("python2", "$SUME_SDNET/bin/gen_P4_SWITCH_externs.py", "src/.sdnet_switch_info.dat", SIM_DIR + "/",
              "$SUME_SDNET/templates/", "testdata/", "sw/", "--base_address", SWITCH_BASE_ADDRESS),
             ("python2", "$SUME_SDNET/bin/gen_P4_SWITCH_API.py", "src/.sdnet_switch_info.dat", SIM_DIR + "/",
              "sw/", "$SUME_SDNET/templates/", "--base_address", SWITCH_BASE_ADDRESS),
             ("python2", "$SUME_SDNET/bin/gen_P4_SWITCH_CLI.py", "src/.sdnet_switch_info.dat", SIM_DIR + "/",
              "sw/", "$SUME_SDNET/templates/", "--base_address", SWITCH_BASE_ADDRESS),
             # the testbench then logs its table writes to config_writes.txt, which step config-writes reads
             ("python2", "$SUME_SDNET/bin/modify_P4_SWITCH_tb.py", SIM_DIR + "/Testbench/SimpleSumeSwitch_tb.sv"),
             # the DPI library path fix the P4-NetFPGA Makefiles apply since SDNet 2017.4
             ("sed", "-i", r"s#xsim\.dir/xsc/dpi\.so#dpi.so#g", SIM_DIR + "/vivado_sim.bash"),
             ("sh", "-c", "cp src/*.tbl testdata/*.txt testdata/*.axi " + SIM_DIR + "/")),
         produces=(SIM_DIR + "/vivado_sim.bash", SIM_DIR + "/Testbench/SimpleSumeSwitch_tb.sv",
                   "$P4_PROJECT_DIR/sw/CLI/P4_SWITCH_CLI.py", SIM_DIR + "/Packet_in.axi"),
         next_hint="an SDNet error usually names a table or a header: table sizes must suit their match "
                   "kind, and the parser must fit SDNet's fixed packet region"),
    Step("sdnet-sim", "HDL simulation against the expected packets (vivado_sim.bash, xsim)",
         tools=("xsim",), cwd=SIM_DIR,
         commands=(("bash", "vivado_sim.bash"),),
         produces=(SIM_DIR + "/config_writes.txt",),
         next_hint="compare the program with gen_testdata.py's expected packets; "
                   "vivado_sim_waveform.bash in the same directory shows the waveforms"),
    Step("config-writes", "table writes for the SUME simulation and the card (gen_config_writes.py)",
         tools=("python2",), inputs=("$SUME_SDNET/bin/gen_config_writes.py",), cwd="$P4_PROJECT_DIR",
         commands=(("python2", "$SUME_SDNET/bin/gen_config_writes.py", SIM_DIR + "/config_writes.txt",
                    SWITCH_BASE_ADDRESS, "testdata"),),
         produces=("$P4_PROJECT_DIR/testdata/config_writes.py", CONFIG_WRITES),
         next_hint="config_writes.txt comes from the testbench of step sdnet-sim: rerun from sdnet"),
    Step("install-ip", "SDNet core wrapped and packaged as a SUME IP core (make install_sdnet, Vivado)",
         tools=("make", "vivado"), inputs=("$P4_PROJECT_DIR/Makefile",), cwd="$P4_PROJECT_DIR",
         commands=(("make", "-C", "$P4_PROJECT_DIR", "uninstall_sdnet", "install_sdnet"),),
         produces=("$SUME_FOLDER/lib/hw/contrib/cores/nf_sume_sdnet_ip/**/component.xml",),
         next_hint="a locked IP means cores built by another Vivado version: rebuild the SUME library "
                   "cores with Vivado 2018.2 (cd $SUME_FOLDER && make)"),
    Step("sume-sim", "simulation of the whole SUME design (nf_test.py sim)",
         tools=("make", "python2", "vivado"),
         inputs=("$SUME_FOLDER/tools/scripts/nf_test.py", "$NF_DESIGN_DIR/test/sim_switch_default/run.py"),
         cwd="$SUME_FOLDER",
         commands=(("make", "-C", "$NF_DESIGN_DIR/test/sim_switch_default"),
                   ("python2", "$SUME_FOLDER/tools/scripts/nf_test.py", "sim", "--major", "switch",
                    "--minor", "default")),
         # nf_test.py exits 0 whatever the simulation did: only its "PASS (" lines say it passed
         passed_marker=r"^\s*PASS \(",
         next_hint="run.py in $NF_DESIGN_DIR/test/sim_switch_default applies the nf*_applied.pcap "
                   "packets; add --gui to the nf_test.py command above for waveforms"),
    Step("bitstream", "synthesis, place and route, bitstream (Vivado, hours)",
         tools=("make", "vivado"), inputs=("$NF_DESIGN_DIR/Makefile",), cwd="$NF_DESIGN_DIR",
         commands=(("make", "-C", "$NF_DESIGN_DIR"),),
         produces=(BITSTREAM,),
         # synthesis and implementation run as Vivado runs: their messages are in these logs only
         tool_logs=(RUNS_DIR + "/*/runme.log",),
         next_hint="Vivado's run logs and reports are in " + RUNS_DIR + "; a bitstream older than this "
                   "run means Vivado reused an existing project: remove $NF_DESIGN_DIR/hw/project first"),
    Step("report", "bitstream and timing summary", reads=(BITSTREAM, TIMING_REPORT, CONFIG_WRITES),
         internal=report_step),
)
STEP_NAMES = [s.name for s in STEPS]


# ---------------------------------------------------------------------------------------------
# Running a step and judging it

def scan_log(path: Path) -> List[Finding]:
    """Every line of a log that fails a step, and the critical warnings that do not."""
    lines = path.read_text(errors="replace").splitlines()
    findings = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(TRACEBACK_START):
            end = i + 1
            while end < len(lines) and (lines[end][:1].isspace() or not lines[end]):
                end += 1        # the frames; the first unindented line is the exception
            end = min(end, len(lines) - 1)
            findings.append(Finding(path, i, end, True, "a Python script crashed"))
            i = end + 1
            continue
        message = VIVADO_MESSAGE.match(line)
        if message and message.group(2) in STOP_MESSAGE_IDS:
            findings.append(Finding(path, i, i, True, "[%s] stops the build: %s"
                                    % (message.group(2), STOP_MESSAGE_IDS[message.group(2)])))
        elif message and message.group(1) == "CRITICAL WARNING":
            findings.append(Finding(path, i, i, False, ""))
        elif ERROR_LINE.search(line):
            findings.append(Finding(path, i, i, True, ""))
        elif SUME_SIM_MISMATCH.match(line):
            findings.append(Finding(path, i, i, True, "the SUME simulation's output differs from the expected packets"))
        i += 1
    return findings


def excerpt(findings: List[Finding]) -> List[str]:
    """The fatal lines with a line of context each side, at most EXCERPT_MAX_LINES, per file."""
    out, shown = [], 0
    by_file = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    for path, found in by_file.items():
        lines = path.read_text(errors="replace").splitlines()
        spans = []
        for f in found:
            first, last = max(f.first - 1, 0), min(f.last + 1, len(lines) - 1)
            if f.last - f.first > 5:        # a long traceback: its first line and where it ended
                spans.append((first, f.first))
                first = f.last - 3
            if spans and first <= spans[-1][1] + 1:
                spans[-1] = (spans[-1][0], max(spans[-1][1], last))
            else:
                spans.append((first, last))
        out.append("    %s:" % display(path))
        for k, (first, last) in enumerate(spans):
            if k and first > spans[k - 1][1] + 1:
                out.append("      ...")
            for n in range(first, last + 1):
                if shown == EXCERPT_MAX_LINES:
                    out.append("      ... (more in the log)")
                    return out
                text = lines[n] if len(lines[n]) <= EXCERPT_LINE_WIDTH else lines[n][:EXCERPT_LINE_WIDTH] + " ..."
                out.append("    %6d | %s" % (n + 1, text))
                shown += 1
    return out


def produced_problems(flow: Flow, step: Step, started: float) -> List[str]:
    problems = []
    for pattern in step.produces:
        expanded = flow.expand(pattern)
        matches = sorted(glob.glob(expanded, recursive=True)) if any(c in expanded for c in "*?[") else \
            [expanded] if os.path.exists(expanded) else []
        if not matches:
            problems.append("did not produce %s" % display(expanded))
        for match in matches:
            info = os.stat(match)
            if info.st_size == 0:
                problems.append("%s is empty" % display(match))
            elif info.st_mtime < started - FRESHNESS_SLACK_S:
                problems.append("%s is from an earlier run (%s), not written by this one"
                                % (display(match), time.strftime("%Y-%m-%d %H:%M", time.localtime(info.st_mtime))))
    return problems


def run_step(flow: Flow, step: Step, log_path: Path):
    """Runs the step's commands into its log; returns (problems, log lines to show, notes)."""
    started = time.time()
    cwd = flow.expand(step.cwd)
    Path(cwd).mkdir(parents=True, exist_ok=True)
    problems = []
    with open(str(log_path), "w") as log:
        for command in step.commands:
            argv = [flow.expand(a) for a in command]
            log.write("$ cd %s && %s\n" % (shell_words([cwd]), shell_words(argv)))
            log.flush()
            try:
                status = subprocess.run(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT).returncode
            except OSError as e:
                log.write("%s\n" % e)
                status = None
            log.write("[exit status %s]\n" % status)
            log.flush()
            if status != 0:
                problems.append("%s %s" % (argv[0], "could not be started" if status is None
                                           else "exited with status %d" % status))
                break

    logs = [log_path] + [Path(p) for pattern in step.tool_logs for p in sorted(glob.glob(flow.expand(pattern)))
                         if os.stat(p).st_mtime >= started - FRESHNESS_SLACK_S]
    findings = [f for path in logs for f in scan_log(path)]
    fatal = [f for f in findings if f.fatal]
    problems += list(dict.fromkeys(f.reason for f in fatal if f.reason))
    if fatal and not any(f.reason for f in fatal) and not problems:
        problems.append("its log reports errors")
    if not problems:
        problems += produced_problems(flow, step, started)
    if not problems and step.passed_marker:
        if not re.search(step.passed_marker, log_path.read_text(errors="replace"), re.M):
            problems.append("the tools exited 0 but never reported a pass (no line matching %r)" % step.passed_marker)
    if problems and not fatal:      # no line says why: show how the log ended
        end = line_count(log_path)
        fatal = [Finding(log_path, max(end - 8, 0), end - 1, True, "")]

    notes = []
    for path in logs:
        count = sum(1 for f in findings if f.path == path and not f.fatal)
        if count:
            notes.append("%d critical warning%s not on the stop list in %s"
                         % (count, "s" if count > 1 else "", display(path)))
    return problems, excerpt(fatal) if problems else [], notes


def line_count(path: Path) -> int:
    return len(path.read_text(errors="replace").splitlines())


# ---------------------------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Build the NetFPGA SUME bitstream of %s.p4, step by step (P4-NetFPGA, SDNet and Vivado 2018.2)."
                    % PROGRAM)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--from", dest="start", choices=STEP_NAMES, metavar="STEP",
                       help="resume at STEP (the earlier steps' results must be there): " + ", ".join(STEP_NAMES))
    which.add_argument("--only", choices=STEP_NAMES, metavar="STEP", help="run STEP alone (after the check)")
    which.add_argument("--check", action="store_true", help="check tools, settings and sources, build nothing")
    which.add_argument("--list", action="store_true", help="list the steps")
    which.add_argument("--dry-run", action="store_true", help="print each step's commands, run nothing")
    parser.add_argument("--hw-dir", type=Path, default=HW_DIR,
                        help="where %s.p4 and testdata/gen_testdata.py are (default: %s)"
                             % (PROGRAM, display(HW_DIR)))
    parser.add_argument("--build-dir", type=Path,
                        help="commands.txt (make -C hw/netfpga writes it), logs and results (default: HW_DIR/build)")
    return parser.parse_args(argv)


def print_steps(flow: Flow, with_commands: bool):
    for k, step in enumerate(STEPS, 1):
        print("%2d  %-14s %s" % (k, step.name, step.title))
        if not with_commands:
            continue
        if step.internal:
            print("      (done by this driver)")
        for command in step.commands:
            print("      $ cd %s && %s" % (flow.expand(step.cwd), shell_words(flow.expand(a) for a in command)))


def main(argv=None) -> int:
    args = parse_args(argv)
    hw_dir = args.hw_dir.resolve()
    flow = Flow(hw_dir, (args.build_dir or hw_dir / "build").resolve(), os.environ)
    if args.list or args.dry_run:
        print_steps(flow, with_commands=args.dry_run)
        return 0

    check_only = args.check or args.only == "check"
    if check_only:
        flow.selected = list(STEPS[1:])
    elif args.only:
        flow.selected = [STEPS[STEP_NAMES.index(args.only)]]
    else:
        flow.selected = list(STEPS[max(STEP_NAMES.index(args.start or "check"), 1):])
    to_run = [STEPS[0]] + ([] if check_only else flow.selected)     # the check always comes first
    if not (args.start or args.only or check_only) and flow.log_dir.is_dir():
        shutil.rmtree(str(flow.log_dir))        # a full build: no logs of an earlier one left to mislead

    flow_started = time.time()
    for step in to_run:
        number = STEP_NAMES.index(step.name) + 1
        print("[%d/%d] %s ... " % (number, len(STEPS), step.name), end="", flush=True)
        started = time.time()
        log_path = flow.log_dir / ("%02d-%s.log" % (number, step.name))
        try:
            if step.internal:
                problems, info = step.internal(flow)
                shown, notes = [], []
            else:
                flow.log_dir.mkdir(parents=True, exist_ok=True)
                problems, shown, notes = run_step(flow, step, log_path)
                info = []
        except KeyboardInterrupt:
            print("interrupted")
            print("build interrupted in step %s%s"
                  % (step.name, "" if step.internal else "; log: " + display(log_path)))
            return EXIT_INTERRUPTED
        elapsed = format_elapsed(time.time() - started)
        if problems:
            print("FAILED (%s)" % elapsed)
            report_failure(step, problems, shown, None if step.internal else log_path)
            if step is STEPS[0]:
                return EXIT_NOT_READY
            print("build stopped at step %d of %d (%s) after %s; resume with: make -C hw/netfpga FROM=%s"
                  % (number, len(STEPS), step.name, format_elapsed(time.time() - flow_started), step.name))
            return EXIT_STEP_FAILED
        print("ok (%s)%s" % (elapsed, "".join("; " + n for n in notes)))
        for line in info:
            print("    " + line)
    if not check_only:
        print("done: %d step%s in %s" % (len(to_run), "s" if len(to_run) > 1 else "",
                                          format_elapsed(time.time() - flow_started)))
    return 0


def report_failure(step: Step, problems: List[str], shown: List[str], log_path: Optional[Path]):
    indent = "" if step is STEPS[0] else "    "      # the check's lines come laid out
    for problem in problems:
        print(indent + problem)
    for line in shown:
        print(line)
    if log_path:
        print("    full log: %s" % display(log_path))
    if step.next_hint:
        print("    next: " + step.next_hint)


if __name__ == "__main__":
    sys.exit(main())
