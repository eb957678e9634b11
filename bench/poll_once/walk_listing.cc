// The simulator's ceiling for bench/poll_once/run: every page of an error-group listing fetched
// on one kept-alive connection, following next_cursor, parsing nothing else. A shell loop of
// curl processes measured mostly itself (a process start and a grep over each 430 KB page,
// about 80 ms a page), which the benchmark once reported as the simulator's cost.
//   quell-bench-walk-listing BASE_URL [LIMIT]   prints "pages N bytes B seconds S"
//   quell-bench-walk-listing --sim GROUPS       the same over an in-process simulator holding
//                                               GROUPS generated groups (the ctest smoke run)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "quell/adapters/curl/curl_http_client.h"
#include "quell/sim/server.h"

namespace {

// The cursor of `body`, or "" on the last page. The envelope ends with the listing's
// next_cursor and the metadata, so the search starts near the end.
std::string NextCursor(const std::string& body) {
  const std::string key = "\"next_cursor\":\"";
  const size_t at = body.rfind(key);
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size();
  const size_t end = body.find('"', begin);
  return end == std::string::npos ? "" : body.substr(begin, end - begin);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: quell-bench-walk-listing BASE_URL [LIMIT]\n");
    return 2;
  }
  std::string base = argv[1];
  std::string limit = argc > 2 ? argv[2] : "1000";
  std::unique_ptr<quell::sim::SimServer> sim;
  if (base == "--sim" && argc > 2) {
    quell::sim::SimOptions options;
    options.scenario = nlohmann::json{
        {"generate_groups", {{"count", std::atoll(argv[2])}, {"resolved_every", 10}}}};
    options.config.max_page_size = 1000;
    sim = std::make_unique<quell::sim::SimServer>(std::move(options));
    auto port = sim->Start();
    if (!port.ok()) {
      std::fprintf(stderr, "quell-sim: %s\n", port.error().message.c_str());
      return 1;
    }
    base = "http://127.0.0.1:" + std::to_string(*port);
    limit = "1000";
  }
  quell::curl::CurlHttpClient client;
  quell::core::HttpRequest request;
  request.headers = {{"Authorization", "Bearer ifr_bench_walk"}};
  std::string cursor;
  size_t pages = 0;
  size_t bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  do {
    request.url = base + "/v1/errors/groups?limit=" + limit;
    if (!cursor.empty()) request.url += "&cursor=" + cursor;
    auto response = client.Send(request);
    if (!response.ok() || response->status != 200) {
      std::fprintf(stderr, "page %zu failed: %s\n", pages + 1,
                   response.ok() ? std::to_string(response->status).c_str()
                                 : response.error().message.c_str());
      return 1;
    }
    ++pages;
    bytes += response->body.size();
    cursor = NextCursor(response->body);
  } while (!cursor.empty());
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::printf("pages %zu bytes %zu seconds %.3f\n", pages, bytes, took.count());
  return 0;
}
