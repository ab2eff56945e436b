// src/core/dispatch.cpp: the run-time choice of backend (include/snack/backend.hpp) over the registry
// (registry.cpp), and the process-wide settings the backends read.
//
// The process-wide choice starts from $SNACK_BACKEND (an unknown or unavailable name prints one message on
// stderr and the default is used), else the highest-ranked usable backend registered as complete (kokkos where
// built, else reference): a partial backend is chosen only by name, since as the default it would send the calls
// it declines to reference. set_backend() changes it and BackendScope overrides it for one thread (a thread_local
// pointer, so the hot path, current_backend_object(), is one load). Fallback counts (calls a backend declined and
// that ran on reference) are kept per (backend, operation) under a mutex: they are rare by design, so a lock costs
// nothing measurable. The determinism flag starts from $SNACK_DETERMINISTIC (1 or 0), the cuda backend's bind
// policy from $SNACK_BIND; a value neither reads prints one message on stderr, as an unknown $SNACK_BACKEND does.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "core/registry.hpp"
#include "snack/backend.hpp"
#include "snack/error.hpp"

namespace snk {
namespace core {

namespace {

// Names of the backends that can be used in this process, "reference" first, then by rank.
std::vector<std::string> usable_names() {
  std::vector<std::string> names;
  if (reference_backend_or_null() != nullptr) names.push_back("reference");
  for (auto& slot : registry().slots)
    if (slot->entry.name != "reference" && slot->get() != nullptr) names.push_back(slot->entry.name);
  return names;
}

// The default: the highest-ranked usable backend registered as complete (reference when none is).
std::string best_complete() {
  for (auto& slot : registry().slots)
    if (slot->entry.complete && slot->get() != nullptr) return slot->entry.name;
  return "reference";
}

bool is_usable(const std::string& name) {
  for (const auto& n : usable_names())
    if (n == name) return true;
  return false;
}

std::string joined_names() {
  std::string out;
  for (const auto& n : usable_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The process-wide choice, set once from the environment on first use.
std::atomic<Backend*>& process_choice() {
  static std::atomic<Backend*> choice{nullptr};
  static std::once_flag once;
  std::call_once(once, [] {
    std::string best = best_complete();
    std::string chosen = best;
    if (const char* env = std::getenv("SNACK_BACKEND"); env != nullptr && *env != '\0') {
      if (is_usable(env)) {
        chosen = env;
      } else {
        std::fprintf(stderr,
                     "snack: SNACK_BACKEND=%s is not an available backend (available: %s); using %s\n", env,
                     joined_names().c_str(), best.c_str());
      }
    }
    choice.store(&backend_by_name(chosen));
  });
  return choice;
}

thread_local Backend* thread_override = nullptr;

struct FallbackTable {
  std::mutex mutex;
  std::map<std::string, std::map<std::string, std::uint64_t>> counts;  // backend -> op -> count
};
FallbackTable& fallback_table() {
  static FallbackTable table;
  return table;
}

// The value of $name: the value of its word in `words`, or `fallback` where it is unset or empty; another word
// prints "snack: <name>=<word> is not <expected>; <otherwise>" on stderr and gives `fallback`.
template <class T>
T env_word(const char* name, std::initializer_list<std::pair<const char*, T>> words, T fallback, const char* expected,
           const char* otherwise) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  for (const auto& [word, value] : words)
    if (std::strcmp(env, word) == 0) return value;
  std::fprintf(stderr, "snack: %s=%s is not %s; %s\n", name, env, expected, otherwise);
  return fallback;
}

// The bind policy (BindPolicy as int), initially from $SNACK_BIND (auto, eager or never; unset or empty: auto;
// another value: one message on stderr, and auto).
std::atomic<int>& bind_policy_value() {
  static std::atomic<int> value{0};
  static std::once_flag once;
  std::call_once(once, [] {
    const BindPolicy p =
        env_word("SNACK_BIND", {{"auto", BindPolicy::Auto}, {"eager", BindPolicy::Eager}, {"never", BindPolicy::Never}},
                 BindPolicy::Auto, "auto, eager or never", "using auto");
    value.store(static_cast<int>(p));
  });
  return value;
}

// The determinism flag, initially from $SNACK_DETERMINISTIC (1, true, on or yes: on; 0, false, off, no, unset or
// empty: off; another value: one message on stderr, and off).
std::atomic<bool>& deterministic_flag() {
  static std::atomic<bool> flag{false};
  static std::once_flag once;
  std::call_once(once, [] {
    flag.store(env_word("SNACK_DETERMINISTIC",
                        {{"1", true}, {"true", true}, {"on", true}, {"yes", true},
                         {"0", false}, {"false", false}, {"off", false}, {"no", false}},
                        false, "1 or 0", "deterministic results stay off"));
  });
  return flag;
}

}  // namespace

Backend* reference_backend_or_null() {
  Registry::Slot* slot = registry().find("reference");
  return slot == nullptr ? nullptr : slot->get();
}

Backend& reference_backend() {
  Backend* b = reference_backend_or_null();
  if (b == nullptr)
    throw Error(Info::NotImplemented, "the reference backend is unavailable: " + registry().why_missing("reference"));
  return *b;
}

Backend& backend_by_name(const std::string& name) {
  Registry::Slot* slot = registry().find(name);
  Backend* b = slot == nullptr ? nullptr : slot->get();
  if (b == nullptr)
    throw Error(Info::InvalidValue, "unknown or unavailable backend \"" + name + "\" (" + registry().why_missing(name) +
                                        "; available: " + joined_names() + ")");
  return *b;
}

Backend& current_backend_object() {
  if (thread_override != nullptr) return *thread_override;
  return *process_choice().load(std::memory_order_acquire);
}

void count_fallback(const std::string& backend, const char* op_name) {
  FallbackTable& t = fallback_table();
  std::lock_guard<std::mutex> lock(t.mutex);
  ++t.counts[backend][op_name];
}

}  // namespace core

std::vector<std::string> available_backends() { return core::usable_names(); }

std::map<std::string, std::string> unavailable_backends() {
  std::map<std::string, std::string> out;
  core::Registry& r = core::registry();
  for (auto& slot : r.slots)
    if (slot->get() == nullptr) out[slot->entry.name] = slot->entry.why_unavailable;
  for (const auto& e : r.plugin_errors)
    if (!out.count(e.name)) out[e.name] = e.message();
  return out;
}

std::string current_backend() { return core::current_backend_object().name(); }

void set_backend(const std::string& name) {
  core::Backend& b = core::backend_by_name(name);  // throws InvalidValue with the list when unknown
  core::process_choice().store(&b, std::memory_order_release);
}

void set_thread_backend(const std::string& name) {
  core::thread_override = name.empty() ? nullptr : &core::backend_by_name(name);
}

BackendScope::BackendScope(const std::string& name) : previous_(), had_previous_(false) {
  core::Backend& b = core::backend_by_name(name);  // validate before changing anything
  had_previous_ = core::thread_override != nullptr;
  if (had_previous_) previous_ = core::thread_override->name();
  core::thread_override = &b;
}

BackendScope::~BackendScope() {
  // The previous name was valid when it was set, and backends are never destroyed before exit.
  core::thread_override = had_previous_ ? &core::backend_by_name(previous_) : nullptr;
}

std::map<std::string, std::uint64_t> fallback_counts(const std::string& backend) {
  core::FallbackTable& t = core::fallback_table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.counts.find(backend);
  return it == t.counts.end() ? std::map<std::string, std::uint64_t>{} : it->second;
}

std::uint64_t fallback_total(const std::string& backend) {
  std::uint64_t total = 0;
  for (const auto& [op, n] : fallback_counts(backend)) total += n;
  return total;
}

void reset_fallback_counts() {
  core::FallbackTable& t = core::fallback_table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.counts.clear();
}

void set_deterministic(bool on) { core::deterministic_flag().store(on); }

bool deterministic() { return core::deterministic_flag().load(); }

void set_bind_policy(BindPolicy policy) {
  if (policy != BindPolicy::Auto && policy != BindPolicy::Eager && policy != BindPolicy::Never)
    throw Error(Info::InvalidValue, "bind policy must be Auto, Eager or Never");
  core::bind_policy_value().store(static_cast<int>(policy));
}

BindPolicy bind_policy() { return static_cast<BindPolicy>(core::bind_policy_value().load()); }

}  // namespace snk
