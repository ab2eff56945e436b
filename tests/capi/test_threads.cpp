// tests/capi/test_threads.cpp: several user threads calling the C API at once, each on its own objects.
//
// The spec lets a program call GraphBLAS from several threads as long as no object is shared between calls
// that run at once. Each thread here runs one fixed program that touches every operation (mxm with mask and
// accumulator, mxv, vxm, eWiseAdd/eWiseMult, apply in its three forms, select with the output also the input,
// reduce to a vector, a GrB_Scalar and a C value, transpose, extract, assign with lists and GrB_ALL, kronecker,
// build, setElement, removeElement; the vector forms; row and column assign and extract; diag, resize and a
// serialize round trip) on matrices drawn from the thread's seed, and reduces every result to a
// digest of its tuples. The digests of 8 concurrent threads must equal those of the same programs run one
// after another on the main thread. Threads use different backends at the same time (SNK_Thread_backend_set;
// every backend built, cuda where a GPU is present), and each checks that its own choice is the one in use.
// Results are compared bitwise: every backend is deterministic in SNK_Deterministic_set(true) mode.
// scripts/tsan.sh runs this test under ThreadSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "GraphBLAS.h"
#include "capi_test_util.hpp"

namespace {

#define OK(call)                                                                       \
  do {                                                                                 \
    GrB_Info info_ = (call);                                                           \
    if (info_ != GrB_SUCCESS) {                                                        \
      const char* msg_ = nullptr;                                                      \
      SNK_last_error(&msg_);                                                           \
      throw std::runtime_error(std::string(#call) + " -> " + std::to_string(info_) +   \
                               ": " + (msg_ ? msg_ : ""));                             \
    }                                                                                  \
  } while (0)

constexpr GrB_Index kN = 640;  // 16,000 entries a matrix: past the kokkos kernels' serial threshold

GrB_Matrix random_matrix(std::mt19937_64& rng, GrB_Index nrows, GrB_Index ncols, double density) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<GrB_Index> I, J;
  std::vector<double> X;
  for (GrB_Index i = 0; i < nrows; ++i)
    for (GrB_Index j = 0; j < ncols; ++j)
      if (u(rng) < density) {
        I.push_back(i);
        J.push_back(j);
        X.push_back(std::floor(u(rng) * 200.0 - 100.0) / 8.0);  // exact in binary: sums are order-free
      }
  GrB_Matrix A = nullptr;
  OK(GrB_Matrix_new(&A, GrB_FP64, nrows, ncols));
  OK(GrB_Matrix_build_FP64(A, I.data(), J.data(), X.data(), X.size(), GrB_PLUS_FP64));
  return A;
}

GrB_Vector random_vector(std::mt19937_64& rng, GrB_Index n, double density) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  GrB_Vector v = nullptr;
  OK(GrB_Vector_new(&v, GrB_FP64, n));
  for (GrB_Index i = 0; i < n; ++i)
    if (u(rng) < density) OK(GrB_Vector_setElement_FP64(v, std::floor(u(rng) * 64.0) / 4.0, i));
  OK(GrB_Vector_wait(v, GrB_MATERIALIZE));
  return v;
}

void digest(std::ostringstream& out, const char* what, GrB_Matrix A) {
  GrB_Index nr = 0, nc = 0, nv = 0;
  OK(GrB_Matrix_nrows(&nr, A));
  OK(GrB_Matrix_ncols(&nc, A));
  OK(GrB_Matrix_nvals(&nv, A));
  std::vector<GrB_Index> I(nv), J(nv);
  std::vector<double> X(nv);
  OK(GrB_Matrix_extractTuples_FP64(I.data(), J.data(), X.data(), &nv, A));
  out << what << ' ' << nr << 'x' << nc << ':' << nv;
  for (GrB_Index k = 0; k < nv; ++k) {
    std::uint64_t bits;
    std::memcpy(&bits, &X[k], sizeof bits);
    out << ' ' << I[k] << ',' << J[k] << '=' << std::hex << bits << std::dec;
  }
  out << '\n';
}

