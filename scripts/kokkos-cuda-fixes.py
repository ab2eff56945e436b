#!/usr/bin/env python3
# scripts/kokkos-cuda-fixes.py: makes the Kokkos 3.4.1 source (packages/kokkos of Debian's trilinos
# source package, extracted by scripts/setup.sh) build its CUDA backend with nvcc 13 for sm_90 (H200).
# Kokkos 3.4.1 predates CUDA 13 and Hopper: its nvcc_wrapper defaults to an architecture nvcc 13
# refuses, its half_t conversions do not compile against CUDA 13's cuda_fp16.h, cudaMemPrefetchAsync
# changed its signature, and it has no sm_90 architecture option (an sm_80 build does not run on the
# H200, because Kokkos::initialize aborts when the compiled major version differs from the device's).
# Each fix finds its place by a short anchor in the extracted source and puts our own code there; a fix
# already applied is left alone, so running the script twice changes nothing, and a missing anchor
# stops the script with a message naming the file and the fix. Usage: kokkos-cuda-fixes.py <kokkos-src>
import re
import sys
from pathlib import Path


class Edit:
    """One change in one file: `anchor` (a regular expression, ^ and $ at line ends) must match
    exactly once unless `done` (a string only our code contains) is already in the file; `new` builds
    the text that replaces the match from the match."""

    def __init__(self, anchor, new, done, flags=0):
        self.anchor = re.compile(anchor, re.MULTILINE | flags)
        self.new, self.done = new, done


def keep_and_append(added):
    return lambda m: m.group(0) + added


# Fix 1 rule: nvcc_wrapper's default architecture must be one nvcc 13 accepts (sm_90).
FIX1 = ("bin/nvcc_wrapper", [
    Edit(r'^default_arch="sm_35"$',
         lambda m: 'default_arch="sm_90"  # nvcc 13 refuses sm_35 (kokkos-cuda-fixes.py, fix 1)',
         'default_arch="sm_90"'),
])

# Fix 2 rule: under CUDA >= 11.1, half_t conversions go through half_t's underlying __half.
HALF_CONVERSIONS = r'''#else  // CUDA >= 11.1: rewritten by kokkos-cuda-fixes.py (fix 2)
// cuda_fp16.h's conversions take and give __half, which half_t converts to only explicitly, so each
// one is given half_t::impl_type(v). CUDA 13 has no __half2double: half -> float -> double is exact.

KOKKOS_INLINE_FUNCTION
half_t cast_to_half(float v) { return half_t(__float2half(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(bool v) { return half_t(__float2half(v ? 1.0F : 0.0F)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(double v) { return half_t(__double2half(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(short v) { return half_t(__short2half_rn(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(unsigned short v) { return half_t(__ushort2half_rn(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(int v) { return half_t(__int2half_rn(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(unsigned int v) { return half_t(__uint2half_rn(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(long long v) { return half_t(__ll2half_rn(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(unsigned long long v) { return half_t(__ull2half_rn(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(long v) { return cast_to_half(static_cast<long long>(v)); }
KOKKOS_INLINE_FUNCTION
half_t cast_to_half(unsigned long v) {
  return cast_to_half(static_cast<unsigned long long>(v));
}

#define KOKKOS_SNACK_FROM_HALF(TYPE, EXPR)                               \
  template <class T>                                                      \
  KOKKOS_INLINE_FUNCTION std::enable_if_t<std::is_same<T, TYPE>::value, T> \
  cast_from_half(half_t v) {                                              \
    const half_t::impl_type h = half_t::impl_type(v);                     \
    return static_cast<T>(EXPR);                                          \
  }
KOKKOS_SNACK_FROM_HALF(float, __half2float(h))
KOKKOS_SNACK_FROM_HALF(bool, __half2float(h) != 0.0F)
KOKKOS_SNACK_FROM_HALF(double, __half2float(h))
KOKKOS_SNACK_FROM_HALF(short, __half2short_rz(h))
KOKKOS_SNACK_FROM_HALF(unsigned short, __half2ushort_rz(h))
KOKKOS_SNACK_FROM_HALF(int, __half2int_rz(h))
KOKKOS_SNACK_FROM_HALF(unsigned int, __half2uint_rz(h))
KOKKOS_SNACK_FROM_HALF(long long, __half2ll_rz(h))
KOKKOS_SNACK_FROM_HALF(unsigned long long, __half2ull_rz(h))
KOKKOS_SNACK_FROM_HALF(long, __half2ll_rz(h))
KOKKOS_SNACK_FROM_HALF(unsigned long, __half2ull_rz(h))
#undef KOKKOS_SNACK_FROM_HALF
#endif
}  // namespace Experimental'''
FIX2 = ("core/src/Cuda/Kokkos_Cuda_Half.hpp", [
    # From the CUDA 11.1 branch's #else to the end of namespace Experimental.
    Edit(r'#else  // CUDA 11\.1 versions follow\n.*?\n#endif\n\}  // namespace Experimental',
         lambda m: HALF_CONVERSIONS, 'kokkos-cuda-fixes.py (fix 2)', re.DOTALL),
])

