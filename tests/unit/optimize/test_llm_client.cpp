// The chat-completions client against a stand-in OpenAI-compatible server on localhost
// (tests/fixtures/fake_llm_server.py): answers, retries, timeouts, refusals, oversized and
// malformed answers, each a reply with its error, never an exception.
#include <gtest/gtest.h>

#include <chrono>

#include <rpl/optimize/llm_client.hpp>

#include "fake_llm_server.hpp"
#include "test_support.hpp"

namespace rpl::optimize {
namespace {
using nlohmann::json;

LlmEndpoint endpoint(const test::FakeLlmServer& server) {
  LlmEndpoint e;
  e.url = server.url();
  e.model = "stand-in-model";
  e.api_key = "sk-test";
  e.timeout_seconds = 5;
  e.attempts = 3;
  e.backoff_seconds = 0.05;
  return e;
}

const std::vector<ChatMessage> kAsk = {{"system", "You write CUDA."}, {"user", "Make softmax faster."}};

TEST(LlmClient, AnAnswerAndTheRequestAsServersExpectIt) {
  test::FakeLlmServer server(json::array({{{"content", "```cuda\n__global__ void k() {}\n```"}}}));
  const auto reply = chat_completion(endpoint(server), kAsk);
  ASSERT_TRUE(reply.ok()) << reply.error;
  EXPECT_EQ(reply.content, "```cuda\n__global__ void k() {}\n```");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(requests[0]["authorization"], "Bearer sk-test");
  EXPECT_EQ(requests[0]["request"]["model"], "stand-in-model");
  EXPECT_EQ(requests[0]["request"]["messages"][1], (json{{"role", "user"}, {"content", "Make softmax faster."}}));
}

TEST(LlmClient, RateLimitedThenAnsweredAfterItsRetryAfter) {
  test::FakeLlmServer server(json::array({{{"status", 429}, {"retry_after", 0}, {"body", R"({"error":{"message":"slow down"}})"}},
                                          {{"content", "done"}}}));
  const auto reply = chat_completion(endpoint(server), kAsk);
  ASSERT_TRUE(reply.ok()) << reply.error;
  EXPECT_EQ(reply.content, "done");
  EXPECT_EQ(reply.attempts, (std::vector<std::string>{"HTTP 429: slow down, retried after 0 s", "HTTP 200"}));
}

TEST(LlmClient, ServerErrorsAreRetriedThenReported) {
  test::FakeLlmServer server(json::array({{{"status", 500}, {"body", "{}"}}}));
  const auto reply = chat_completion(endpoint(server), kAsk);
  EXPECT_FALSE(reply.ok());
  EXPECT_EQ(reply.error, "HTTP 500 (after 3 tries)");
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(LlmClient, AClientErrorIsNotRetried) {
  test::FakeLlmServer server(json::array({{{"status", 401}, {"body", R"({"error":{"message":"bad key"}})"}}}));
  const auto reply = chat_completion(endpoint(server), kAsk);
  EXPECT_EQ(reply.error, "HTTP 401: bad key");
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(LlmClient, AStallPastTheTimeoutIsTriedAgain) {
  test::FakeLlmServer server(json::array({{{"delay", 3}, {"content", "late"}}, {{"content", "in time"}}}));
  auto e = endpoint(server);
  e.timeout_seconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const auto reply = chat_completion(e, kAsk);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.5);
  ASSERT_TRUE(reply.ok()) << reply.error;
  EXPECT_EQ(reply.content, "in time");
  EXPECT_EQ(reply.attempts.front(), "no answer within 0.5 s, retried after 0.05 s");
}

TEST(LlmClient, ATenMegabyteAnswerIsRefused) {
  test::FakeLlmServer server(json::array({{{"content", "x"}, {"pad_to", 10 << 20}}}));
  const auto reply = chat_completion(endpoint(server), kAsk);
  EXPECT_EQ(reply.error, "an answer larger than 4194304 bytes");
}

TEST(LlmClient, RefusalsEmptyAndMalformedAnswers) {
  test::FakeLlmServer server(json::array({{{"refusal", "I can't help with that."}},
                                          {{"content", ""}},
                                          {{"body", "not json"}},
                                          {{"body", R"({"choices": []})"}}}));
  const auto e = endpoint(server);
  EXPECT_EQ(chat_completion(e, kAsk).error, "the model refused: I can't help with that.");
  EXPECT_EQ(chat_completion(e, kAsk).error, "an empty answer");
  EXPECT_EQ(chat_completion(e, kAsk).error, "the response is not a chat completion (no choices[0].message)");
  EXPECT_EQ(chat_completion(e, kAsk).error, "the response is not a chat completion (no choices[0].message)");
}

TEST(LlmClient, AnUnreachableServerAndOtherProtocols) {
  LlmEndpoint e;
  e.url = "http://127.0.0.1:9/v1";  // the discard port: nothing listens
  e.model = "m";
  e.attempts = 2;
  e.backoff_seconds = 0.01;
  const auto reply = chat_completion(e, kAsk);
  EXPECT_NE(reply.error.find("http://127.0.0.1:9/v1/chat/completions: Couldn't connect to server (after 2 tries)"),
            std::string::npos)
      << reply.error;
  e.url = "file:///etc/passwd";
  EXPECT_NE(chat_completion(e, kAsk).error.find("Unsupported protocol"), std::string::npos);
}

TEST(LlmClient, BaseOrFullUrl) {
  EXPECT_EQ(chat_completions_url("http://h:8000/v1"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://h:8000/v1/"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("https://api.example/v1/chat/completions"), "https://api.example/v1/chat/completions");
}

}  // namespace
}  // namespace rpl::optimize
