// Package trust is the one policy for saved sign-ins: whether a saved
// OAuth token may be pushed (`authenticate`) to a host now, asked about
// first, or kept back. The terminal UI and the commands both call
// Decide, so they cannot disagree; each renders an Ask its own way (the
// UI as a question, a command as a line naming the flag that says yes).
//
// Decide is a pure function of what the caller knows: the host's
// identity and transport, how it was found and whether it is proven to
// be the user's own, authpkce.Lookup's decision for the grant (which
// matches grants to hosts and issuers and holds the remembered "use it
// here" answers), whether this host advertised the resource, and the
// answers given this run. Wants is the one reading of which tokens a
// host asks for.
package trust

import (
	"net/url"
	"strings"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/dial"
)

// Transport is how the host is reached.
type Transport int

const (
	// TLS: wss:// (https:// in a --host).
	TLS Transport = iota + 1
	// PlainLoopback: ws:// to this machine.
	PlainLoopback
	// PlainRemote: ws:// to another machine (--insecure).
	PlainRemote
	// UnixByHand: a Unix socket named by hand (ws+unix://).
	UnixByHand
	// UnixRegistry: a Unix socket VS Code's registry published.
	UnixRegistry
	// SSH: a host on another machine whose box's registry (owner-only,
	// its pid the login's) published it, reached inside ssh (the box's
	// host key checked by ssh).
	SSH
)

func (t Transport) String() string {
	switch t {
	case TLS:
		return "wss://"
	case PlainLoopback:
		return "plain ws:// on this machine"
	case PlainRemote:
		return "plain ws:// to another machine"
	case UnixByHand:
		return "a Unix socket given by hand"
	case UnixRegistry:
		return "a Unix socket from VS Code's registry"
	case SSH:
		return "SSH to the box whose registry lists it"
	}
	return "an unknown transport"
}

// plain reports whether the transport proves nothing about who listens.
func (t Transport) plain() bool { return t != TLS && t != UnixRegistry && t != SSH }

// Found is how the host was found.
type Found int

const (
	// CommandLine: --host URL.
	CommandLine Found = iota + 1
	// Saved: a saved host's name (hosts.yml).
	Saved
	// Registry: VS Code's local agent-host registry.
	Registry
)

// TransportOf is the transport of host (a token-free URL): a ws+unix://
// socket is UnixRegistry when the host came from the registry, else
// UnixByHand; an unparsable URL is PlainRemote, the least trusted.
func TransportOf(host string, found Found) Transport {
	u, err := url.Parse(strings.TrimSpace(host))
	if err != nil {
		return PlainRemote
	}
	switch strings.ToLower(u.Scheme) {
	case "wss", "https":
		return TLS
	case "ssh":
		return SSH
	case "ws+unix":
		if found == Registry {
			return UnixRegistry
		}
		return UnixByHand
	case "ws", "http":
		if dial.IsLoopback(u.Hostname()) {
			return PlainLoopback
		}
	}
	return PlainRemote
}

// OnThisMachine reports whether host (a token-free URL) is served on
// this machine: a socket file, or a loopback address whatever the scheme.
// The UI offers only such a host the directory it runs in as a new
// session's folder.
func OnThisMachine(host string) bool {
	u, err := url.Parse(strings.TrimSpace(host))
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.ToLower(u.Scheme), "+unix") || dial.IsLoopback(u.Hostname())
}

// PlainAnswer is this run's answer to "send saved sign-ins over plain
// ws:// to this host?".
type PlainAnswer int

const (
	PlainUnasked PlainAnswer = iota
	PlainYes
	PlainNo
)

// Input is everything Decide weighs for one resource on one host.
type Input struct {
	// Host is the token-free URL of the host.
	Host      string
	Transport Transport
	Found     Found
	// Proven: the host is the user's own — a registry entry with a live
	// pid owned by the user, its peer checked on this connection. A
	// registry host whose entry vanished is not proven any more.
	Proven bool
	// Resource is what the token is for; Advertised, that this host
	// advertised it (a protected resource, an MCP server's or a tool
	// call's requirement).
	Resource   string
	Advertised bool
	// Match is authpkce.Lookup's answer for the resource on Host (it
	// holds the remembered "use it here" answers); Match.Token.Host is
	// the host the grant was made on.
	Match authpkce.Match
	// Plain is this run's answer to sending over plain ws:// (the UI's).
	Plain PlainAnswer
	// Allow is the user's explicit yes given up front (the commands'
	// --allow-saved-tokens): it answers both questions.
	Allow bool
}

