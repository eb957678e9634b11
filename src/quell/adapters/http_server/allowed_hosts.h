#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace quell::http_server {

// The host a Host header names, lower-case, without its port or a trailing dot:
// "Quell.Example.com.:8787" -> "quell.example.com", "[::1]:8787" -> "::1".
std::string HostName(std::string_view host_header);

// The host of an http:// or https:// URL, as HostName gives it ("https://q.example.com:8443/x"
// -> "q.example.com"); empty for anything else.
std::string UrlHost(std::string_view url);

// Whether a request naming `host_header` may be served without the token when reads are open.
// DNS rebinding points a name the attacker owns at this server, so a browser sends that name:
// allowed are an IP address (which no rebinding can produce), "localhost", and the names in
// `allowed` (as HostName gives them). The port is not compared: a browser always sends the
// one it connected to.
bool IsAllowedHost(std::string_view host_header, const std::vector<std::string>& allowed);

}  // namespace quell::http_server
