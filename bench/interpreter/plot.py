"""Draws results.csv of the interpreter benchmark as a bar chart (SVG, no plotting library needed)."""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
bar, gap, top, left = 60, 30, 40, 60
width = left + 20 + len(rows) * (bar + gap)
height = 320
peak = max(float(r["mpps"]) for r in rows) * 1.15
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 90}" font-family="sans-serif" font-size="11">',
       f'<text x="{left}" y="20" font-size="14">softswitch interpreter, one core: million packets per second (median of 3)</text>',
       f'<line x1="{left}" y1="{top + height}" x2="{width - 10}" y2="{top + height}" stroke="black"/>']
for i, r in enumerate(rows):
    v = float(r["mpps"])
    x = left + 10 + i * (bar + gap)
    h = v / peak * height
    colour = "#4878a8" if r["family"] == "ipv4" else "#d08040"
    svg.append(f'<rect x="{x}" y="{top + height - h:.1f}" width="{bar}" height="{h:.1f}" fill="{colour}"/>')
    svg.append(f'<text x="{x + bar / 2}" y="{top + height - h - 4:.1f}" text-anchor="middle">{v:.2f}</text>')
    for k, label in enumerate([r["family"], f'{r["frame_bytes"]} B', f'{int(r["entries"]):,} routes']):
        svg.append(f'<text x="{x + bar / 2}" y="{top + height + 16 + 14 * k}" text-anchor="middle">{label}</text>')
target = top + height - 1.0 / peak * height
svg.append(f'<line x1="{left}" y1="{target:.1f}" x2="{width - 10}" y2="{target:.1f}" stroke="red" stroke-dasharray="4"/>')
svg.append(f'<text x="{width - 12}" y="{target - 4:.1f}" text-anchor="end" fill="red">target: 1 Mpps (64 B, 100 000 routes)</text>')
svg.append("</svg>")
open(sys.argv[2], "w").write("\n".join(svg))
