package hostilehost

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escapes are strings a hostile host puts in every text field: terminal
// control sequences that clear the screen, move the cursor, retitle the
// window, write the clipboard (OSC 52), open hyperlinks, switch screens,
// query the terminal (its answer would be typed into our input), plus raw
// C0/C1 controls, DEL, NUL, bidi overrides and invalid UTF-8.
var Escapes = []string{
	"\x1b[2J\x1b[H",              // clear screen, cursor home
	"\x1b[10;20H",                // cursor position
	"\x1b[5A\x1b[3C",             // cursor up / forward
	"\x1b]0;pwned\x07",           // window title (BEL)
	"\x1b]2;pwned\x1b\\",         // window title (ST)
	"\x1b]52;c;cm0gLXJmIH4K\x07", // clipboard write
	"\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", // hyperlink
	"\x1b[?1049h",                    // alternate screen
	"\x1b[?25l",                      // hide cursor
	"\x1b[6n",                        // cursor position report (answer is typed in)
	"\x1b[21t",                       // title report
	"\x1bP+q544e\x1b\\",              // DCS request
	"\x1b_APC\x1b\\",                 // APC
	"\x1b^PM\x1b\\",                  // PM
	"\x1bc",                          // full reset
	"\x1b7\x1b8",                     // save / restore cursor
	"\x9b2J",                         // C1 CSI
	"\x9d0;c1-title\x9c",             // C1 OSC … ST
	"\u009b31m",                      // C1 CSI as UTF-8
	"\x1b[31mred\x1b[0m",             // SGR (allowed through by a renderer that re-styles)
	"a\rb",                           // carriage return overwrites
	"abc\b\b\bxyz",                   // backspaces
	"tab\there",                      // tab
	"bell\x07",                       // BEL
	"nul\x00byte",                    // NUL
	"del\x7f",                        // DEL
	"line\x0bvt\x0cff",               // VT, FF
	"\u202egnp.exe",                  // right-to-left override
	"\u2066isolate\u2069",            // bidi isolate
	"zero\u200bwidth\ufeff",          // zero-width space, BOM
	"\xff\xfe invalid utf-8 \xc3",    // invalid UTF-8
	strings.Repeat("\x1b[1m", 1000),  // many sequences
	strings.Repeat("W", 10000),       // very long word
	"\x1b[999999999999999999999999C", // absurd parameter
	"\u200emark\u200f\u061c",         // bidi marks
	"line\u2028sep\u2029para",        // line / paragraph separators
	"tag\U000e0041\U000e007f",        // tag characters (invisible text)
	// Character references: inert as plain text, but a markdown renderer
	// decodes them after the input was sanitized.
	"&#x1b;[8mhidden&#x1b;[0m",                // conceal, hex
	"&#27;[2J&#27;[H",                         // clear screen, decimal
	"&#x1b;]52;c;cm0gLXJmIH4K&#x7;",           // clipboard write
	"&#x1b;]8;;https://evil.example&#x1b;\\x", // hyperlink
	"&#x9b;31m",                               // C1 CSI
	"&#x202e;gnp.exe",                         // bidi override, hex
	"&#8238;gnp.exe",                          // bidi override, decimal
	"&rlm;&lrm;&#x61c;",                       // bidi marks, named
	"&#x2028;&#8233;",                         // separators
	"&#xe0041;",                               // tag character
	"&Tab;&NewLine;&#13;&#8;&#0;",             // named and numeric C0
}

// structuralKeys name JSON members whose string values the client must
// understand (discriminators, identifiers, URIs, timestamps, enums):
// Taint leaves them intact so the tainted state still decodes as the same
// shapes and every *text* field carries the payload.
var structuralKeys = map[string]bool{
	"type": true, "kind": true, "id": true, "resource": true, "channel": true, "uri": true,
	"turnId": true, "partId": true, "toolCallId": true, "session": true, "chat": true,
	"provider": true, "lifecycle": true, "status": true, "state": true, "startedAt": true,
	"modifiedAt": true, "createdAt": true, "clientId": true, "protocolVersion": true,
	"defaultChat": true, "mimeType": true, "encoding": true, "reason": true, "confirmed": true,
	"serverId": true, "requestId": true, "questionId": true, "terminal": true, "workingDirectory": true,
}

