// librpl_callback_probe.so: an injection library that prints, for every driver and runtime API
// call whose name contains one of RPL_PROBE_MATCH's comma-separated words (default: Launch, Alloc,
// Free, Module, Library, MemMap), a line "<domain> <name> depth=<n>", where depth counts the API
// calls already open on this thread, plus every module load with its image's first bytes. It
// answers what the capture relies on: whether a runtime launch or allocation also reaches the
// driver's callbacks, and when modules load (scripts/gpu/probe_callbacks.sh).
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<std::string> words;
thread_local int depth = 0;

bool wanted(const char* name) {
  for (const auto& w : words) {
    if (std::strstr(name, w.c_str())) return true;
  }
  return false;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      const auto* r = static_cast<const CUpti_ResourceData*>(cbdata);
      const auto* m = static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor);
      const auto* b = reinterpret_cast<const unsigned char*>(m->pCubin);
      std::fprintf(stderr, "probe resource MODULE_LOADED id=%u size=%zu magic=%02x%02x%02x%02x depth=%d\n", m->moduleId,
                   m->cubinSize, b ? b[0] : 0, b ? b[1] : 0, b ? b[2] : 0, b ? b[3] : 0, depth);
    }
    return;
  }
  const auto* d = static_cast<const CUpti_CallbackData*>(cbdata);
  if (d->callbackSite == CUPTI_API_EXIT) {
    --depth;
    return;
  }
  if (wanted(d->functionName)) {
    std::fprintf(stderr, "probe %s %s depth=%d%s%s\n", domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime",
                 d->functionName, depth, d->symbolName ? " symbol=" : "", d->symbolName ? d->symbolName : "");
  }
  ++depth;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  std::string list = std::getenv("RPL_PROBE_MATCH") ? std::getenv("RPL_PROBE_MATCH") : "Launch,Alloc,Free,Module,Library,MemMap";
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) words.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, on_callback, nullptr) != CUPTI_SUCCESS) return 0;
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
  return 1;
}
