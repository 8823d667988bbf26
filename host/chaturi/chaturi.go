// Package chaturi mints the URI of a new chat the way the host spells a
// session's chats, once for the UI's chat switcher and the commands'
// chats new/fork. Pure: no I/O.
package chaturi

import (
	"encoding/base64"
	"strings"

	"github.com/ahptui/ahptui/protocol"
)

// Like is the chat whose URI shows how the host spells session's chats:
// its default chat, else its first; "" when it has none.
func Like(s protocol.SessionState) string {
	if s.DefaultChat != nil {
		return *s.DefaultChat
	}
	if len(s.Chats) > 0 {
		return s.Chats[0].Resource
	}
	return ""
}

// Mint is the URI of a new chat id in session, spelled as the host
// spells like, a chat of that session (Like): a host whose chat URIs
// are ahp-chat://<chat id>/<base64url(session URI)> (VS Code's: its
// default chat is ahp-chat://default/<…>) refuses any other shape, so
// when like has that shape the new chat takes it with id for the chat
// id. A chat URI that tells nothing (the schema's ahp-chat:/<id>,
// another host's own spelling) leaves the schema's client-chosen shape,
// ahp-chat:/<id>.
func Mint(session, like, id string) string {
	const scheme = "ahp-chat://"
	if rest, ok := strings.CutPrefix(like, scheme); ok {
		if _, enc, ok := strings.Cut(rest, "/"); ok && enc != "" && !strings.Contains(enc, "/") {
			if dec, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "=")); err == nil && string(dec) == session {
				return scheme + id + "/" + enc
			}
		}
	}
	return "ahp-chat:/" + id
}