// Taint returns raw with payload appended to every string value that is
// not under a structural key (see structuralKeys), at any depth. Invalid
// JSON is returned unchanged.
func Taint(raw json.RawMessage, payload string) json.RawMessage {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(taint(v, "", payload))
	if err != nil {
		return raw
	}
	return out
}

func taint(v any, key, payload string) any {
	switch x := v.(type) {
	case string:
		if structuralKeys[key] {
			return x
		}
		return x + payload
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = taint(e, key, payload)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = taint(e, k, payload)
		}
		return out
	}
	return v
}

// AllEscapes is every escape payload in one string, for a single taint
// pass that covers them all.
func AllEscapes() string { return strings.Join(Escapes, " | ") }

// Envelope encodes an `action` notification frame.
func Envelope(channel string, serverSeq int64, action any) []byte {
	env := map[string]any{"channel": channel, "serverSeq": serverSeq, "action": action}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "action", "params": env})
	return b
}

// HugeFrame is a syntactically valid `action` notification of at least n
// bytes: a session/titleChanged whose title is n bytes of 'A'.
func HugeFrame(channel string, serverSeq int64, n int) []byte {
	var b bytes.Buffer
	b.Grow(n + 200)
	b.WriteString(`{"jsonrpc":"2.0","method":"action","params":{"channel":`)
	b.WriteString(strconv.Quote(channel))
	b.WriteString(`,"serverSeq":`)
	b.WriteString(strconv.FormatInt(serverSeq, 10))
	b.WriteString(`,"action":{"type":"session/titleChanged","title":"`)
	b.Write(bytes.Repeat([]byte("A"), n))
	b.WriteString(`"}}}`)
	return b.Bytes()
}

// ManyItems is an `action` notification whose action carries an array of n
// items under member, each item the JSON item (e.g. `0`, `"x"`, `{}`).
func ManyItems(channel string, serverSeq int64, actionType, member, item string, n int) []byte {
	var b bytes.Buffer
	b.Grow(n*(len(item)+1) + 200)
	b.WriteString(`{"jsonrpc":"2.0","method":"action","params":{"channel":`)
	b.WriteString(strconv.Quote(channel))
	b.WriteString(`,"serverSeq":`)
	b.WriteString(strconv.FormatInt(serverSeq, 10))
	b.WriteString(`,"action":{"type":`)
	b.WriteString(strconv.Quote(actionType))
	b.WriteString(`,`)
	b.WriteString(strconv.Quote(member))
	b.WriteString(`:[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteString(`]}}}`)
	return b.Bytes()
}

// DeepNesting is a notification (or, with id, a request) whose params nest
// depth arrays: `[[[…]]]`.
func DeepNesting(method string, id string, depth int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0",`)
	if id != "" {
		b.WriteString(`"id":` + strconv.Quote(id) + `,`)
	}
	b.WriteString(`"method":` + strconv.Quote(method) + `,"params":{"deep":`)
	b.Write(bytes.Repeat([]byte("["), depth))
	b.Write(bytes.Repeat([]byte("]"), depth))
	b.WriteString(`}}`)
	return b.Bytes()
}

// DeepObject nests depth objects inside an action envelope's action, where
// the client's union decoder must look into it.
func DeepObject(channel string, serverSeq int64, depth int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":"action","params":{"channel":`)
	b.WriteString(strconv.Quote(channel))
	b.WriteString(`,"serverSeq":` + strconv.FormatInt(serverSeq, 10) + `,"action":{"type":"session/titleChanged","title":"t","x":`)
	b.Write(bytes.Repeat([]byte(`{"a":`), depth))
	b.WriteString(`0`)
	b.Write(bytes.Repeat([]byte(`}`), depth))
	b.WriteString(`}}}`)
	return b.Bytes()
}

// UnsolicitedResponses are responses to requests the client never made:
// ids it may or may not have used, every id type, results and errors.
func UnsolicitedResponses() [][]byte {
	var out [][]byte
	for _, id := range []string{`0`, `1`, `2`, `3`, `999999`, `-1`, `"1"`, `"x"`, `1.5`, `1e400`, `null`, `{}`, `[]`, `true`} {
		out = append(out,
			[]byte(`{"jsonrpc":"2.0","id":`+id+`,"result":{"snapshot":{"resource":"ahp-root://","state":{"agents":[]},"fromSeq":0}}}`),
			[]byte(`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32007,"message":"\u001b[2Jauth","data":{"resources":[]}}}`),
		)
	}
	return out
}

