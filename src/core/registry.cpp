// src/core/registry.cpp: the backend base's declining defaults, the registry of backends (src/core/kernels.hpp:
// register_backend) and the loading of backend plugins.
//
// Backends built into libsnack register from static initializers; the registry is completed on first use by
// loading the plugins: every file libsnack_<name>.so in the folder libsnack was loaded from (dladdr), or, when
// $SNACK_PLUGINS is set, exactly the files it lists (colon-separated; a folder in the list stands for its
// libsnack_*.so files). A plugin is loaded with dlopen(RTLD_NOW | RTLD_LOCAL), so that its symbols and those of
// the libraries it brings (SuiteSparse in the reference plugin, CUDA and Kokkos in the cuda one) stay out of the
// process's global scope, and its snk_plugin_register() is called, which registers its backends. Plugins are
// never unloaded. A plugin that fails to load is remembered with dlerror's reason, so that a backend the user
// asks for can say why it is missing. Each backend object is made once, on first use (its own once_flag), so
// that a GPU backend touches the driver only when asked for.
#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace snk::core {
namespace {

// Entries registered so far (static initializers of libsnack, then plugins while they load).
std::vector<BackendEntry>& registered() {
  static std::vector<BackendEntry> entries;
  return entries;
}

std::string folder_of_libsnack() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&register_backend), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string self = info.dli_fname;
  const std::size_t slash = self.rfind('/');
  return slash == std::string::npos ? std::string(".") : self.substr(0, slash);
}

// The libsnack_<name>.so files of a folder, sorted (symbolic links to versioned names are not used).
std::vector<std::string> plugins_in(const std::string& folder) {
  std::vector<std::string> files;
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) return files;
  while (const dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name.size() > 12 && name.compare(0, 9, "libsnack_") == 0 && name.compare(name.size() - 3, 3, ".so") == 0)
      files.push_back(folder + "/" + name);
  }
  closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

// The backend a plugin file promises: <name> of .../libsnack_<name>.so (the file's base name otherwise).
std::string plugin_name(const std::string& file) {
  std::string base = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
  if (base.compare(0, 9, "libsnack_") == 0) base.erase(0, 9);
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".so") == 0) base.resize(base.size() - 3);
  return base;
}

std::vector<std::string> plugin_files() {
  const char* env = std::getenv("SNACK_PLUGINS");
  if (env == nullptr || *env == '\0') return plugins_in(folder_of_libsnack());
  std::vector<std::string> files;
  std::string list = env;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    const std::string item = list.substr(start, end - start);
    if (!item.empty()) {
      const std::vector<std::string> inside = plugins_in(item);
      if (inside.empty()) files.push_back(item);
      else files.insert(files.end(), inside.begin(), inside.end());
    }
    start = end + 1;
  }
  return files;
}

}  // namespace

// The base declines every operation (kernels.hpp).
KernelStatus Backend::mxm(Matrix&, const MaskHint&, const Semiring&, const Matrix&, bool, const Matrix&, bool, bool) { return KernelStatus::Declined; }
KernelStatus Backend::ewise_add(Matrix&, const MaskHint&, const BinaryOp&, const Matrix&, const Matrix&) { return KernelStatus::Declined; }
KernelStatus Backend::ewise_mult(Matrix&, const MaskHint&, const BinaryOp&, const Matrix&, const Matrix&) { return KernelStatus::Declined; }
KernelStatus Backend::apply_unary(Matrix&, const UnaryOp&, const Matrix&) { return KernelStatus::Declined; }
KernelStatus Backend::apply_bound(Matrix&, const BinaryOp&, const Scalar&, bool, const Matrix&) { return KernelStatus::Declined; }
KernelStatus Backend::apply_index(Matrix&, const IndexUnaryOp&, const Matrix&, const Scalar&) { return KernelStatus::Declined; }
KernelStatus Backend::select(Matrix&, const IndexUnaryOp&, const Matrix&, const Scalar&) { return KernelStatus::Declined; }
KernelStatus Backend::reduce_rows(Matrix&, const Monoid&, const Matrix&) { return KernelStatus::Declined; }
KernelStatus Backend::reduce_scalar(Scalar&, const Monoid&, const Matrix&) { return KernelStatus::Declined; }
KernelStatus Backend::transpose(Matrix&, const Matrix&) { return KernelStatus::Declined; }
KernelStatus Backend::extract(Matrix&, const Matrix&, const IndexList&, const IndexList&) { return KernelStatus::Declined; }
KernelStatus Backend::assign(Matrix&, const Matrix&, const BinaryOp*, const Matrix&, const IndexList&, const IndexList&) { return KernelStatus::Declined; }
KernelStatus Backend::kronecker(Matrix&, const BinaryOp&, const Matrix&, const Matrix&) { return KernelStatus::Declined; }

void register_backend(BackendEntry entry) { registered().push_back(std::move(entry)); }

Registry::Registry() {
  for (const std::string& file : plugin_files()) {
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      plugin_errors.push_back({plugin_name(file), file, why != nullptr ? why : "dlopen failed"});
      continue;
    }
    auto hook = reinterpret_cast<void (*)()>(dlsym(handle, "snk_plugin_register"));
    if (hook == nullptr) {
      plugin_errors.push_back({plugin_name(file), file, "not a snack backend plugin (no snk_plugin_register)"});
      continue;
    }
    hook();
  }
  for (BackendEntry& e : registered()) {
    auto slot = std::make_unique<Slot>();
    slot->entry = std::move(e);
    slots.push_back(std::move(slot));
  }
  registered().clear();
  std::stable_sort(slots.begin(), slots.end(), [](const auto& a, const auto& b) { return a->entry.rank > b->entry.rank; });
}

Registry& registry() {
  static Registry r;
  return r;
}

Registry::Slot* Registry::find(const std::string& name) {
  for (auto& s : slots)
    if (s->entry.name == name) return s.get();
  return nullptr;
}

Backend* Registry::Slot::get() {
  std::call_once(once, [this] {
    if (!entry.why_unavailable.empty() || !entry.make) {
      if (entry.why_unavailable.empty()) entry.why_unavailable = "registered without a factory";
      return;
    }
    try {
      backend = entry.make();
      if (backend == nullptr && entry.why_unavailable.empty()) entry.why_unavailable = "not usable in this process";
    } catch (const std::exception& e) {
      backend.reset();
      entry.why_unavailable = e.what();
    }
  });
  return backend.get();
}

std::string Registry::why_missing(const std::string& name) {
  if (Slot* s = find(name); s != nullptr) {
    s->get();
    return s->entry.why_unavailable;
  }
  for (const auto& e : plugin_errors)
    if (e.name == name) return e.message();
  return "no such backend in this build";
}

}  // namespace snk::core
