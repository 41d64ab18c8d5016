"""Young-collection pauses after the warm-up per topology and JVM kind in each run (GC logs ctl-PID.log.gz, sw-PID.log.gz;
the topologies ran in order, edge-border first: its controller and its two switches have the lowest PIDs)."""
import csv, glob, gzip, os, re
PAUSE = re.compile(r"^\[(\d+\.\d+)s\].*Pause Young.* (\d+(?:\.\d+)?)ms$")
AFTER = 60   # seconds from the JVM's start: the warm-up (55 s of flows) left out
def pid(f): return int(re.search(r"-(\d+)\.log\.gz$", f).group(1))
for run in sorted(d for d in os.listdir(".") if os.path.isdir(d) and glob.glob(d + "/results.csv")):
    setups = {}
    for r in csv.DictReader(open(run + "/results.csv")):
        setups[r["topology"]] = setups.get(r["topology"], 0) + int(r["set_up"])
    ctl = sorted(glob.glob(f"{run}/ctl-*.log.gz"), key=pid); sw = sorted(glob.glob(f"{run}/sw-*.log.gz"), key=pid)
    files = {("edge-border", "controller"): ctl[:1], ("edge-border", "switches"): sw[:2],
             ("fabric2x2", "controller"): ctl[1:2], ("fabric2x2", "switches"): sw[2:]}
    for (topo, kind), fs in files.items():
        ms = sorted(float(m.group(2)) for f in fs for m in map(PAUSE.search, gzip.open(f, "rt")) if m and float(m.group(1)) > AFTER)
        if not ms or topo not in setups:
            continue
        q = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))]
        print(f"{run:6} {topo:11} {kind:10} setups {setups[topo]:7d}  young pauses {len(ms):5d} "
              f"({1000 * len(ms) / setups[topo]:5.2f} per 1000 setups)  p50 {q(0.5):5.1f}  p90 {q(0.9):5.1f}  "
              f"max {ms[-1]:6.1f} ms  total {sum(ms) / 1000:5.2f} s")
