// Package ssh reaches agent hosts on another machine over SSH
// (`ahptui --host ssh://[user@]box[:port]`), the way git does: it runs
// the system ssh (AHPTUI_SSH_COMMAND, else `ssh` on PATH), so the user's
// ~/.ssh/config, agent, ProxyJump, certificates and known_hosts apply;
// it never speaks SSH itself.
//
// Discovery runs one small POSIX sh script on the box (sent on ssh's
// stdin, so nothing of it is on a command line): `code agent endpoints`
// when VS Code's CLI is on the remote PATH, else a listing of the
// remote's local-endpoint registry files
// (${XDG_CONFIG_HOME:-~/.config}/{Code,Code - Insiders,Code - OSS,
// code-oss}/agent-host/local-endpoint/entries/*.json) with their modes,
// owners and link counts and the owner of each pid they name, which
// host/registry.ReadRemote judges by the local registry's rules.
//
// The transport of each dial is an ssh process whose stdio is the
// stream the WebSocket upgrade runs over (host/dial.Stream): `code agent
// relay <instance>` when discovery came from VS Code's CLI, else
// `ssh -W 127.0.0.1:PORT` (TCP) or `ssh -W /path/to.sock` (OpenSSH's
// streamlocal forwarding, for a socket endpoint). The connection token
// goes inside the stream as the upgrade's ?tkn=, so it is never on a
// command line, and never in a message: ssh's stderr, which names the
// failures (host key, authentication, refused, dropped), never saw it.
//
// A host's identity is ssh://user@box:port/TYPE/INSTANCE (the user and
// port as `ssh -G` resolves them): what sign-ins, trust answers and
// saved hosts bind to, never a local port.
//
// It imports host/dial and host/registry only.
package ssh
