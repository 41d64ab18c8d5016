import csv, glob, collections
sat = {}
for d in sorted(glob.glob("*/results.csv")):
    run = d.split("/")[-2]
    for r in csv.DictReader(open(d)):
        if r["fraction_of_saturation"]: sat[(run, r["topology"], r["offered_per_s"])] = (r["fraction_of_saturation"], float(r["setups_per_s"]))
rows = collections.defaultdict(dict)
for d in sorted(glob.glob("*/profile.csv")):
    run = d.split("/")[-2]
    for r in csv.DictReader(open(d)):
        k = (run, r["topology"], r["offered_per_s"])
        if r["flood_per_s"] != "0" or k not in sat: continue
        rows[k][(r["process"], r["threads"])] = float(r["cpu_percent_of_a_core"])
out = []
for k, v in rows.items():
    run, t, off = k; frac, rate = sat[k]
    us = lambda pct: pct / 100 / rate * 1e6
    g = lambda name: us(v.get(("controller", name), 0))
    out.append((t, frac, run, f"{t:12} {frac} {run:6} rate {rate:7.0f} setups {g('fabric-setups'):5.1f} commit {g('nat-state-commi'):5.1f} writes {g('fabric-writes'):5.1f} grpc {g('gRPC I/O'):5.1f} controller {us(sum(p for (a,b),p in v.items() if a=='controller')):6.1f} switches {us(sum(p for (a,b),p in v.items() if a=='softswitch')):6.1f}"))
for o in sorted(out): print(o[3])
