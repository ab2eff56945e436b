/* fuzz/fuzz_deserialize.c: libFuzzer target for GrB_Matrix_deserialize.
 *
 * The first input byte selects the mode: with its low bit clear the rest is passed as is (exercising the
 * magic, version, size and checksum checks); with it set, the harness first rewrites the blob's trailing
 * checksum to match, so that the fuzzer also reaches the structural validation behind it. A blob that
 * deserializes is read back (nvals, extractTuples) and serialized again, and must round-trip exactly. */
#include <GraphBLAS.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a64(const unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t k = 0; k < n; ++k) {
    h ^= p[k];
    h *= 0x100000001b3ull;
  }
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int initialized = 0;
  if (!initialized) {
    if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS) abort();
    initialized = 1;
  }
  if (size < 1) return 0;
  const int fix_checksum = data[0] & 1;
  size_t n = size - 1;
  unsigned char *blob = malloc(n ? n : 1);
  if (n) memcpy(blob, data + 1, n);
  if (fix_checksum && n >= 8) {
    const uint64_t sum = fnv1a64(blob, n - 8);
    for (int b = 0; b < 8; ++b) blob[n - 8 + b] = (unsigned char)(sum >> (8 * b));
  }
  GrB_Matrix A = NULL;
  GrB_Info info = GrB_Matrix_deserialize(&A, NULL, blob, n);
  if (info == GrB_SUCCESS) {
    GrB_Index nvals = 0, size2 = 0;
    if (GrB_Matrix_nvals(&nvals, A) != GrB_SUCCESS) abort();
    if (nvals <= 100000) {
      GrB_Index *I = malloc((nvals + 1) * sizeof(GrB_Index)), *J = malloc((nvals + 1) * sizeof(GrB_Index));
      GrB_Index got = nvals;
      if (GrB_Matrix_extractTuples_UDT(I, J, NULL, &got, A) != GrB_SUCCESS || got != nvals) abort();
      free(I);
      free(J);
    }
    if (GrB_Matrix_serializeSize(&size2, A) != GrB_SUCCESS) abort();
    unsigned char *again = malloc(size2);
    if (GrB_Matrix_serialize(again, &size2, A) != GrB_SUCCESS) abort();
    /* The re-serialized blob equals the input up to its own length (the input may have trailing bytes). */
    if (size2 > n || memcmp(again, blob, size2) != 0) abort();
    free(again);
    GrB_Matrix_free(&A);
  } else if (info != GrB_INVALID_OBJECT && info != GrB_DOMAIN_MISMATCH && info != GrB_OUT_OF_MEMORY) {
    abort();   /* a bad blob must be reported as such */
  }
  free(blob);
  return 0;
}
