package authpkce

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
)

// HostID normalises the URL of an AHP host to the identity a grant is
// bound to: scheme://host:port/path, scheme and host lower-case, default
// port made explicit, query and fragment dropped, no trailing slash.
// ws://Example.com/ahp/ and ws://example.com:80/ahp are one host;
// wss://gw/alice and wss://gw/bob are two (a gateway serves many users),
// and so are ws:// and wss:// to the same name. A host reached over a
// Unix socket is ws+unix:// and the socket's absolute path. A host id
// saved before paths counted (scheme://host:port) is the same host with
// an empty path. A host on another machine reached over SSH is
// ssh://user@box:port/TYPE/INSTANCE: the box's login and the remote
// endpoint, never the local end of a forward.
func HostID(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("%w: host URL %q: %w", ErrInvalidRequirement, clean(withoutQuery(raw)), err)
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch scheme {
	case "ws", "http":
		scheme = "ws"
		if port == "" {
			port = "80"
		}
	case "wss", "https":
		scheme = "wss"
		if port == "" {
			port = "443"
		}
	case "ssh":
		// An agent host on another machine reached over SSH:
		// ssh://user@box:port/TYPE/INSTANCE (host/ssh). The user counts
		// (two logins on one box are two hosts); no local port does.
		if port == "" {
			port = "22"
		}
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		if host == "" {
			return "", fmt.Errorf("%w: host URL %q names no host", ErrInvalidRequirement, clean(withoutQuery(raw)))
		}
		user := ""
		if u.User != nil {
			user = url.User(u.User.Username()).String() + "@"
		}
		p := (&url.URL{Path: strings.TrimRight(u.Path, "/")}).EscapedPath()
		return "ssh://" + user + net.JoinHostPort(host, port) + p, nil
	case "ws+unix":
		p := strings.TrimRight(u.Path, "/")
		if u.Host != "" || !strings.HasPrefix(p, "/") || path.Clean(p) != p {
			return "", fmt.Errorf("%w: host URL %q does not name a socket by its absolute path (ws+unix:///path/to.sock)", ErrInvalidRequirement, clean(withoutQuery(raw)))
		}
		return scheme + "://" + (&url.URL{Path: p}).EscapedPath(), nil
	default:
		return "", fmt.Errorf("%w: host URL %q is not ws:// or wss://", ErrInvalidRequirement, clean(withoutQuery(raw)))
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return "", fmt.Errorf("%w: host URL %q names no host", ErrInvalidRequirement, clean(withoutQuery(raw)))
	}
	p := (&url.URL{Path: strings.TrimRight(u.Path, "/")}).EscapedPath()
	return scheme + "://" + net.JoinHostPort(host, port) + p, nil
}

// withoutQuery is raw up to its query or fragment, for error texts: a
// host URL's query may carry a connection secret (?tkn=).
func withoutQuery(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i]
	}
	return raw
}

// Decision is what may happen with a saved grant on a host.
type Decision int

const (
	// DecisionNone: nothing saved serves the want; sign in.
	DecisionNone Decision = iota
	// DecisionSilent: the grant was obtained on this host for the issuer
	// this host names (or the user allowed it here before): push it.
	DecisionSilent
	// DecisionAsk: a grant for the same resource and issuer exists, but it
	// was obtained on another host (or saved before hosts were recorded):
	// ask "use your sign-in to X (issued by Y) on host Z?", record the
	// answer with Answer, and push only on yes.
	DecisionAsk
	// DecisionNever: the saved grants for the resource were issued by
	// another authorization server than the one this host names, or the
	// user said no for this host. Push nothing; a sign-in is still possible.
	DecisionNever
)

