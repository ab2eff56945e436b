"""bench/annotated_csv.py: the CSV files the Python benchmarks write and their reports read: '#' lines carrying the
run's metadata (device, date, commit, arguments), then a header and the rows."""
import csv


def read(path):
    """(the '#' lines joined, without their '#', the rows as dicts of strings)."""
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    meta = " ".join(l[1:].strip() for l in lines if l.startswith("#"))
    return meta, list(csv.DictReader([l for l in lines if not l.startswith("#")]))


def write(path, meta, rows):
    """`meta` as one '#' line, then the rows (dicts with the same keys)."""
    with open(path, "w", newline="") as f:
        f.write(f"# {meta}\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
