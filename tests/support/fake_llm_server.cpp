#include "fake_llm_server.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "test_support.hpp"

namespace rpl::test {

FakeLlmServer::FakeLlmServer(const nlohmann::json& script) {
  const auto dir = fresh_dir("llm-server");
  const std::string script_file = (dir / "script.json").string();
  log_ = (dir / "requests.jsonl").string();
  std::ofstream(script_file) << script.dump();
  const std::string server = (source_dir() / "tests/fixtures/fake_llm_server.py").string();
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe");
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execlp("python3", "python3", server.c_str(), script_file.c_str(), log_.c_str(), "120", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string line;
  pollfd p{fds[0], POLLIN, 0};
  while (line.find('\n') == std::string::npos && ::poll(&p, 1, 10'000) > 0) {
    char c[64];
    const ssize_t n = ::read(fds[0], c, sizeof c);
    if (n <= 0) break;
    line.append(c, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (line.rfind("port ", 0) != 0) throw std::runtime_error("the stand-in LLM server did not start: " + line);
  port_ = std::stoi(line.substr(5));
}

FakeLlmServer::~FakeLlmServer() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

std::vector<nlohmann::json> FakeLlmServer::requests() const {
  std::vector<nlohmann::json> out;
  std::ifstream in(log_);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace rpl::test
