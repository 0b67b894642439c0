#include <rpl/optimize/llm_client.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpl::optimize {
namespace {

using Json = nlohmann::json;

struct Response {
  long status = 0;
  std::string body;
  bool too_large = false;
  size_t limit = 0;
  double retry_after = -1;  // seconds, from a Retry-After header
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& r = *static_cast<Response*>(user);
  const size_t n = size * count;
  if (r.body.size() + n > r.limit) {
    r.too_large = true;
    return 0;  // ends the transfer
  }
  r.body.append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto& r = *static_cast<Response*>(user);
  const std::string line(data, size * count);
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size()) {
    std::string lower = line.substr(0, name.size());
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower == name) {
      try {
        r.retry_after = std::stod(line.substr(name.size()));
      } catch (const std::exception&) {
        // an HTTP date: the backoff stands
      }
    }
  }
  return size * count;
}

// What a server said about an error, from an OpenAI-style {"error": {"message": ...}} body.
std::string error_message(const std::string& body) {
  const auto doc = Json::parse(body, nullptr, false);
  if (doc.is_object() && doc.contains("error")) {
    const auto& e = doc["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    if (e.is_string()) return e.get<std::string>();
  }
  return "";
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* s) const { curl_slist_free_all(s); }
};

// One request: the curl result and what came back.
CURLcode post(const LlmEndpoint& e, const std::string& url, const std::string& body, Response& r) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return CURLE_FAILED_INIT;
  std::unique_ptr<curl_slist, SlistDeleter> headers(curl_slist_append(nullptr, "Content-Type: application/json"));
  if (!e.api_key.empty()) headers.reset(curl_slist_append(headers.release(), ("Authorization: Bearer " + e.api_key).c_str()));
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(e.timeout_seconds * 1000));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: safe beside other threads
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "rocm-perf");
  r.limit = e.max_answer_bytes;
  const CURLcode code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  return code;
}

// The answer of a chat completion body, or the error saying why there is none.
void read_answer(const std::string& body, ChatReply& reply) {
  const auto doc = Json::parse(body, nullptr, false);
  if (!doc.is_object() || !doc.contains("choices") || !doc["choices"].is_array() || doc["choices"].empty() ||
      !doc["choices"][0].is_object() || !doc["choices"][0].contains("message")) {
    reply.error = "the response is not a chat completion (no choices[0].message)";
    return;
  }
  const auto& m = doc["choices"][0]["message"];
  if (m.contains("refusal") && m["refusal"].is_string() && !m["refusal"].get<std::string>().empty()) {
    reply.error = "the model refused: " + m["refusal"].get<std::string>();
    return;
  }
  if (!m.contains("content") || !m["content"].is_string() || m["content"].get<std::string>().empty()) {
    reply.error = "an empty answer";
    return;
  }
  reply.content = m["content"].get<std::string>();
}

}  // namespace

std::string chat_completions_url(const std::string& url) {
  constexpr std::string_view tail = "/chat/completions";
  std::string u = url;
  while (!u.empty() && u.back() == '/') u.pop_back();
  if (u.size() >= tail.size() && u.compare(u.size() - tail.size(), tail.size(), tail) == 0) return u;
  return u + std::string(tail);
}

std::optional<std::string> unreachable(const LlmEndpoint& e) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return "libcurl cannot start";
  CURL* c = curl.get();
  const std::string url = chat_completions_url(e.url);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(e.timeout_seconds, 30.0) * 1000));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  const CURLcode code = curl_easy_perform(c);
  if (code == CURLE_OK) return std::nullopt;
  return fmt::format("{}: {}", url, curl_easy_strerror(code));
}

ChatReply chat_completion(const LlmEndpoint& e, const std::vector<ChatMessage>& messages) {
  Json request = {{"model", e.model}, {"messages", Json::array()}};
  for (const auto& m : messages) request["messages"].push_back({{"role", m.role}, {"content", m.content}});
  const std::string body = request.dump();
  const std::string url = chat_completions_url(e.url);
  ChatReply reply;
  double backoff = e.backoff_seconds;
  for (int attempt = 1; attempt <= std::max(1, e.attempts); ++attempt) {
    Response r;
    const CURLcode code = post(e, url, body, r);
    bool retry = false;
    std::string what;
    if (r.too_large) {
      reply.error = fmt::format("an answer larger than {} bytes", e.max_answer_bytes);
      reply.attempts.push_back(reply.error);
      return reply;
    }
    if (code == CURLE_OPERATION_TIMEDOUT) {
      what = fmt::format("no answer within {} s", e.timeout_seconds);
      retry = true;
    } else if (code != CURLE_OK) {
      what = fmt::format("{}: {}", url, curl_easy_strerror(code));
      retry = code == CURLE_COULDNT_CONNECT || code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR ||
              code == CURLE_GOT_NOTHING || code == CURLE_PARTIAL_FILE;
    } else if (r.status == 429 || r.status >= 500) {
      const std::string said = error_message(r.body);
      what = fmt::format("HTTP {}{}", r.status, said.empty() ? "" : ": " + said);
      retry = true;
    } else if (r.status != 200) {
      const std::string said = error_message(r.body);
      reply.error = fmt::format("HTTP {}{}", r.status, said.empty() ? "" : ": " + said);
      reply.attempts.push_back(reply.error);
      return reply;
    } else {
      reply.attempts.push_back("HTTP 200");
      read_answer(r.body, reply);
      return reply;
    }
    if (!retry || attempt == e.attempts) {
      reply.attempts.push_back(what);
      reply.error = attempt > 1 ? fmt::format("{} (after {} tries)", what, attempt) : what;
      return reply;
    }
    const double wait = r.retry_after >= 0 ? std::min(r.retry_after, 60.0) : backoff;
    reply.attempts.push_back(fmt::format("{}, retried after {} s", what, wait));
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    backoff *= 2;
  }
  return reply;
}

}  // namespace rpl::optimize