void digest(std::ostringstream& out, const char* what, GrB_Vector v) {
  GrB_Index n = 0, nv = 0;
  OK(GrB_Vector_size(&n, v));
  OK(GrB_Vector_nvals(&nv, v));
  std::vector<GrB_Index> I(nv);
  std::vector<double> X(nv);
  OK(GrB_Vector_extractTuples_FP64(I.data(), X.data(), &nv, v));
  out << what << ' ' << n << ':' << nv;
  for (GrB_Index k = 0; k < nv; ++k) out << ' ' << I[k] << '=' << X[k];
  out << '\n';
}

// The program every thread runs: every operation once, on inputs drawn from `seed`.
std::string program(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::ostringstream out;
  out.precision(17);
  GrB_Matrix A = random_matrix(rng, kN, kN, 0.04), B = random_matrix(rng, kN, kN, 0.04);
  GrB_Matrix M = random_matrix(rng, kN, kN, 0.2);
  GrB_Matrix D = random_matrix(rng, kN, 8, 1.0);  // full: the cuda backend's SpMM serves A * D
  GrB_Vector u = random_vector(rng, kN, 0.3);
  GrB_Matrix C = nullptr, E = nullptr, K = nullptr, S = nullptr;
  GrB_Vector w = nullptr;
  GrB_Descriptor desc_t1 = nullptr;
  OK(GrB_Descriptor_new(&desc_t1));
  OK(GrB_Descriptor_set(desc_t1, GrB_INP1, GrB_TRAN));

  OK(GrB_Matrix_new(&C, GrB_FP64, kN, kN));
  OK(GrB_mxm(C, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, A, B, nullptr));
  digest(out, "mxm", C);
  OK(GrB_mxm(C, M, GrB_PLUS_FP64, GrB_MIN_PLUS_SEMIRING_FP64, A, B, desc_t1));
  digest(out, "mxm_masked_accum_t1", C);
  OK(GrB_mxm(C, M, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, A, B, GrB_DESC_RSC));
  digest(out, "mxm_rsc", C);
  OK(GrB_Matrix_new(&E, GrB_FP64, kN, 8));
  OK(GrB_mxm(E, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, A, D, nullptr));
  digest(out, "mxm_full", E);

  OK(GrB_Vector_new(&w, GrB_FP64, kN));
  OK(GrB_mxv(w, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, A, u, nullptr));
  digest(out, "mxv", w);
  OK(GrB_vxm(w, nullptr, GrB_MAX_FP64, GrB_MIN_PLUS_SEMIRING_FP64, u, B, nullptr));
  digest(out, "vxm_accum", w);

  OK(GrB_Matrix_eWiseAdd_BinaryOp(C, nullptr, nullptr, GrB_PLUS_FP64, A, B, nullptr));
  digest(out, "ewise_add", C);
  OK(GrB_Matrix_eWiseMult_BinaryOp(C, M, nullptr, GrB_TIMES_FP64, A, M, GrB_DESC_RC));
  digest(out, "ewise_mult", C);

  OK(GrB_Matrix_apply(C, nullptr, nullptr, GrB_AINV_FP64, A, nullptr));
  digest(out, "apply", C);
  OK(GrB_Matrix_apply_BinaryOp1st_FP64(C, nullptr, GrB_PLUS_FP64, GrB_TIMES_FP64, 2.0, B, nullptr));
  digest(out, "apply_1st", C);
  OK(GrB_Matrix_apply_IndexOp_INT64(C, nullptr, nullptr, GrB_ROWINDEX_INT64, A, 1, nullptr));
  digest(out, "apply_index", C);

  // select with the output as the input (in place), the call that once left C unchanged off the main thread
  OK(GrB_Matrix_dup(&S, A));
  OK(GrB_Matrix_select_FP64(S, nullptr, nullptr, GrB_VALUEGT_FP64, S, 1.0, nullptr));
  digest(out, "select_in_place", S);
  OK(GrB_Matrix_select_INT64(S, nullptr, nullptr, GrB_TRIL, S, 0, nullptr));
  digest(out, "select_tril", S);

  OK(GrB_Matrix_reduce_Monoid(w, nullptr, nullptr, GrB_PLUS_MONOID_FP64, A, nullptr));
  digest(out, "reduce_rows", w);
  double total = 3.0;
  OK(GrB_Matrix_reduce_FP64(&total, GrB_PLUS_FP64, GrB_PLUS_MONOID_FP64, B, nullptr));
  out << "reduce_value " << total << '\n';
  GrB_Scalar s = nullptr;
  OK(GrB_Scalar_new(&s, GrB_FP64));
  OK(GrB_Matrix_reduce_Monoid_Scalar(s, nullptr, GrB_MAX_MONOID_FP64, A, nullptr));
  double smax = 0;
  OK(GrB_Scalar_extractElement_FP64(&smax, s));
  out << "reduce_scalar " << smax << '\n';

  OK(GrB_transpose(C, nullptr, nullptr, A, nullptr));
  digest(out, "transpose", C);

  std::vector<GrB_Index> I(40), J(30);
  for (GrB_Index k = 0; k < I.size(); ++k) I[k] = (k * 7 + seed) % kN;
  for (GrB_Index k = 0; k < J.size(); ++k) J[k] = (k * 11 + 3) % kN;
  GrB_Matrix X = nullptr;
  OK(GrB_Matrix_new(&X, GrB_FP64, I.size(), J.size()));
  OK(GrB_Matrix_extract(X, nullptr, nullptr, A, I.data(), I.size(), J.data(), J.size(), nullptr));
  digest(out, "extract", X);
  OK(GrB_Matrix_dup(&K, B));
  OK(GrB_Matrix_assign(K, nullptr, GrB_PLUS_FP64, X, I.data(), I.size(), J.data(), J.size(), nullptr));
  digest(out, "assign", K);
  OK(GrB_Matrix_assign_FP64(K, M, GrB_PLUS_FP64, 0.5, GrB_ALL, kN, GrB_ALL, kN, GrB_DESC_S));
  digest(out, "assign_all_masked", K);
  OK(GrB_Matrix_setElement_FP64(K, 42.0, 3, 4));
  OK(GrB_Matrix_removeElement(K, 0, 0));
  digest(out, "set_remove", K);

  GrB_Matrix small = nullptr, kron = nullptr;
  OK(GrB_Matrix_new(&small, GrB_FP64, 12, 12));
  std::vector<GrB_Index> first12(12);
  for (GrB_Index k = 0; k < 12; ++k) first12[k] = k;
  OK(GrB_Matrix_extract(small, nullptr, nullptr, A, first12.data(), 12, first12.data(), 12, nullptr));
  OK(GrB_Matrix_new(&kron, GrB_FP64, 144, 144));
  OK(GrB_Matrix_kronecker_BinaryOp(kron, nullptr, nullptr, GrB_TIMES_FP64, small, small, nullptr));
  digest(out, "kronecker", kron);

  // vectors, rows and columns
  GrB_Vector v = nullptr, col = nullptr, sel = nullptr;
  OK(GrB_Vector_new(&v, GrB_FP64, kN));
  OK(GrB_Vector_eWiseAdd_BinaryOp(v, nullptr, nullptr, GrB_MAX_FP64, u, w, nullptr));
  digest(out, "vector_ewise_add", v);
  OK(GrB_Vector_new(&sel, GrB_FP64, kN));
  OK(GrB_Vector_select_FP64(sel, nullptr, nullptr, GrB_VALUEGE_FP64, v, 2.0, nullptr));
  digest(out, "vector_select", sel);
  OK(GrB_Vector_apply(sel, nullptr, GrB_PLUS_FP64, GrB_ABS_FP64, v, nullptr));
  digest(out, "vector_apply_accum", sel);
  OK(GrB_Vector_new(&col, GrB_FP64, I.size()));
  OK(GrB_Col_extract(col, nullptr, nullptr, A, I.data(), I.size(), 5, nullptr));
  digest(out, "col_extract", col);
  OK(GrB_Vector_extract(col, nullptr, GrB_PLUS_FP64, u, I.data(), I.size(), nullptr));
  digest(out, "vector_extract_accum", col);
  OK(GrB_Vector_assign(v, nullptr, GrB_TIMES_FP64, col, I.data(), I.size(), nullptr));
  digest(out, "vector_assign", v);
  OK(GrB_Row_assign(K, nullptr, nullptr, w, 7, GrB_ALL, kN, nullptr));
  digest(out, "row_assign", K);
  double vsum = 0;
  OK(GrB_Vector_reduce_FP64(&vsum, nullptr, GrB_PLUS_MONOID_FP64, v, nullptr));
  out << "vector_reduce " << vsum << '\n';
  // diag, resize, serialize round trip
  GrB_Matrix Dg = nullptr, R = nullptr;
  OK(GrB_Matrix_diag(&Dg, u, 2));
  digest(out, "diag", Dg);
  OK(GrB_Matrix_resize(Dg, kN / 2, kN + 9));
  digest(out, "resize", Dg);
  GrB_Index blob_size = 0;
  OK(GrB_Matrix_serializeSize(&blob_size, A));
  std::vector<unsigned char> blob(blob_size);
  OK(GrB_Matrix_serialize(blob.data(), &blob_size, A));
  OK(GrB_Matrix_deserialize(&R, GrB_FP64, blob.data(), blob_size));
  digest(out, "serialize_round_trip", R);

  for (GrB_Vector* x : {&v, &col, &sel}) GrB_Vector_free(x);
  for (GrB_Matrix* m : {&A, &B, &M, &D, &C, &E, &K, &S, &X, &small, &kron, &Dg, &R}) GrB_Matrix_free(m);
  GrB_Vector_free(&u);
  GrB_Vector_free(&w);
  GrB_Scalar_free(&s);
  GrB_Descriptor_free(&desc_t1);
  return out.str();
}

