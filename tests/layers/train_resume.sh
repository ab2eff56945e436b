#!/usr/bin/env sh
# tests/layers/train_resume.sh SNACK_TRAIN WORKDIR: a run killed after its first epoch and resumed from its checkpoint
# ends exactly where an uninterrupted run ends (same losses and accuracies, SET rewiring and Adam state included);
# a truncated and a corrupted checkpoint are refused with a message, changing nothing. Skips (77) without the MNIST
# digits that scripts/setup.sh converts.
set -u
T=$1
W=$2
rm -rf "$W" && mkdir -p "$W"
common="--data mnist --hidden 64 --sparsity 0.9 --dst set --dst-every 5 --epochs 2 --train-limit 2000 --lr 0.01 --quiet --curves $W/c.png"
"$T" $common --checkpoint "$W/whole.ckpt" > "$W/whole.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "setup.sh" "$W/whole.log"; then cat "$W/whole.log"; exit 77; fi
[ $rc -eq 0 ] || { cat "$W/whole.log"; exit 1; }
"$T" $common --checkpoint "$W/part.ckpt" --stop-after 1 > "$W/part1.log" 2>&1 || { cat "$W/part1.log"; exit 1; }
grep -q "stopped after epoch 1 of 2" "$W/part1.log" || { echo "no stop line"; cat "$W/part1.log"; exit 1; }
# Damaged checkpoints: cut, and one byte changed; each refused, the file unchanged.
head -c 1000 "$W/part.ckpt" > "$W/cut.ckpt"
before=$(cksum < "$W/cut.ckpt")
"$T" $common --checkpoint "$W/cut.ckpt" --resume > "$W/cut.log" 2>&1 && { echo "a truncated checkpoint was accepted"; exit 1; }
[ "$(cksum < "$W/cut.ckpt")" = "$before" ] || { echo "a refused checkpoint was changed"; exit 1; }
grep -q "checkpoint $W/cut.ckpt: .*truncated\|checkpoint $W/cut.ckpt: damaged" "$W/cut.log" || { cat "$W/cut.log"; exit 1; }
cp "$W/part.ckpt" "$W/flip.ckpt"
printf 'X' | dd of="$W/flip.ckpt" bs=1 seek=2000 conv=notrunc 2>/dev/null
"$T" $common --checkpoint "$W/flip.ckpt" --resume > "$W/flip.log" 2>&1 && { echo "a corrupted checkpoint was accepted"; exit 1; }
grep -q "damaged or truncated" "$W/flip.log" || { cat "$W/flip.log"; exit 1; }
"$T" $common --checkpoint "$W/part.ckpt" --resume > "$W/part2.log" 2>&1 || { cat "$W/part2.log"; exit 1; }
grep -q "resumed from $W/part.ckpt after epoch 1" "$W/part2.log" || { cat "$W/part2.log"; exit 1; }
# The epoch lines without their time and memory fields.
strip() { grep "^epoch 2/2" "$1" | sed -E 's/  model.*//'; }
a=$(strip "$W/whole.log"); b=$(strip "$W/part2.log")
echo "uninterrupted: $a"
echo "resumed:       $b"
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "the resumed run differs"; exit 1; }
