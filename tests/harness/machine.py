"""What a benchmark ran on, for its log: runs on different machines compare only within themselves."""
import os
import pathlib
import platform


def describe():
    """e.g. '2 CPUs, Intel(R) Xeon(R) Processor, Linux 6.12.57'."""
    lines = pathlib.Path("/proc/cpuinfo").read_text().splitlines()
    model = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "CPU model unknown")
    return f"{os.cpu_count()} CPUs, {model}, Linux {platform.release()}"
