// src/core/reference_plugin.cpp: loads the reference backend, which lives in its own plugin library.
//
// SuiteSparse:GraphBLAS is an implementation detail of the reference backend, so it is kept out of libsnack
// (DESIGN.md: "SuiteSparse is private to the reference backend"): the backend is built as
// libsnack_reference.so, installed beside libsnack, and loaded here on first use with dlopen(RTLD_NOW |
// RTLD_LOCAL). RTLD_LOCAL keeps the plugin's symbols and those of its libgraphblas out of the process's global
// scope, so a user's program never binds to them. The plugin is found beside the file libsnack was loaded from
// (dladdr), or at $SNACK_REFERENCE_PLUGIN when that is set. It is never unloaded (the backend object lives
// until the process ends). When it cannot be loaded, the reference backend is simply unavailable, and the
// reason (dlerror's message) is kept for the errors that need it.
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "core/internal.hpp"

namespace snk::core {
namespace {

std::string plugin_path() {
  if (const char* env = std::getenv("SNACK_REFERENCE_PLUGIN"); env != nullptr && *env != '\0') return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_reference_plugin), &info) == 0 || info.dli_fname == nullptr)
    return "libsnack_reference.so";  // the loader's search path
  std::string self = info.dli_fname;
  const std::size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) + "libsnack_reference.so";
}

}  // namespace

ReferencePlugin load_reference_plugin() {
  ReferencePlugin plugin;
  const std::string path = plugin_path();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    plugin.error = "cannot load the reference backend's plugin " + path + (why ? std::string(": ") + why : "");
    return plugin;
  }
  using Factory = Backend* (*)();
  auto factory = reinterpret_cast<Factory>(dlsym(handle, "snk_reference_make_backend"));
  if (factory == nullptr) {
    plugin.error = path + " is not snack's reference backend (no snk_reference_make_backend)";
    return plugin;
  }
  try {
    plugin.backend.reset(factory());
  } catch (const std::exception& e) {
    plugin.error = std::string("the reference backend failed to start: ") + e.what();
  }
  return plugin;
}

}  // namespace snk::core
