#include <rpl/core/subprocess.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include <rpl/core/error.hpp>

extern char** environ;

namespace rpl {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Environment of the child: ours, with extra_env added or replacing.
std::vector<std::string> child_environment(const ProcessOptions& options) {
  std::map<std::string, std::string> env;
  std::vector<std::string> order;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string key = entry.substr(0, eq);
    if (!env.count(key)) order.push_back(key);
    env[key] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : options.extra_env) {
    if (!env.count(key)) order.push_back(key);
    env[key] = value;
  }
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const auto& key : order) out.push_back(key + "=" + env[key]);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

// Kills the whole process group: TERM, a short grace, then KILL.
void kill_group(pid_t pgid) {
  ::kill(-pgid, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (::kill(-pgid, 0) != 0) return;
    int status = 0;
    ::waitpid(pgid, &status, WNOHANG);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pgid, SIGKILL);
}

}  // namespace

std::string ProcessResult::describe(double timeout_seconds) const {
  if (timed_out) return fmt::format("timed out after {:g} s (its process group was killed)", timeout_seconds);
  if (term_signal != 0) return fmt::format("was killed by signal {} ({})", term_signal, ::strsignal(term_signal));
  return fmt::format("exited with status {}", exit_status);
}

std::optional<fs::path> find_executable(const std::string& name, const std::vector<fs::path>& fallback_dirs) {
  if (name.empty()) return std::nullopt;
  auto runnable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (runnable(name)) return fs::path(name);
    return std::nullopt;
  }
  const char* path_env = std::getenv("PATH");
  std::string_view rest = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    auto colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / name;
    if (runnable(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  for (const auto& dir : fallback_dirs) {
    if (runnable(dir / name)) return dir / name;
  }
  return std::nullopt;
}

std::string display_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !arg.empty() && arg.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += arg;
    } else {
      out += '\'';
      for (char c : arg) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

ProcessResult run_process(const ProcessOptions& options) {
  if (options.argv.empty()) fail(Errc::internal, "run_process: empty argv");
  auto exe = find_executable(options.argv[0]);
  if (!exe) fail(Errc::missing_tool, "{}: command not found", options.argv[0]);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  // A new process group led by the child, so a timeout can kill everything it started.
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::array<int, 2> pipe_fds{-1, -1};
  if (options.output_file) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.output_file->c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  } else if (options.capture_output) {
    if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) fail(Errc::internal, "pipe: {}", std::strerror(errno));
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  }
  if (options.error_file) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, options.error_file->c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (options.working_directory) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    posix_spawn_file_actions_addchdir_np(&actions, options.working_directory->c_str());
#endif
  }

  std::vector<std::string> argv_strings = options.argv;
  std::vector<std::string> env_strings = child_environment(options);
  auto argv_c = c_strings(argv_strings);
  auto env_c = c_strings(env_strings);

  pid_t pid = -1;
  auto start = Clock::now();
  int rc = ::posix_spawn(&pid, exe->c_str(), &actions, &attr, argv_c.data(), env_c.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (pipe_fds[1] >= 0) ::close(pipe_fds[1]);
  if (rc != 0) {
    if (pipe_fds[0] >= 0) ::close(pipe_fds[0]);
    fail(Errc::missing_tool, "{}: cannot execute: {}", exe->string(), std::strerror(rc));
  }

  ProcessResult result;
  const bool has_deadline = options.timeout && options.timeout->count() > 0;
  const auto deadline = has_deadline
      ? start + std::chrono::duration_cast<Clock::duration>(*options.timeout) : Clock::time_point::max();
  int pidfd = open_pidfd(pid);
  int out_fd = pipe_fds[0];
  int status = 0;
  bool exited = false;

  while (!exited) {
    int wait_ms = -1;
    if (has_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        result.timed_out = true;
        kill_group(pid);
        ::waitpid(pid, &status, 0);
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left, 1000));
    }
    if (pidfd < 0 && out_fd < 0) {
      // No pidfd on this kernel: poll for exit.
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) { exited = true; break; }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    std::array<pollfd, 2> fds{};
    nfds_t n = 0;
    if (pidfd >= 0) fds[n++] = {pidfd, POLLIN, 0};
    if (out_fd >= 0) fds[n++] = {out_fd, POLLIN, 0};
    if (pidfd < 0 && wait_ms < 0) wait_ms = 10;
    int pr = ::poll(fds.data(), n, wait_ms);
    if (pr < 0 && errno != EINTR) fail(Errc::internal, "poll: {}", std::strerror(errno));
    if (out_fd >= 0) {
      char buffer[65536];
      for (nfds_t i = 0; i < n; ++i) {
        if (fds[i].fd == out_fd && (fds[i].revents & (POLLIN | POLLHUP))) {
          ssize_t got = ::read(out_fd, buffer, sizeof buffer);
          if (got > 0) {
            result.output.append(buffer, static_cast<size_t>(got));
          } else if (got == 0) {
            ::close(out_fd);
            out_fd = -1;
          }
        }
      }
    }
    // Once the pipe is closed (or absent) and the child is gone, we are done; a grandchild holding
    // the pipe open must not keep us waiting past the child's exit.
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) exited = true;
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Drain what is left in the pipe without blocking on grandchildren that still hold it.
  if (out_fd >= 0) {
    ::fcntl(out_fd, F_SETFL, O_NONBLOCK);
    char buffer[65536];
    ssize_t got;
    while ((got = ::read(out_fd, buffer, sizeof buffer)) > 0) result.output.append(buffer, static_cast<size_t>(got));
    ::close(out_fd);
  }
  if (pidfd >= 0) ::close(pidfd);
  if (!result.timed_out) {
    // Leftover members of the group (daemons the program forked) are not ours to keep running.
    ::kill(-pid, SIGKILL);
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out) result.term_signal = WTERMSIG(status);
  return result;
}

}  // namespace rpl
