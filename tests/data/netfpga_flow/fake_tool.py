"""Stands in for one Xilinx or P4-NetFPGA tool in tests/test_netfpga_flow.py.

    fake_tool.py TOOL [ARGS...]

It records which call it was in $FAKE_TRACE, prints the recorded log the scenario ($FAKE_SCENARIO,
JSON) gives for that call, writes the files the real tool would write and exits with the scenario's
status. A call is named by the tool, or for python2 by the script it runs, for make by its last
target (else the directory of -C).
"""
import json
import os
import shutil
import sys

RECORDED = os.path.dirname(os.path.abspath(__file__))


def call_name(tool, args):
    if tool == "python2":
        return "python2 " + args[0] if args[0].startswith("-") else os.path.basename(args[0])
    if tool == "make":
        targets, directory, i = [], ".", 0
        while i < len(args):
            if args[i] == "-C":
                directory, i = args[i + 1], i + 2
                continue
            if not args[i].startswith("-"):
                targets.append(args[i])
            i += 1
        return "make " + (targets[-1] if targets else os.path.basename(os.path.normpath(directory)))
    if tool == "vivado" and "-version" in args:
        return "vivado -version"
    return tool


def main():
    tool, args = sys.argv[1], sys.argv[2:]
    name = call_name(tool, args)
    with open(os.environ["FAKE_TRACE"], "a") as trace:
        trace.write(name + "\n")
    with open(os.environ["FAKE_SCENARIO"]) as f:
        behaviour = json.load(f).get(name)
    if behaviour is None:
        sys.stderr.write("fake %s: the scenario has nothing recorded for %r\n" % (tool, name))
        return 97
    if behaviour.get("log"):
        with open(os.path.join(RECORDED, behaviour["log"])) as f:
            sys.stdout.write(f.read())
    for item in behaviour.get("creates", []):
        path = os.path.expandvars(item["path"])
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        if "from" in item:
            shutil.copyfile(os.path.join(RECORDED, item["from"]), path)
        else:
            with open(path, "w") as f:
                f.write(os.path.expandvars(item.get("text", "output of the fake %s\n" % name)))
            if item.get("executable"):
                os.chmod(path, 0o755)
    return behaviour.get("exit", 0)


if __name__ == "__main__":
    sys.exit(main())