// Garbage is frames that are not valid JSON-RPC at all.
func Garbage() [][]byte {
	return [][]byte{
		nil, []byte(""), []byte(" "), []byte("null"), []byte("[]"), []byte(`[{"jsonrpc":"2.0","method":"ping"}]`),
		[]byte("{"), []byte(`{"jsonrpc":"1.0","method":"action"}`), []byte(`{"jsonrpc":"2.0"}`),
		[]byte(`{"jsonrpc":"2.0","method":"action","params":"not an object"}`),
		[]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":5}}`),
		[]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-root://","serverSeq":"x","action":{}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"\u001b]0;t\u0007","params":{}}`),
		[]byte("\xff\xfe\x00\x01"),
		[]byte(`{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-root://","serverSeq":1e400,"action":{"type":"root/agentsChanged","agents":[]}}}`),
	}
}

// FileRequests are host → client requests for local files and other
// client-side resources, with the parameters an attacker would use.
func FileRequests() []struct {
	Method string
	Params map[string]any
} {
	type req = struct {
		Method string
		Params map[string]any
	}
	var out []req
	for _, uri := range []string{"file:///etc/passwd", "file:///etc/shadow", "file:///proc/self/environ",
		"file:///root/.ssh/id_rsa", "file://localhost/etc/hosts", "file:///etc/passwd%00.txt", "/etc/passwd", "../../../../etc/passwd"} {
		out = append(out, req{"resourceRead", map[string]any{"channel": "ahp-root://", "uri": uri}})
	}
	out = append(out,
		req{"resourceList", map[string]any{"channel": "ahp-root://", "uri": "file:///"}},
		req{"resourceWrite", map[string]any{"channel": "ahp-root://", "uri": "file:///tmp/pwned", "data": "eA==", "encoding": "base64"}},
		req{"resourceDelete", map[string]any{"channel": "ahp-root://", "uri": "file:///tmp/x"}},
		req{"resourceMove", map[string]any{"channel": "ahp-root://", "source": "file:///etc/passwd", "destination": "file:///tmp/p"}},
		req{"resourceCopy", map[string]any{"channel": "ahp-root://", "source": "file:///etc/passwd", "destination": "file:///tmp/p"}},
		req{"resourceMkdir", map[string]any{"channel": "ahp-root://", "uri": "file:///tmp/d"}},
		req{"resourceResolve", map[string]any{"channel": "ahp-root://", "uri": "file:///etc/passwd"}},
		req{"resourceRequest", map[string]any{"channel": "ahp-root://", "uri": "file:///", "access": "read"}},
		req{"createResourceWatch", map[string]any{"channel": "ahp-root://", "uri": "file:///etc"}},
		req{"shell/exec", map[string]any{"command": "cat /etc/passwd"}},
		req{"initialize", map[string]any{}},
		req{"\x1b]0;x\x07", map[string]any{}},
	)
	return slices.Clip(out)
}

// Sample states for tests: a root with one agent, the session
// ahp-session:/hostile with one chat, and the chat ahp-chat:/hostile with an
// active turn whose markdown part md-1 takes deltas (turn-1). Their text
// fields are what Taint poisons.
var (
	SampleRoot = json.RawMessage(`{"agents":[{"provider":"p","displayName":"Agent","description":"An agent",` +
		`"models":[{"id":"m1","provider":"p","name":"Model One"}]}],"activeSessions":1}`)
	SampleSession = json.RawMessage(`{"provider":"p","title":"Session title","status":1,"lifecycle":"ready",` +
		`"activeClients":[{"clientId":"other","displayName":"Other client","tools":[]}],` +
		`"chats":[{"resource":"ahp-chat:/hostile","title":"Chat title","status":8,"modifiedAt":"1970-01-01T00:00:02.000Z"}]}`)
	SampleChat = json.RawMessage(`{"turns":[],"activeTurn":{"id":"turn-1","startedAt":"1970-01-01T00:00:01.000Z",` +
		`"message":{"text":"Hello","origin":{"kind":"user"}},"responseParts":[{"kind":"markdown","id":"md-1","content":""}]},` +
		`"resource":"ahp-chat:/hostile","title":"Chat title","status":8,"modifiedAt":"1970-01-01T00:00:02.000Z"}`)
)

