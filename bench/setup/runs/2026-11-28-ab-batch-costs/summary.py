import csv, sys, glob, os
for d in sorted(glob.glob("*/results.csv")):
    run = d.split("/")[-2]
    for r in csv.DictReader(open(d)):
        lvl = r["fraction_of_saturation"] or r["offered_per_s"]
        if r["flood_per_s"] != "0": lvl = "flood"
        if r["offered_per_s"] in ("10000",) or r["fraction_of_saturation"] or r["flood_per_s"] != "0":
            print(f'{run:6} {r["topology"]:12} {lvl:6} off={r["offered_per_s"]:>6} sat={r["saturation_per_s"]:>8} set={r["set_up"]}/{r["flows"]} p50={r["p50_ms"]:>6} p99={r["p99_ms"]:>7} durable={r["durable_mean_ms"]} written={r["written_mean_ms"]} total={r["total_mean_ms"]}')
