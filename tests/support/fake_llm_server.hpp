#pragma once
// tests/fixtures/fake_llm_server.py, started on 127.0.0.1 for one test and stopped (its whole
// process group) when the test is done.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpl::test {

class FakeLlmServer {
 public:
  /// script: the replies in turn (see the server's docstring).
  explicit FakeLlmServer(const nlohmann::json& script);
  ~FakeLlmServer();
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  /// "http://127.0.0.1:PORT/v1"
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  /// Every request it got so far: {"path", "authorization", "request"}.
  std::vector<nlohmann::json> requests() const;

 private:
  int pid_ = -1;
  int port_ = 0;
  std::string log_;
};

}  // namespace rpl::test