// HostileChangeset is a changeset channel's state (1.0) whose file names
// (in their URIs, which Taint leaves alone) carry every escape, a bidi
// override and a name tens of kilobytes long, with absurd diff counts and
// size hints; its text fields (operations' labels, confirmations) are
// for Taint. Its files' contents are HostileChangesetContents.
func HostileChangeset() json.RawMessage {
	all := AllEscapes()
	side := func(name, which string) map[string]any {
		return map[string]any{"uri": "file:///w/" + name, "content": map[string]any{
			"uri": "hostile-content:/" + strconv.Itoa(len(name)) + "@" + which, "sizeHint": int64(1) << 62, "contentType": "text/x-go"}}
	}
	huge := map[string]any{"added": int64(9007199254740991), "removed": int64(-5)}
	files := []any{
		map[string]any{"id": "f1", "edit": map[string]any{"before": side("a"+all+".go", "before"), "after": side("a"+all+".go", "after"), "diff": huge}},
		map[string]any{"id": "f2", "edit": map[string]any{"before": side("\u202eold.md", "before"), "after": side("new\u2066.md\x1b]0;t\x07", "after")}},
		map[string]any{"id": "f3", "edit": map[string]any{"after": side(strings.Repeat("deep/", 4000)+"created.go", "after")}},
		map[string]any{"id": "f4", "edit": map[string]any{"before": side("gone\x1b[2J.sh", "before")}},
	}
	ops := []any{map[string]any{"id": "discard", "label": "Discard", "description": "Throw it away", "scopes": []string{"changeset"},
		"status": "error", "error": map[string]any{"errorType": "E", "message": "failed"}, "confirmation": "Really discard?"}}
	return Taint(mustMarshal(map[string]any{"status": "ready", "files": files, "operations": ops}), all)
}

// HostileChangesetContents maps each of HostileChangeset's content URIs
// to its text: every escape that leaves it text (valid UTF-8, no NUL)
// on a line of its own, a line of a thousand
// SGR sequences, a very long word, and an old side that differs on each.
func HostileChangesetContents() map[string]string {
	var st struct {
		Files []struct {
			Edit map[string]struct {
				Content struct {
					URI string `json:"uri"`
				} `json:"content"`
			} `json:"edit"`
		} `json:"files"`
	}
	_ = json.Unmarshal(HostileChangeset(), &st)
	out := map[string]string{}
	for _, f := range st.Files {
		for which, side := range f.Edit {
			if side.Content.URI == "" {
				continue
			}
			var b strings.Builder
			b.WriteString("package a\n\n")
			for i, e := range Escapes {
				if !utf8.ValidString(e) || strings.ContainsRune(e, 0) {
					continue // a client rightly calls that binary and shows no lines
				}
				if which == "after" && i%2 == 0 {
					b.WriteString("// changed ")
				}
				b.WriteString("var x" + strconv.Itoa(i) + " = \"" + e + "\"\n")
			}
			out[side.Content.URI] = b.String()
		}
	}
	return out
}