func (d Decision) String() string {
	switch d {
	case DecisionNone:
		return "none"
	case DecisionSilent:
		return "silent"
	case DecisionAsk:
		return "ask"
	case DecisionNever:
		return "never"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Want is a token a host asks for: the resource, the authorization server
// the host names for it now (its metadata's authorization_servers[0]) and
// the scopes a token must carry.
type Want struct {
	Resource string
	Issuer   string
	Scopes   []string
}

// Match is Lookup's answer. Token is the grant to push (DecisionSilent) or
// to ask about (DecisionAsk; its Host says where it was obtained), zero
// otherwise.
type Match struct {
	Decision Decision
	Token    CachedToken
}

// Lookup decides whether a saved grant may be pushed to host for w. Only
// unexpired grants for exactly w.Resource whose scopes cover w.Scopes are
// considered, and a grant goes only where the host names the very issuer
// that issued it (exact string match): a host that names its own
// authorization server for someone else's resource gets DecisionNever.
func (a *Authenticator) Lookup(host string, w Want) Match {
	hid, err := HostID(host)
	if err != nil || w.Resource == "" {
		return Match{Decision: DecisionNever}
	}
	var sameHost, otherHost *storedToken
	foreignIssuer := false
	for _, st := range a.newestFirst() {
		if st.Resource != w.Resource || st.AccessToken == "" || a.expired(st.Token) || !covers(st.Scopes, w.Scopes) {
			continue
		}
		switch {
		case w.Issuer == "" || st.Issuer != w.Issuer:
			foreignIssuer = true
		case st.Host == hid:
			if sameHost == nil {
				sameHost = &st
			}
		default:
			if otherHost == nil {
				otherHost = &st
			}
		}
	}
	if sameHost != nil {
		return Match{Decision: DecisionSilent, Token: cached(sameHost.tokenKey, sameHost.Token)}
	}
	if otherHost != nil {
		m := Match{Decision: DecisionAsk, Token: cached(otherHost.tokenKey, otherHost.Token)}
		if ans, ok := a.answer(hid, w.Resource, w.Issuer); ok {
			m.Decision = DecisionNever
			if ans.Allow {
				m.Decision = DecisionSilent
			} else {
				m.Token = CachedToken{}
			}
		}
		return m
	}
	if foreignIssuer {
		return Match{Decision: DecisionNever}
	}
	return Match{Decision: DecisionNone}
}

// Answer records the user's answer to "use your sign-in to resource (issued
// by issuer) on host?" so Lookup asks once per host.
func (a *Authenticator) Answer(host, resource, issuer string, allow bool) error {
	hid, err := HostID(host)
	if err != nil {
		return err
	}
	return a.store.putAnswer(hostAnswer{Host: hid, Resource: resource, Issuer: issuer, Allow: allow, At: a.now()})
}

func (a *Authenticator) answer(hid, resource, issuer string) (hostAnswer, bool) {
	for _, ans := range a.store.answers() {
		if ans.same(hostAnswer{Host: hid, Resource: resource, Issuer: issuer}) {
			return ans, true
		}
	}
	return hostAnswer{}, false
}

func (a *Authenticator) newestFirst() []storedToken {
	all := a.store.all()
	slices.SortStableFunc(all, func(x, y storedToken) int { return y.UpdatedAt.Compare(x.UpdatedAt) })
	return all
}

// StoredGrant describes a saved grant for a sign-ins list; it carries no
// secret.
type StoredGrant struct {
	// Host is where the grant was obtained (HostID form); empty for a grant
	// saved before hosts were recorded.
	Host        string
	Resource    string
	Issuer      string
	ClientID    string
	Scopes      []string
	Expiry      time.Time // zero: the server gave no expiry
	UpdatedAt   time.Time
	Refreshable bool
	// ByHand: a token the user gave by hand and chose to keep
	// (KeepHandToken).
	ByHand bool
}

// Grants lists every saved grant, expired ones included (a refresh may
// still revive them), newest first.
func (a *Authenticator) Grants() []StoredGrant {
	var out []StoredGrant
	for _, st := range a.newestFirst() {
		out = append(out, StoredGrant{
			Host: st.Host, Resource: st.Resource, Issuer: st.Issuer, ClientID: st.ClientID,
			Scopes: slices.Clone(st.Scopes), Expiry: st.Expiry, UpdatedAt: st.UpdatedAt,
			Refreshable: st.RefreshToken != "", ByHand: st.ClientID == HandClient,
		})
	}
	return out
}

func (g StoredGrant) key() tokenKey {
	return tokenKey{Host: g.Host, Issuer: g.Issuer, Resource: g.Resource, ClientID: g.ClientID}
}
