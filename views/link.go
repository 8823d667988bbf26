package views

import (
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"
)

// maxLinkLen bounds a hyperlink's URI: terminals cap them (a few KB), and
// a sign-in URL is a few hundred bytes.
const maxLinkLen = 4096

// SignInLink is u when it may go to the terminal inside a hyperlink
// (OSC 8) and on a line of its own: an absolute http or https URL of
// printable ASCII (no space, no control character, so nothing in it can
// end the sequence or start another), at most maxLinkLen bytes. Anything
// else is "" and is drawn as sanitized text only.
func SignInLink(u string) string {
	if u == "" || len(u) > maxLinkLen {
		return ""
	}
	for i := 0; i < len(u); i++ {
		if u[i] <= 0x20 || u[i] >= 0x7f {
			return ""
		}
	}
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.Opaque != "" || p.User != nil {
		return ""
	}
	if s := strings.ToLower(p.Scheme); s != "http" && s != "https" {
		return ""
	}
	return u
}

// linkID names a link's rows as one link (OSC 8's id parameter), so a
// terminal underlines and opens them together.
func linkID(u string) string {
	h := fnv.New32a()
	h.Write([]byte(u))
	return "ahptui-" + strconv.FormatUint(uint64(h.Sum32()), 36)
}