// Corpus returns the hostile documents kept in testdata/hostile (file name
// → content), which seed the union fuzzer and document what the hostile
// host sends. Every entry is one JSON document.
func Corpus() map[string][]byte {
	all := AllEscapes()
	out := map[string][]byte{
		"escapes.json":         mustMarshal(Escapes),
		"tainted-root.json":    Taint(SampleRoot, all),
		"tainted-session.json": Taint(SampleSession, all),
		"tainted-chat.json":    Taint(SampleChat, all),
		"deep-array-10000.json": append(append(bytes.Repeat([]byte("["), 10000), bytes.Repeat([]byte("]"), 10000)...),
			'\n'),
	}
	envelope := func(frame []byte) []byte {
		var w struct {
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(frame, &w)
		return w.Params
	}
	out["tainted-changeset.json"] = HostileChangeset()
	out["changeset-contents.json"] = mustMarshal(HostileChangesetContents())
	out["tainted-changeset-catalogue.json"] = Taint(json.RawMessage(`[{"label":"Session Changes","uriTemplate":"ahp-changeset:/h/{turnId}",`+
		`"changeKind":"session","description":"Everything","capabilities":{"review":{}}}]`), all)
	out["envelope-delta-escapes.json"] = envelope(Envelope("ahp-chat:/hostile", 11,
		map[string]any{"type": "chat/delta", "turnId": "turn-1", "partId": "md-1", "content": all}))
	out["envelope-title-escapes.json"] = envelope(Envelope("ahp-session:/hostile", 12,
		map[string]any{"type": "session/titleChanged", "title": all}))
	out["envelope-foreign-channel.json"] = envelope(Envelope("ahp-session:/never", 13,
		map[string]any{"type": "session/titleChanged", "title": "INJECTED"}))
	out["envelope-negative-seq.json"] = envelope(Envelope("ahp-chat:/hostile", -1,
		map[string]any{"type": "chat/delta", "turnId": "turn-1", "partId": "md-1", "content": "x"}))
	out["envelope-deep-object-2000.json"] = envelope(DeepObject("ahp-session:/hostile", 14, 2000))
	out["envelope-many-agents-2000.json"] = envelope(ManyItems("ahp-root://", 15, "root/agentsChanged", "agents", `{}`, 2000))
	for i, fr := range UnsolicitedResponses()[:6] {
		out["unsolicited-response-"+strconv.Itoa(i)+".json"] = fr
	}
	for i, r := range FileRequests()[:3] {
		id := "host-" + strconv.Itoa(i)
		out["request-"+r.Method+"-"+strconv.Itoa(i)+".json"] = mustMarshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": r.Method, "params": r.Params})
	}
	return out
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// HostileTerminalOutput is pty output that tries to reach the user's own
// terminal through a terminal pane: a hyperlink (OSC 8), a clipboard write
// (OSC 52), a window title, device-attribute and cursor queries (their
// answers would be typed in), the alternate screen and a full reset. The
// visible words between them must show; nothing else may act.
const HostileTerminalOutput = "before-link \x1b]8;;https://evil.example/\x1b\\click-me\x1b]8;;\x1b\\ after-link\r\n" +
	"\x1b]52;c;cm0gLXJmIH4K\x07clipboard-done\r\n" +
	"\x1b]0;pwned-title\x07\x1b]2;pwned-title\x1b\\title-done\r\n" +
	"\x1b[c\x1b[>c\x1b[6n\x1b[5n\x1b[21tqueries-done\r\n" +
	"\x1b[31mred-text\x1b[0m\r\n"

// SampleTerminalURI is the hostile terminal, named the way VS Code's host
// names a tool call's terminal.
const SampleTerminalURI = "agenthost-terminal://hostile/t1"

// SampleRootWithTerminal is SampleRoot listing the hostile terminal;
// SampleTerminal is its state: HostileTerminalOutput, then a command whose
// line and output Taint poisons, held by another client.
var (
	SampleRootWithTerminal = json.RawMessage(`{"agents":[{"provider":"p","displayName":"Agent","description":"An agent",` +
		`"models":[{"id":"m1","provider":"p","name":"Model One"}]}],"activeSessions":1,` +
		`"terminals":[{"resource":"` + SampleTerminalURI + `","title":"Terminal title","claim":{"kind":"client","clientId":"other"},"lifecycle":{"status":"running"}}]}`)
	SampleTerminal = json.RawMessage(`{"title":"Terminal title","cols":80,"rows":12,"content":[` +
		`{"type":"unclassified","value":` + string(mustMarshal(HostileTerminalOutput)) + `},` +
		`{"type":"command","commandId":"c1","commandLine":"make","output":"out","timestamp":1,"isComplete":true,"exitCode":3}],` +
		`"lifecycle":{"status":"running"},"claim":{"kind":"client","clientId":"other"},"supportsCommandDetection":true}`)
)

// TaintedTerminal is SampleTerminal with payload in its title and its
// command's line and output, and HostileTerminalOutput alone as the
// stream before them: poisoning the stream too would let its full reset
// (ESC c) wipe the words the tests look for, as a real terminal would.
func TaintedTerminal(payload string) json.RawMessage {
	var st map[string]any
	if err := json.Unmarshal(Taint(SampleTerminal, payload), &st); err != nil {
		panic(err)
	}
	st["content"].([]any)[0].(map[string]any)["value"] = HostileTerminalOutput
	return mustMarshal(st)
}
