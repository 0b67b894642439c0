#pragma once
// A client of the OpenAI-compatible chat-completions API (OpenAI, vLLM, llama.cpp's server,
// Ollama): POST {base}/chat/completions with the model and the messages, the answer from
// choices[0].message.content. Over libcurl, HTTP or HTTPS only. Every failure (unreachable server,
// timeout, HTTP 429 or 5xx after its retries, another HTTP error, a refusal, an empty or oversized
// answer, a body that is no chat completion) is a reply with its error set, never an exception:
// one bad answer must not end an optimization run.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rpl::optimize {

struct LlmEndpoint {
  std::string url;                     // the base ("http://localhost:8000/v1") or the full .../chat/completions
  std::string model;
  std::string api_key;                 // sent as "Authorization: Bearer KEY"; none when empty
  double timeout_seconds = 300;        // one request, connection included
  int attempts = 4;                    // tries, for 429, 5xx, timeouts and connection failures
  double backoff_seconds = 2;          // before the second try, doubled after each; a Retry-After header wins (at most 60 s)
  size_t max_answer_bytes = 4u << 20;  // a larger response body is refused
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct ChatReply {
  std::string content;                // the model's answer; empty on failure
  std::string error;                  // why there is no answer; empty on success
  std::vector<std::string> attempts;  // one line per try: "HTTP 429, retried after 1 s", "HTTP 200"
  bool ok() const { return error.empty(); }
};

/// The full URL requests go to: url itself when it ends in /chat/completions, else url + "/chat/completions".
std::string chat_completions_url(const std::string& url);

/// Why the server cannot be reached (a connection refused, a host that does not resolve), or none
/// when a connection opens: checked before a run spends time on what comes before the first request.
std::optional<std::string> unreachable(const LlmEndpoint& endpoint);

ChatReply chat_completion(const LlmEndpoint& endpoint, const std::vector<ChatMessage>& messages);

}  // namespace rpl::optimize
