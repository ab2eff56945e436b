// src/core/registry.hpp: the registry of backends, inside the core (registry.cpp makes it, dispatch.cpp reads it).
//
// One Slot per registered backend, ordered by rank (highest first); a slot makes its backend on first use and
// keeps the reason when it cannot. Plugins that failed to load are kept with dlerror's reason.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/kernels.hpp"

namespace snk::core {

struct Registry {
  struct Slot {
    BackendEntry entry;
    std::once_flag once;
    std::unique_ptr<Backend> backend;
    // The backend, made on the first call; null when it cannot run here (entry.why_unavailable says why).
    Backend* get();
  };
  std::vector<std::unique_ptr<Slot>> slots;                      // by rank, highest first
  // A plugin that did not load: the backend its file name promises (libsnack_<name>.so), and why.
  struct PluginError {
    std::string name, file, why;
    std::string message() const { return "cannot load the plugin " + file + ": " + why; }
  };
  std::vector<PluginError> plugin_errors;

  Registry();   // loads the plugins and takes every registered entry
  Slot* find(const std::string& name);
  // Why `name` is not usable: its entry's reason, its plugin's load error, or "no such backend in this build".
  std::string why_missing(const std::string& name);
};

// The registry, completed on first use (thread-safe).
Registry& registry();

}  // namespace snk::core
