#!/bin/sh
# tests/layers/with_fashion_mnist.sh: runs its arguments as a command where Debian's Fashion-MNIST is installed
# ($SNACK_FASHION_MNIST_DIR, else /usr/share/datasets/fashion-mnist); otherwise exits 77, CTest's skip, saying why.
d=${SNACK_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
[ -f "$d/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $d (scripts/setup.sh installs it)"; exit 77; }
exec "$@"
