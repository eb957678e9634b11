// quell-sim as a child process: first stdout line names the port; SIGTERM stops it cleanly.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "test_paths.h"

namespace {

TEST(QuellSimProcessTest, PrintsPortServesAndStopsOnSigterm) {
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const std::string scenario = quell::testing::SourcePath("test/sim/data/flapping.json");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    execl(quell::testing::QuellSimBinary(), quell::testing::QuellSimBinary(), "--listen",
          "127.0.0.1:0", "--scenario", scenario.c_str(), "--fault",
          "route=errors.groups,kind=503,count=1", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  FILE* f = fdopen(out[0], "r");
  char line[128] = {0};
  ASSERT_NE(fgets(line, sizeof line, f), nullptr);
  int port = 0;
  ASSERT_EQ(std::sscanf(line, "listening 127.0.0.1:%d", &port), 1) << line;
  httplib::Client client("127.0.0.1", port);
  httplib::Headers auth = {{"Authorization", "Bearer ifr_x"}};
  EXPECT_EQ(client.Get("/v1/errors/groups", auth)->status, 503);  // the --fault
  auto ok = client.Get("/v1/errors/groups", auth);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_NE(ok->body.find("grp_checkout"), std::string::npos);
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  fclose(f);
}

}  // namespace
