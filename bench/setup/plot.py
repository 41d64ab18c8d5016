"""Draws results.csv of the setup benchmark (SVG, no plotting library needed): sessions set up per
second against the offered rate, and the first packet's delay (p50, p99), on log scales. The ramp's
levels are lines; the levels at 10/50/90 % of saturation are open circles (flood rows not drawn)."""
import csv
import math
import sys

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["flood_per_s"] == "0"]
topologies = list(dict.fromkeys(r.get("topology", "border") for r in rows))
COLOURS = ["#4878a8", "#d08040", "#58a058", "#a05890", "#b04848", "#808030"]
W, H, LEFT, TOP, GAP = 380, 260, 60, 40, 90


def log_scale(v, lo, hi, size):
    return (math.log10(max(v, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * size


def panel(x0, title, series, y_lo, y_hi, y_label, target=None):
    out = [f'<text x="{x0}" y="{TOP - 18}" font-size="13">{title}</text>',
           f'<line x1="{x0}" y1="{TOP + H}" x2="{x0 + W}" y2="{TOP + H}" stroke="black"/>',
           f'<line x1="{x0}" y1="{TOP}" x2="{x0}" y2="{TOP + H}" stroke="black"/>']
    x_lo, x_hi = 10, 100000
    for v in (10, 100, 1000, 10000, 100000):
        x = x0 + log_scale(v, x_lo, x_hi, W)
        out.append(f'<text x="{x:.0f}" y="{TOP + H + 16}" text-anchor="middle">{v:,}</text>')
    out.append(f'<text x="{x0 + W / 2}" y="{TOP + H + 34}" text-anchor="middle">offered new flows per second</text>')
    v = y_lo
    while v <= y_hi:
        y = TOP + H - log_scale(v, y_lo, y_hi, H)
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.0f}" text-anchor="end">{v:g}</text>')
        out.append(f'<line x1="{x0}" y1="{y:.0f}" x2="{x0 + W}" y2="{y:.0f}" stroke="#ddd"/>')
        v *= 10
    out.append(f'<text x="{x0 - 45}" y="{TOP + H / 2}" transform="rotate(-90 {x0 - 45} {TOP + H / 2})" '
               f'text-anchor="middle">{y_label}</text>')
    if target:
        value, label = target
        y = TOP + H - log_scale(value, y_lo, y_hi, H)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + W}" y2="{y:.1f}" stroke="red" stroke-dasharray="4"/>')
        out.append(f'<text x="{x0 + W - 4}" y="{y - 4:.1f}" text-anchor="end" fill="red">{label}</text>')
    for k, (name, colour, values, extra) in enumerate(series):
        def xy(points):
            return sorted((x0 + log_scale(float(x), x_lo, x_hi, W), TOP + H - log_scale(float(v), y_lo, y_hi, H))
                          for x, v in points if v != "")
        points = xy(values)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                   + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in points]
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="none" stroke="{colour}" stroke-width="1.5"/>'
                for x, y in xy(extra)]
        out.append(f'<text x="{x0 + 10}" y="{TOP + 14 + 14 * k}" fill="{colour}">{name}</text>')
    return out


svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * W + GAP + LEFT + 20}" height="{H + TOP + 50}" '
       'font-family="sans-serif" font-size="11">']


def of(topology, field, fractions=False):
    """(offered, value) of the ramp's rows, or with fractions of the rows at a fraction of saturation."""
    return [(r["offered_per_s"], r[field]) for r in rows if r.get("topology", "border") == topology
            and bool(r.get("fraction_of_saturation")) == fractions]


svg += panel(LEFT, "sessions set up per second",
             [(f"set up ({t})", COLOURS[i], of(t, "setups_per_s"), of(t, "setups_per_s", True))
              for i, t in enumerate(topologies)]
             + [("offered", "#999", of(topologies[0], "offered_per_s"), [])], 10, 100000, "per second",
             (10000, "target 10 000/s"))
svg += panel(LEFT + W + GAP, "first packet's delay (ms); open: 10/50/90 % of saturation",
             [(f"{q} ({t})", COLOURS[(2 * i + j) % len(COLOURS)], of(t, f"{q}_ms"), of(t, f"{q}_ms", True))
              for i, t in enumerate(topologies) for j, q in enumerate(("p50", "p99"))],
             1, 100000, "milliseconds", (10, "target p99 10 ms"))
svg.append("</svg>")
open(sys.argv[2], "w").write("\n".join(svg))