// Connected is the host's part of an Input, for a host connected now and
// found as found: its transport, and whether it is proven the user's own.
// A host from VS Code's registry is, while it is connected: every dial to
// one re-reads its entry and checks the peer (host/dial), and a failed
// check is no connection at all. Both front-ends start from it.
func Connected(host string, found Found) Input {
	return Input{Host: host, Transport: TransportOf(host, found), Found: found, Proven: found == Registry}
}

// Kind is what happens with the saved token.
type Kind int

const (
	// Refuse: nothing is sent and nothing is asked.
	Refuse Kind = iota
	// Push: send it now.
	Push
	// Ask: send it only after the user says yes.
	Ask
)

func (k Kind) String() string {
	switch k {
	case Push:
		return "push"
	case Ask:
		return "ask"
	}
	return "refuse"
}

// Question is what an Ask asks.
type Question int

const (
	NoQuestion Question = iota
	// UseHere: use a sign-in made on another host here? (Answered yes,
	// it is remembered by authpkce; on a plain host the yes covers the
	// plain ws:// question too: Verdict.Plain says so.)
	UseHere
	// SendPlain: send saved sign-ins to this host over plain ws://?
	SendPlain
)

func (q Question) String() string {
	switch q {
	case UseHere:
		return "use-here"
	case SendPlain:
		return "send-plain"
	}
	return "none"
}

// Verdict is Decide's answer.
type Verdict struct {
	Kind     Kind
	Question Question // for Ask
	// Plain: the host is reached over a transport that proves nothing
	// about who listens, and nothing said yes to that yet; a yes to
	// UseHere answers it as well.
	Plain bool
	// Reason says why, for a person: a status line, a command's stderr.
	Reason string
}

// Decide is the policy. In order: a resource this host did not
// advertise, or one no saved grant serves or may serve (DecisionNone,
// DecisionNever), is never sent; over a transport that proves nothing
// (plain ws://, a socket given by hand, a registry host not proven the
// user's own) a no this run refuses and no answer asks; a grant made on
// another host asks whether to use it here; otherwise the token goes.
// Allow answers both questions yes.
func Decide(in Input) Verdict {
	switch {
	case in.Resource == "":
		return Verdict{Kind: Refuse, Reason: "the host names no resource"}
	case !in.Advertised:
		return Verdict{Kind: Refuse, Reason: "the host did not advertise " + in.Resource}
	}
	switch in.Match.Decision {
	case authpkce.DecisionNone:
		return Verdict{Kind: Refuse, Reason: "no saved sign-in serves it"}
	case authpkce.DecisionNever:
		return Verdict{Kind: Refuse, Reason: "the saved sign-in is not for this host (another issuer, or you said no here)"}
	case authpkce.DecisionSilent, authpkce.DecisionAsk:
	default:
		return Verdict{Kind: Refuse, Reason: "unknown saved sign-in decision " + in.Match.Decision.String()}
	}
	plain := in.Transport.plain() && !in.Proven && !in.Allow && in.Plain != PlainYes
	if plain && in.Plain == PlainNo {
		return Verdict{Kind: Refuse, Reason: "you said no to sending saved sign-ins over " + in.Transport.String() + " this run"}
	}
	if in.Match.Decision == authpkce.DecisionAsk && !in.Allow {
		from := in.Match.Token.Host
		if from == "" {
			from = "a host ahptui did not record"
		}
		return Verdict{Kind: Ask, Question: UseHere, Plain: plain,
			Reason: "it was made on " + from + ", not on this host"}
	}
	if plain {
		return Verdict{Kind: Ask, Question: SendPlain, Plain: true, Reason: plainReason(in)}
	}
	return Verdict{Kind: Push, Reason: pushReason(in)}
}

func plainReason(in Input) string {
	r := "the host is reached over " + in.Transport.String() + ", which proves nothing about who listens there"
	if in.Found == Registry {
		r += ", and it is not proven to be yours (its VS Code registry entry is gone or not your own)"
	}
	return r
}

func pushReason(in Input) string {
	switch {
	case in.Allow:
		return "you allowed saved sign-ins"
	case in.Transport.plain() && in.Proven:
		return "the host is your own, from VS Code's registry"
	case in.Transport.plain():
		return "you said yes to sending over plain ws:// this run"
	case in.Match.Decision == authpkce.DecisionAsk:
		return "you allowed this sign-in here"
	}
	return "the sign-in was made on this host"
}