# Fix 3 rule: from CUDA 13 on, cudaMemPrefetchAsync takes a cudaMemLocation and flags.
FIX3 = ("core/src/Cuda/Kokkos_CudaSpace.cpp", [
    Edit(r'^( *)CUDA_SAFE_CALL\(cudaMemPrefetchAsync\(ptr, bytes, space\.cuda_device\(\),\s*'
         r'space\.cuda_stream\(\)\)\);',
         lambda m: ('#if CUDA_VERSION >= 13000  // kokkos-cuda-fixes.py (fix 3)\n'
                    '{0}cudaMemLocation to{{}};\n'
                    '{0}to.type = cudaMemLocationTypeDevice;\n'
                    '{0}to.id   = space.cuda_device();\n'
                    '{0}CUDA_SAFE_CALL(\n'
                    '{0}    cudaMemPrefetchAsync(ptr, bytes, to, 0, space.cuda_stream()));\n'
                    '#else\n{1}\n#endif').format(m.group(1), m.group(0)),
         'kokkos-cuda-fixes.py (fix 3)'),
])

# Fix 4 rule: kokkos_arch.cmake knows a HOPPER90 architecture (sm_90), handled like AMPERE80.
FIX4 = ("cmake/kokkos_arch.cmake", [
    Edit(r'^KOKKOS_ARCH_OPTION\(AMPERE86 .*\n',
         keep_and_append('KOKKOS_ARCH_OPTION(HOPPER90        GPU  "NVIDIA Hopper generation CC 9.0")\n'),
         'KOKKOS_ARCH_OPTION(HOPPER90'),
    Edit(r'^CHECK_CUDA_ARCH\(AMPERE86 +sm_86\)\n',
         keep_and_append('CHECK_CUDA_ARCH(HOPPER90  sm_90)\n'),
         'CHECK_CUDA_ARCH(HOPPER90'),
    Edit(r'^( *)IF \(KOKKOS_ARCH_AMPERE80 OR KOKKOS_ARCH_AMPERE86\)\n.*\n *ENDIF\(\)\n',
         lambda m: m.group(0) + ('{0}IF (KOKKOS_ARCH_HOPPER90)\n{0}  SET(KOKKOS_ARCH_HOPPER ON)\n'
                                 '{0}ENDIF()\n').format(m.group(1)),
         'IF (KOKKOS_ARCH_HOPPER90)'),
])

# Fix 5 rule: KokkosCore_config.h defines KOKKOS_ARCH_HOPPER90 when that architecture is on.
FIX5 = ("cmake/KokkosCore_config.h.in", [
    Edit(r'^#cmakedefine KOKKOS_ARCH_AMPERE86\n',
         keep_and_append('#cmakedefine KOKKOS_ARCH_HOPPER90\n'),
         '#cmakedefine KOKKOS_ARCH_HOPPER90'),
])


def apply(root, number, fix):
    rel, edits = fix
    path = root / rel
    if not path.is_file():
        sys.exit(f"kokkos-cuda-fixes.py: fix {number}: {path} does not exist")
    text = path.read_text()
    changed = 0
    for edit in edits:
        if edit.done in text:
            continue
        found = list(edit.anchor.finditer(text))
        if len(found) != 1:
            sys.exit(f"kokkos-cuda-fixes.py: fix {number}: {path}: expected text "
                     f"/{edit.anchor.pattern}/ found {len(found)} times (need exactly 1); "
                     "is this the Kokkos 3.4.1 source?")
        m = found[0]
        text = text[:m.start()] + edit.new(m) + text[m.end():]
        if edit.done not in text:
            sys.exit(f"kokkos-cuda-fixes.py: fix {number}: {path}: the change did not take")
        changed += 1
    if changed:
        path.write_text(text)
    print(f"[kokkos-cuda-fixes] fix {number} ({rel}): "
          + (f"applied ({changed} change{'s' * (changed > 1)})" if changed else "already applied"))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: kokkos-cuda-fixes.py <kokkos-3.4.1 source folder>")
    root = Path(sys.argv[1])
    for number, fix in enumerate((FIX1, FIX2, FIX3, FIX4, FIX5), start=1):
        apply(root, number, fix)


if __name__ == "__main__":
    main()