// The name of the first result (digest line) where two digests differ, or "" when they are equal.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  while (true) {
    const bool ga = static_cast<bool>(std::getline(sa, la)), gb = static_cast<bool>(std::getline(sb, lb));
    if (!ga && !gb) return "";
    if (la != lb || ga != gb) {
      const std::string& line = ga ? la : lb;
      return "first differing result: " + line.substr(0, line.find(' '));
    }
  }
}

std::vector<std::string> backends() {
  std::vector<std::string> names = snk_test::backend_list();
  EXPECT_FALSE(names.empty()) << "SNK_Backend_list gave no backend";
  return names;
}

std::string current_backend() {
  char name[64] = {0};
  if (SNK_Backend_get(name, sizeof name) != GrB_SUCCESS) return "?";
  return name;
}

class Threads : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(GrB_init(GrB_NONBLOCKING), GrB_SUCCESS);
    ASSERT_EQ(SNK_Deterministic_set(true), GrB_SUCCESS);
  }
  static void TearDownTestSuite() { GrB_finalize(); }
};

TEST_F(Threads, EightThreadsMatchOneThreadOnEveryBackend) {
  const std::vector<std::string> names = backends();
  ASSERT_FALSE(names.empty());
  constexpr int kThreads = 8, kRounds = 2;
  // The expected digests, one program after another on this thread, each on its thread's backend.
  std::vector<std::string> expected(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    const std::string& name = names[t % names.size()];
    ASSERT_EQ(SNK_Thread_backend_set(name.c_str()), GrB_SUCCESS);
    expected[t] = program(1000 + t);
  }
  ASSERT_EQ(SNK_Thread_backend_set(nullptr), GrB_SUCCESS);

  std::vector<std::string> got(kThreads), used(kThreads), errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        const std::string& name = names[t % names.size()];
        OK(SNK_Thread_backend_set(name.c_str()));
        used[t] = current_backend();
        for (int r = 0; r < kRounds; ++r) {
          std::string d = program(1000 + t);
          if (r == 0) got[t] = d;
          else if (d != got[t])
            errors[t] = "round " + std::to_string(r) + " differs from round 0, " + first_difference(d, got[t]);
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  int identical = 0;
  for (int t = 0; t < kThreads; ++t) {
    const std::string& name = names[t % names.size()];
    EXPECT_EQ(errors[t], "") << "thread " << t << " (" << name << ")";
    EXPECT_EQ(used[t], name) << "thread " << t << " did not get its own backend";
    const std::string diff = first_difference(got[t], expected[t]);
    EXPECT_EQ(diff, "") << "thread " << t << " (" << name << ") differs from the single-threaded run";
    identical += diff.empty() && errors[t].empty();
  }
  std::printf("[threads] %d threads x %d rounds, backends:", kThreads, kRounds);
  for (const auto& n : names) std::printf(" %s", n.c_str());
  std::printf("; %d of %d threads' results identical to the single-threaded run\n", identical, kThreads);
}

// The kokkos backend runs some kernels (extract and assign with index lists, kronecker) as Kokkos kernels in
// the Serial space when the calling thread is not the pool's; Serial's scan and reduction buffers are one per
// process. Four threads repeat those calls at once, many times, and every repetition must equal the first.
std::string serial_space_program(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::ostringstream out;
  GrB_Matrix A = random_matrix(rng, kN, kN, 0.05), B = random_matrix(rng, kN, kN, 0.05);
  std::vector<GrB_Index> I(300), J(200), first12(12);
  for (GrB_Index k = 0; k < I.size(); ++k) I[k] = (k * 7 + seed) % kN;
  for (GrB_Index k = 0; k < J.size(); ++k) J[k] = (k * 11 + 3) % kN;
  for (GrB_Index k = 0; k < 12; ++k) first12[k] = k + seed % 40;
  GrB_Matrix X = nullptr, small = nullptr, kron = nullptr;
  OK(GrB_Matrix_new(&X, GrB_FP64, I.size(), J.size()));
  OK(GrB_Matrix_extract(X, nullptr, nullptr, A, I.data(), I.size(), J.data(), J.size(), nullptr));
  digest(out, "extract", X);
  OK(GrB_Matrix_assign(B, nullptr, GrB_PLUS_FP64, X, I.data(), I.size(), J.data(), J.size(), nullptr));
  digest(out, "assign", B);
  OK(GrB_Matrix_new(&small, GrB_FP64, 12, 12));
  OK(GrB_Matrix_extract(small, nullptr, nullptr, A, first12.data(), 12, first12.data(), 12, nullptr));
  OK(GrB_Matrix_new(&kron, GrB_FP64, 144, 144));
  OK(GrB_Matrix_kronecker_BinaryOp(kron, nullptr, nullptr, GrB_TIMES_FP64, small, small, nullptr));
  digest(out, "kronecker", kron);
  for (GrB_Matrix* m : {&A, &B, &X, &small, &kron}) GrB_Matrix_free(m);
  return out.str();
}

TEST_F(Threads, KokkosSerialSpaceKernelsFromFourThreads) {
  const std::vector<std::string> names = backends();
  if (std::find(names.begin(), names.end(), "kokkos") == names.end()) GTEST_SKIP() << "no kokkos backend built";
  constexpr int kThreads = 4, kRounds = 40;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        OK(SNK_Thread_backend_set("kokkos"));
        const std::string first = serial_space_program(2000 + t);
        for (int r = 1; r < kRounds && errors[t].empty(); ++r) {
          const std::string d = serial_space_program(2000 + t);
          if (d != first) errors[t] = "round " + std::to_string(r) + " differs from round 0, " + first_difference(d, first);
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

TEST_F(Threads, ThreadBackendChoiceIsPerThreadAndValidated) {
  const std::string process = current_backend();
  EXPECT_EQ(SNK_Thread_backend_set("no-such-backend"), GrB_INVALID_VALUE);
  EXPECT_EQ(current_backend(), process);
  const std::vector<std::string> names = backends();
  const std::string other = names.front() == process && names.size() > 1 ? names[1] : names.front();
  ASSERT_EQ(SNK_Thread_backend_set(other.c_str()), GrB_SUCCESS);
  EXPECT_EQ(current_backend(), other);
  std::string seen_elsewhere;
  std::thread([&] { seen_elsewhere = current_backend(); }).join();
  EXPECT_EQ(seen_elsewhere, process);  // another thread keeps the process-wide choice
  ASSERT_EQ(SNK_Thread_backend_set(nullptr), GrB_SUCCESS);
  EXPECT_EQ(current_backend(), process);
}

}  // namespace
