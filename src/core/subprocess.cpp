#include <rpl/core/subprocess.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include <rpl/core/error.hpp>
#include <rpl/core/stop_signals.hpp>

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

// A pipe from the child: we read fd; write_end is the child's side, closed in the parent after spawn.
struct OutputStream {
  int fd = -1;
  int write_end = -1;
  int copy_to = -1;
};

struct FileDescriptor {
  int fd = -1;
  FileDescriptor() = default;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Writes everything, or gives up quietly where the reader is gone (a closed terminal must not fail
// the profile).
void write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t put = ::write(fd, data, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return;
    data += put;
    n -= static_cast<size_t>(put);
  }
}

}  // namespace

std::string ProcessResult::describe(double timeout_seconds) const {
  if (timed_out) return fmt::format("timed out after {:g} s (its process group was killed)", timeout_seconds);
  if (cancelled) return "was stopped (interrupted)";
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

int spawn_detached(const std::vector<std::string>& argv) {
  if (argv.empty()) fail(Errc::internal, "spawn_detached: empty argv");
  auto exe = find_executable(argv[0]);
  if (!exe) fail(Errc::missing_tool, "{}: command not found", argv[0]);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  // The session exists before the program runs (unlike `setsid -f`, whose child may still be in
  // our group when run_process kills the group it started).
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<std::string> argv_strings = argv;
  auto argv_c = c_strings(argv_strings);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, exe->c_str(), &actions, &attr, argv_c.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) fail(Errc::missing_tool, "{}: cannot execute: {}", exe->string(), std::strerror(rc));
  return pid;
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

  // Pipes we read while the child runs: one for captured output, or two (stdout, stderr) to tee.
  std::vector<OutputStream> streams;
  auto add_pipe = [&](std::initializer_list<int> child_fds, int copy_to) {
    std::array<int, 2> fds{};
    if (::pipe2(fds.data(), O_CLOEXEC) != 0) fail(Errc::internal, "pipe: {}", std::strerror(errno));
    for (int child_fd : child_fds) posix_spawn_file_actions_adddup2(&actions, fds[1], child_fd);
    streams.push_back({fds[0], fds[1], copy_to});
  };
  FileDescriptor tee;
  if (options.tee_file) {
    tee.fd = ::open(options.tee_file->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (tee.fd < 0) fail(Errc::bad_input, "{}: cannot write: {}", options.tee_file->string(), std::strerror(errno));
    add_pipe({STDOUT_FILENO}, options.tee_stdout_to);
    add_pipe({STDERR_FILENO}, options.tee_stderr_to);
  } else if (options.output_file) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.output_file->c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  } else if (options.capture_output) {
    add_pipe({STDOUT_FILENO, STDERR_FILENO}, -1);
  }
  if (options.error_file && !options.tee_file) {
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
  for (auto& stream : streams) {
    ::close(stream.write_end);
    stream.write_end = -1;
  }
  if (rc != 0) {
    for (auto& stream : streams) ::close(stream.fd);
    fail(Errc::missing_tool, "{}: cannot execute: {}", exe->string(), std::strerror(rc));
  }

  ProcessResult result;
  // Without a flag of its own, a run stops when the user asks the whole command to (Ctrl-C).
  const std::atomic<bool>* cancel = options.cancel ? options.cancel : active_stop_flag();
  const bool has_deadline = options.timeout && options.timeout->count() > 0;
  const auto deadline = has_deadline
      ? start + std::chrono::duration_cast<Clock::duration>(*options.timeout) : Clock::time_point::max();
  int pidfd = open_pidfd(pid);
  int status = 0;
  bool exited = false;
  // Whatever a stream delivers goes to the tee file, its copy descriptor, or the captured output.
  auto deliver = [&](const OutputStream& stream, const char* data, size_t n) {
    if (tee.fd >= 0) write_all(tee.fd, data, n);
    if (stream.copy_to >= 0) write_all(stream.copy_to, data, n);
    if (options.capture_output && !options.tee_file) result.output.append(data, n);
  };
  auto open_streams = [&] {
    return std::count_if(streams.begin(), streams.end(), [](const OutputStream& st) { return st.fd >= 0; });
  };

  while (!exited) {
    int wait_ms = -1;
    if (cancel && cancel->load()) {
      result.cancelled = true;
      kill_group(pid);
      ::waitpid(pid, &status, 0);
      break;
    }
    if (cancel) wait_ms = 100;  // look at the flag this often
    if (has_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        result.timed_out = true;
        kill_group(pid);
        ::waitpid(pid, &status, 0);
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left, wait_ms < 0 ? 1000 : wait_ms));
    }
    if (pidfd < 0 && open_streams() == 0) {
      // No pidfd on this kernel: poll for exit.
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) { exited = true; break; }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    std::array<pollfd, 3> fds{};
    std::array<OutputStream*, 3> owners{};
    nfds_t n = 0;
    if (pidfd >= 0) fds[n++] = {pidfd, POLLIN, 0};
    for (auto& stream : streams) {
      if (stream.fd < 0) continue;
      owners[n] = &stream;
      fds[n++] = {stream.fd, POLLIN, 0};
    }
    if (pidfd < 0 && wait_ms < 0) wait_ms = 10;
    int pr = ::poll(fds.data(), n, wait_ms);
    if (pr < 0 && errno != EINTR) fail(Errc::internal, "poll: {}", std::strerror(errno));
    for (nfds_t i = 0; i < n; ++i) {
      if (!owners[i] || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buffer[65536];
      ssize_t got = ::read(owners[i]->fd, buffer, sizeof buffer);
      if (got > 0) {
        deliver(*owners[i], buffer, static_cast<size_t>(got));
      } else if (got == 0) {
        ::close(owners[i]->fd);
        owners[i]->fd = -1;
      }
    }
    // Once the pipes are closed (or absent) and the child is gone, we are done; a grandchild
    // holding a pipe open must not keep us waiting past the child's exit.
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) exited = true;
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Drain what is left in the pipes without blocking on grandchildren that still hold them.
  for (auto& stream : streams) {
    if (stream.fd < 0) continue;
    ::fcntl(stream.fd, F_SETFL, O_NONBLOCK);
    char buffer[65536];
    ssize_t got;
    while ((got = ::read(stream.fd, buffer, sizeof buffer)) > 0) deliver(stream, buffer, static_cast<size_t>(got));
    ::close(stream.fd);
    stream.fd = -1;
  }
  if (pidfd >= 0) ::close(pidfd);
  if (!result.timed_out && !result.cancelled) {
    // Leftover members of the group (daemons the program forked) are not ours to keep running.
    ::kill(-pid, SIGKILL);
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out && !result.cancelled) result.term_signal = WTERMSIG(status);
  return result;
}

}  // namespace rpl
