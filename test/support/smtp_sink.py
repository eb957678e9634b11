#!/usr/bin/python3
"""A real SMTP server for quell's e-mail tests (Debian's python3-aiosmtpd).

Listens on 127.0.0.1 on a port the kernel picks, offers STARTTLS with the given certificate and
refuses mail before it (require_starttls), optionally requires AUTH, and writes each accepted
message to DIR/NNNN.eml (the envelope in DIR/NNNN.env). Prints "PORT <n>" on stdout once it
accepts connections. --implicit-tls speaks TLS from the first byte (smtps). Misbehaves on
demand: --fail-first N --fail-code 451 answers DATA of the first N messages with that code;
--reject-code 550 answers every RCPT TO with it. Runs until SIGTERM.
Run with /usr/bin/python3 (the Debian build that has aiosmtpd).
"""

import argparse
import os
import signal
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, directory, fail_first, fail_code, reject_code):
        self.directory = directory
        self.fail_left = fail_first
        self.fail_code = fail_code
        self.reject_code = reject_code
        self.count = 0
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject_code:
            return f"{self.reject_code} 5.1.1 <{address}>: mailbox unavailable (test)"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.fail_left > 0:
                self.fail_left -= 1
                return f"{self.fail_code} 4.3.0 try again later (test)"
            self.count += 1
            n = self.count
        base = os.path.join(self.directory, f"{n:04d}")
        with open(base + ".env", "w") as out:
            out.write(f"from {envelope.mail_from}\n")
            for rcpt in envelope.rcpt_tos:
                out.write(f"to {rcpt}\n")
            # session.ssl is set by STARTTLS; implicit TLS shows on the transport.
            tls = session.ssl is not None or (
                server.transport.get_extra_info("ssl_object") is not None)
            out.write(f"tls {'yes' if tls else 'no'}\n")
            out.write(f"auth {'yes' if session.authenticated else 'no'}\n")
        with open(base + ".tmp", "wb") as out:
            out.write(envelope.original_content or envelope.content)
        # Renamed last, so a reader never sees half a message.
        os.rename(base + ".tmp", base + ".eml")
        return "250 2.0.0 queued"


class PortZeroController(Controller):
    """aiosmtpd's Controller binds host:port itself; here the socket is bound first, on port 0."""

    def __init__(self, handler, sock, **kwargs):
        self.sock = sock
        super().__init__(handler, hostname="127.0.0.1", port=sock.getsockname()[1], **kwargs)

    def _create_server(self):
        return self.loop.create_server(self._factory_invoker, sock=self.sock,
                                       ssl=self.ssl_context)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--auth", default="", help="user:password that AUTH must present")
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--fail-code", type=int, default=451)
    parser.add_argument("--reject-code", type=int, default=0)
    parser.add_argument("--no-starttls", action="store_true", help="offer no STARTTLS at all")
    parser.add_argument("--implicit-tls", action="store_true", help="TLS from the first byte")
    args = parser.parse_args()

    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(args.cert, args.key)

    auth_kwargs = {}
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user
                  and auth_data.password.decode() == password)
            # handled=False: aiosmtpd answers 535 itself (by default it would say nothing).
            return AuthResult(success=ok, handled=False)

        auth_kwargs = dict(authenticator=authenticator, auth_required=True,
                           auth_require_tls=True)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    plain = args.no_starttls or args.implicit_tls
    controller = PortZeroController(
        Sink(args.dir, args.fail_first, args.fail_code, args.reject_code), sock,
        ssl_context=tls if args.implicit_tls else None,
        tls_context=None if plain else tls,
        require_starttls=not plain,
        decode_data=False,
        server_hostname="localhost",
        **auth_kwargs)
    controller.start()
    print(f"PORT {sock.getsockname()[1]}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(3600):
        pass
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
