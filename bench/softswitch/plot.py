"""Draws results.csv of bench/softswitch as two bar charts in one SVG (no plotting library):
P4Runtime write rate by batch size against the 200 000 entries/s target, and interpreter lookup
rate with 1 and 1 000 000 session entries."""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
writes = [r for r in rows if r["kind"] == "write"]
lookups = [r for r in rows if r["kind"] == "lookup"]
memory = next((r for r in rows if r["kind"] == "memory"), None)

bar, gap, left, top, height = 90, 40, 70, 50, 260
panel = left + len(max(writes, lookups, key=len)) * (bar + gap) + 40
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * panel}" height="{top + height + 110}" '
       'font-family="sans-serif" font-size="11">']


def chart(x0, title, items, label, value_text, target=None, target_text=""):
    peak = max([float(r["value"]) for r in items] + [target or 0]) * 1.15
    svg.append(f'<text x="{x0 + left}" y="20" font-size="14">{title}</text>')
    svg.append(f'<line x1="{x0 + left}" y1="{top + height}" x2="{x0 + panel - 20}" y2="{top + height}" stroke="black"/>')
    for i, r in enumerate(items):
        v = float(r["value"])
        x = x0 + left + 10 + i * (bar + gap)
        h = v / peak * height
        svg.append(f'<rect x="{x}" y="{top + height - h:.1f}" width="{bar}" height="{h:.1f}" fill="#4878a8"/>')
        svg.append(f'<text x="{x + bar / 2}" y="{top + height - h - 4:.1f}" text-anchor="middle">{value_text(v)}</text>')
        for k, line in enumerate(label(r)):
            svg.append(f'<text x="{x + bar / 2}" y="{top + height + 16 + 14 * k}" text-anchor="middle">{line}</text>')
    if target:
        y = top + height - target / peak * height
        svg.append(f'<line x1="{x0 + left}" y1="{y:.1f}" x2="{x0 + panel - 20}" y2="{y:.1f}" stroke="red" stroke-dasharray="4"/>')
        svg.append(f'<text x="{x0 + panel - 22}" y="{y - 4:.1f}" text-anchor="end" fill="red">{target_text}</text>')


chart(0, "P4Runtime Write of session entries (median batch)", writes,
      lambda r: [r["case"], "table 0 → 1M"], lambda v: f"{v / 1000:.0f}k/s", 200_000, "target 200k entries/s")
chart(panel, "interpreter, NAT64 session path: packets/s", lookups,
      lambda r: r["case"].replace(" (", "|(").split("|"), lambda v: f"{v / 1000:.0f}k")
jit = [r for r in rows if r["kind"] == "jit"]
if jit:
    # Rounds in turns: the tree interpreter, then the compiled blocks, twice.
    svg.append(f'<text x="{panel + left}" y="{top + height + 96}">1 entry, in turns: '
               + ", ".join(f'{r["case"][9:-1]} {float(r["value"]) / 1000:.0f}k' for r in jit) + '</text>')
if memory:
    svg.append(f'<text x="{panel + left}" y="{top + height + 80}">heap per session entry: {float(memory["value"]):.0f} bytes '
               f'({memory["detail"]})</text>')
svg.append("</svg>")
open(sys.argv[2], "w").write("\n".join(svg))
