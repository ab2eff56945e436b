// layers/data_parallel.cpp: the gradient exchange and parameter broadcast of data_parallel.hpp, on the host form of
// the layers' matrices (MPI_Allreduce / MPI_Bcast over their value arrays).
#include "data_parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace snk::layers {
namespace {

MPI_Datatype mpi_type_of(const Matrix& M) {
  if (M.type() == &types::FP32) return MPI_FLOAT;
  if (M.type() == &types::FP64) return MPI_DOUBLE;
  throw Error(Info::DomainMismatch, "DataParallel: values must be FP32 or FP64, not " + std::string(M.type()->name));
}

// FNV-1a over the type code, the shape and every (row, column) of the host form.
std::uint64_t pattern_hash(const Matrix& M) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<std::uint64_t>(M.type()->code));
  mix(static_cast<std::uint64_t>(M.nrows()));
  mix(static_cast<std::uint64_t>(M.ncols()));
  const CsrStorage& c = M.csr();
  for (Index k = 0; k < c.nslots(); ++k) {
    const Index row = c.hyper ? c.h[k] : k;
    for (Index e = c.p[k]; e < c.p[k + 1]; ++e) {
      mix(static_cast<std::uint64_t>(row));
      mix(static_cast<std::uint64_t>(c.j[e]));
    }
  }
  return h;
}

// g's values on p's positions (zero where g has no entry: a gradient holds only the positions its batch reached),
// as bytes of g's type. InvalidValue where g has an entry that p does not.
std::vector<unsigned char> values_on_pattern(const Matrix& p, const Matrix& g) {
  const CsrStorage& P = p.csr();
  const CsrStorage& G = g.csr();
  const std::size_t bytes = g.type()->size;
  std::vector<unsigned char> out(static_cast<std::size_t>(P.nvals()) * bytes, 0);
  Index kg = 0, placed = 0;
  for (Index kp = 0; kp < P.nslots(); ++kp) {
    const Index row = P.hyper ? P.h[kp] : kp;
    while (kg < G.nslots() && (G.hyper ? G.h[kg] : kg) < row) ++kg;
    if (kg >= G.nslots() || (G.hyper ? G.h[kg] : kg) != row) continue;
    Index eg = G.p[kg];
    for (Index ep = P.p[kp]; ep < P.p[kp + 1] && eg < G.p[kg + 1]; ++ep) {
      if (G.j[eg] < P.j[ep]) break;   // g's entry is not one of p's positions
      if (G.j[eg] == P.j[ep]) {
        std::memcpy(out.data() + ep * bytes, G.x.data() + eg * bytes, bytes);
        ++eg;
        ++placed;
      }
    }
  }
  if (placed != G.nvals())
    throw Error(Info::InvalidValue, "DataParallel: a gradient holds entries outside its parameter's pattern");
  return out;
}

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(Info::Panic, std::string("DataParallel: ") + what + " failed");
}

// f(first, count) over [0, n) in pieces that an MPI count (int) holds.
template <class F>
void in_pieces(Index n, F&& f) {
  constexpr Index kPiece = Index(1) << 30;
  for (Index k = 0; k < n; k += kPiece) f(k, static_cast<int>(std::min(kPiece, n - k)));
}

}  // namespace

DataParallel::DataParallel(MPI_Comm comm) : comm_(comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error(Info::InvalidValue, "DataParallel: MPI is not initialized");
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

void DataParallel::check_same_pattern(const Matrix& M, const char* what) const {
  const std::uint64_t mine = pattern_hash(M);
  std::uint64_t root = mine;
  check_mpi(MPI_Bcast(&root, 1, MPI_UINT64_T, 0, comm_), "MPI_Bcast");
  const int differs = root != mine ? 1 : 0;
  int any = 0;
  check_mpi(MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
  if (any)
    throw Error(Info::InvalidObject, std::string("DataParallel: the ranks' ") + what +
                                         " differ in type, shape or pattern (rank " + std::to_string(rank_) +
                                         (differs ? " differs from rank 0)" : " agrees with rank 0)"));
}

double DataParallel::sum(double v) const {
  double total = 0;
  check_mpi(MPI_Allreduce(&v, &total, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  return total;
}

void DataParallel::sum_gradients(const std::vector<SparseLinear*>& layers, double weight) const {
  std::vector<std::pair<const Matrix*, Matrix*>> pairs;   // (parameter, its gradient)
  for (SparseLinear* l : layers) {
    pairs.emplace_back(&l->weight(), &l->weight_grad());
    if (l->has_bias()) pairs.emplace_back(&l->bias().as_matrix(), &l->bias_grad().as_matrix());
  }
  for (const auto& [param, grad] : pairs) check_same_pattern(*param, "parameters");   // every rank throws, or none
  // Each gradient on its parameter's positions, weighted; then summed over the ranks, in place.
  std::vector<std::vector<unsigned char>> values;
  for (const auto& [param, grad] : pairs) {
    if (grad->type() != param->type() || grad->nrows() != param->nrows() || grad->ncols() != param->ncols())
      throw Error(Info::InvalidObject, "DataParallel: a gradient has another type or shape than its parameter");
    (void)mpi_type_of(*grad);
    values.push_back(values_on_pattern(*param, *grad));
  }
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const Matrix& param = *pairs[k].first;
    Matrix& grad = *pairs[k].second;
    std::vector<unsigned char>& x = values[k];
    const MPI_Datatype t = mpi_type_of(grad);
    const std::size_t bytes = grad.type()->size;
    const Index n = static_cast<Index>(x.size() / bytes);
    if (t == MPI_FLOAT) {
      float* v = reinterpret_cast<float*>(x.data());
      for (Index e = 0; e < n; ++e) v[e] = static_cast<float>(v[e] * weight);
    } else {
      double* v = reinterpret_cast<double*>(x.data());
      for (Index e = 0; e < n; ++e) v[e] *= weight;
    }
    in_pieces(n, [&](Index first, int count) {
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, x.data() + first * bytes, count, t, MPI_SUM, comm_), "MPI_Allreduce");
    });
    CsrStorage summed = param.csr();   // the parameter's positions, the summed values
    summed.x = std::move(x);
    grad.adopt(std::move(summed));
  }
}

void DataParallel::broadcast_parameters(const std::vector<SparseLinear*>& layers) const {
  std::vector<Matrix*> params;
  for (SparseLinear* l : layers) {
    params.push_back(&l->weight());
    if (l->has_bias()) params.push_back(&l->bias().as_matrix());
  }
  for (Matrix* m : params) check_same_pattern(*m, "parameters");
  for (Matrix* m : params) {
    const MPI_Datatype t = mpi_type_of(*m);
    CsrStorage& c = m->csr_mutable();
    const std::size_t bytes = m->type()->size;
    in_pieces(c.nvals(), [&](Index first, int count) {
      check_mpi(MPI_Bcast(c.x.data() + first * bytes, count, t, 0, comm_), "MPI_Bcast");
    });
  }
}

}  // namespace snk::layers
