#!/usr/bin/env python3
"""bench/spdnn/report.py: joins bench-spdnn runs (their CSVs, and their Markdown for the device, date and commit) into
the exact-work table of bench/results/spdnn-exact-work-h200.md (Markdown, on stdout): per configuration the fused
engine with row reuse beside the committed table's rate, and each of the tiled engine's exact-work runs (fp64: equal
outputs merged; fp64-all: every output computed) with its rate, its ratio to XY-2021, its time over its floor (the
activation bytes at the copy bandwidth) and the tiles in each mode; issue 37's targets marked met or missed.

Runs on another device than the committed table's (--committed-device) are not compared with it; where fewer than the
12 configurations ran, the targets say how many. A tiled run that threw (no rate, not passed: bench-spdnn's log says
why, out of memory for one) is "did not run", and its target not met.

usage: report.py --committed bench/results/spdnn-h200.csv RUN.csv RUN.md [RUN.csv RUN.md ...] > table.md"""
import argparse
import csv
import re
import sys


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def header(md_path):
    """The 'Device: D. Date: Y. Commit: C.' line of a bench-spdnn Markdown file, as a dict."""
    with open(md_path) as f:
        for line in f:
            m = re.match(r"Device: (.*)\. Date: (.*)\. Commit: (.*)\.\s*$", line)
            if m:
                return {"device": m.group(1), "date": m.group(2), "commit": m.group(3)}
    sys.exit(f"report.py: {md_path} has no 'Device: ... Date: ... Commit: ...' line")


def kinds_of(row):
    return [k[len("exact_"):-len("_teraedges")] for k in row if k.startswith("exact_") and k.endswith("_teraedges")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--committed", required=True, help="the committed fused-engine CSV (row reuse) to compare with")
    ap.add_argument("--committed-device", default="NVIDIA H200",
                    help="the device of the committed table; runs on another are not compared with it (NVIDIA H200)")
    ap.add_argument("--noise", type=float, default=0.03,
                    help="run-to-run spread of the fused engine's rate: slower by less counts as the same (0.03)")
    ap.add_argument("runs", nargs="+", help="pairs of a bench-spdnn CSV and its Markdown")
    a = ap.parse_args()
    if len(a.runs) % 2:
        sys.exit("report.py: give each run's CSV and Markdown, in pairs")
    committed = {(int(r["neurons"]), int(r["layers"])): float(r["teraedges"]) for r in load(a.committed)}
    rows, headers = [], []
    for csv_path, md_path in zip(a.runs[0::2], a.runs[1::2]):
        headers.append((csv_path, header(md_path)))
        rows += load(csv_path)
    if not rows:
        sys.exit("report.py: the CSVs hold no rows")
    rows.sort(key=lambda r: (int(r["neurons"]), int(r["layers"])))
    kinds = kinds_of(rows[0])
    devices = {h["device"] for _, h in headers}
    # The fused engine's rate depends on the device: runs on another than the committed table's are not compared.
    same_device = devices == {a.committed_device}
    if not same_device:
        committed = {}
    configurations = len({(int(r["neurons"]), int(r["layers"])) for r in rows})
    scope = "every configuration" if configurations >= 12 else f"every configuration run ({configurations} of 12)"
    out = []
    out.append("Runs: " + "; ".join(f"`{p}`: {h['device']}, {h['date']}, commit {h['commit']}" for p, h in headers) + ".")
    out.append("")
    cols = ["neurons x layers", "data", "with row reuse: fused (TE/s)", "vs committed"]
    for k in kinds:
        cols += [f"exact {k} (TE/s)", "vs XY-2021", "x floor", "tiles sparse / tensor / embedded"]
    cols += ["XY-2021 (TE/s)", "categories", "target: exact >= 2x XY-2021"]
    out.append("| " + " | ".join(cols) + " |")
    out.append("|" + "---|" * len(cols))
    met_every = {k: True for k in kinds}   # among the configurations where the kind ran
    not_run = {k: [] for k in kinds}
    best = (0.0, "")
    reuse_slower, reuse_within = [], []
    for r in rows:
        n, l = int(r["neurons"]), int(r["layers"])
        xy = float(r["xy2021"])
        fused = float(r["teraedges"])
        before = committed.get((n, l))
        cells = [f"{n} x {l}", r["data"], f"{fused:.2f}", f"{fused / before:.2f}x" if before else "-"]
        if before and fused < before:
            (reuse_slower if fused < before * (1 - a.noise) else reuse_within).append(f"{n} x {l} ({fused / before:.3f}x)")
        passed = r["pass"] == "1"
        failed_to_run = False
        target_cells = []
        for k in kinds:
            rate = float(r[f"exact_{k}_teraedges"])
            floor = float(r.get(f"exact_{k}_floor_seconds") or 0)
            secs = float(r[f"exact_{k}_seconds"])
            ok = r[f"exact_{k}_pass"] == "1"
            ran = ok or rate > 0   # a run that threw (bench-spdnn's log says why) has no rate and no categories
            passed = passed and (ok or not ran)
            failed_to_run = failed_to_run or not ran
            cells += [(f"{rate:.2f}" + ("" if ok else " (FAIL)")) if ran else "did not run",
                      f"{rate / xy:.2f}x" if xy and ran else "-", f"{secs / floor:.2f}x" if floor > 0 else "-",
                      " / ".join(r[f"exact_{k}_{m}_tiles"] for m in ("sparse", "tensor", "embedded"))]
            hit = ok and xy > 0 and rate >= 2 * xy
            met_every[k] = met_every[k] and (hit or not ran)
            if not ran:
                not_run[k].append(f"{n} x {l}")
            target_cells.append(f"{k} {'met' if hit else '**missed**' if ran else '**not run**'}")
            if ok and rate > best[0]:
                best = (rate, f"{n} x {l}, {k}")
        verdict = "**differ**" if not passed else "exact, of those run" if failed_to_run else "exact"
        cells += [f"{xy:.1f}", verdict, ", ".join(target_cells)]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for k in kinds:
        if not_run[k]:
            ran = configurations - len(not_run[k])
            out.append(f"- Exact work ({k}) at least 2x XY-2021 in every configuration where it ran ({ran} of 12): "
                       f"{'met' if met_every[k] else '**missed**'}; **not run** at " + ", ".join(not_run[k]) + ".")
        else:
            out.append(f"- Exact work ({k}) at least 2x XY-2021 in {scope}: "
                       f"{'met' if met_every[k] else '**missed**'}.")
    out.append(f"- Exact work, best configuration, at least 200 TE/s: {best[0]:.2f} ({best[1]}): "
               f"{'met' if best[0] >= 200 else '**missed**'}.")
    if same_device:
        out.append(f"- With row reuse, no configuration slower than the committed table by more than the {a.noise:.0%} "
                   "run-to-run spread: " + ("met" if not reuse_slower else "**missed** at " + ", ".join(reuse_slower)) +
                   ("; slower within the spread: " + ", ".join(reuse_within) if reuse_within else "") + ".")
    else:
        out.append(f"- With row reuse: not compared; the committed table is from the {a.committed_device}, these runs "
                   "from " + ", ".join(sorted(devices)) + ".")
    if len(devices) > 1:
        out.append(f"- Note: the runs come from {len(devices)} devices: " + ", ".join(sorted(devices)) + ".")
    print("\n".join(out))


if __name__ == "__main__":
    main()
