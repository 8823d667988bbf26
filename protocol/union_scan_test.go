package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// peekWithEncodingJSON is what the generated decoders did before
// scanMembers: read the discriminator ("type") and a tie-breaker
// ("approved") through encoding/json.
func peekWithEncodingJSON(b []byte) (d, p json.RawMessage, err error) {
	var peek struct {
		D  json.RawMessage `json:"type"`
		P0 json.RawMessage `json:"approved"`
	}
	err = json.Unmarshal(b, &peek)
	return peek.D, peek.P0, err
}

// scanTrickyInputs are valid and invalid objects shaped to trip a byte
// scanner: duplicates, case, escapes, nesting, whitespace, odd values.
var scanTrickyInputs = []string{
	`{"type":"chat/delta"}`,
	` {"type" : "chat/delta" , "approved":true } `,
	"\t{\n\"type\"\r:\n\"x\"\n}\n",
	`{}`,
	` { } `,
	`{"other":1}`,
	// Duplicates: encoding/json keeps the last one.
	`{"type":"a","type":"b"}`,
	`{"type":"a","x":{"type":"c"},"type":"b"}`,
	`{"type":"a","type":null}`,
	`{"type":"a","type":7}`,
	// Case folds like encoding/json's field matching.
	`{"TYPE":"upper"}`,
	`{"Type":"a","type":"b"}`,
	`{"type":"a","tYpE":"b"}`,
	`{"APPROVED":false,"type":"x"}`,
	// Escaped or non-ASCII keys fall back to encoding/json.
	`{"\u0074ype":"escaped"}`,
	`{"type":"a","\u0074ype":"escaped-last"}`,
	`{"typ\u0065":"a","type":"b"}`,
	`{"\"type":"q"}`,
	`{"ty\\pe":"q"}`,
	"{\"\u212a\":1,\"type\":\"kelvin key\"}",
	"{\"\u017ftatus\":1,\"type\":\"long s\"}",
	"{\"t\xffype\":\"bad utf8 key\",\"type\":\"ok\"}",
	// The same key name nested at every depth.
	`{"x":{"type":"inner"},"type":"outer"}`,
	`{"x":[{"type":"inner"},["type"]],"y":"type","type":"outer"}`,
	`{"x":{"type":{"type":"deep"}}}`,
	`{"x":"{\"type\":\"in string\"}","type":"outer"}`,
	`{"x":"\\","type":"after backslash"}`,
	`{"x":"\"}","type":"after quote"}`,
	`{"x":"]}[{","type":"brackets in string"}`,
	// Non-string and odd discriminators.
	`{"type":1}`,
	`{"type":-1.5e+10}`,
	`{"type":true}`,
	`{"type":false,"approved":null}`,
	`{"type":null}`,
	`{"type":{"a":[1,2,{"b":null}]}}`,
	`{"type":[ 1 , "x" ]}`,
	`{"type":""}`,
	`{"type":"esc\u0061ped"}`,
	`{"type":"tab\there"}`,
	`{"type":"slash\/"}`,
	`{"type":"\ud83d\ude00"}`,
	"{\"type\":\"caf\u00e9\"}",
	"{\"type\":\"bad\xffutf8\"}",
	`{"type":"chat/delta","approved":"true"}`,
	// Not objects.
	`null`, `[]`, `[{"type":"x"}]`, `"type"`, `1`, `true`,
	// Malformed: encoding/json rejects all of these.
	``, ` `, `{`, `}`, `{"type"}`, `{"type":}`, `{"type":"a",}`, `{,"type":"a"}`,
	`{"type":"a" "x":1}`, `{"type":"a"}}`, `{"type":"a"} x`, `{"type":"a"}{}`,
	`{"type":"unterminated}`, `{"type":tru}`, `{"type":nul}`, `{"type":01}`,
	`{"type":"a","x":[}`, `{"type":"a","x":{]}`, `{"type":"a","x":[1,]}`,
	`{"x":{"y":1},"type":"a","z":{"q":[1,2}}`, `{type:"a"}`, `{'type':'a'}`,
	"{\"type\":\"ctrl\x01\"}", "{\"ty\x01pe\":\"a\"}",
	`{"type":"a","x":"\q"}`, `{"type":"a","x":"\u12"}`,
	`{"type":1"x":2}`, `{"type":[1]"x":2}`,
}

// TestScanMembersMatchesEncodingJSON checks the rule the generated decoders
// rely on: whenever scanMembers answers for valid JSON, its members equal
// the ones encoding/json reads; on input encoding/json rejects, scanMembers
// may answer (callers decode afterwards, which validates) but must not
// panic.
func TestScanMembersMatchesEncodingJSON(t *testing.T) {
	for _, in := range scanTrickyInputs {
		b := []byte(in)
		wantD, wantP, err := peekWithEncodingJSON(b)
		var got [2]json.RawMessage
		ok := scanMembers(b, got[:], "type", "approved")
		if err != nil {
			continue // any answer is fine: the variant decode or json.Valid rejects it
		}
		if !ok {
			// Falling back is always correct, but plain ASCII objects must
			// take the fast path or the scan is pointless.
			if strings.HasPrefix(strings.TrimSpace(in), "{") && isASCII(b) && !bytes.ContainsRune(b, '\\') {
				t.Errorf("scanMembers(%s) fell back on plain valid input", in)
			}
			continue
		}
		if !bytes.Equal(got[0], wantD) || !bytes.Equal(got[1], wantP) {
			t.Errorf("scanMembers(%s) = %q, %q; encoding/json reads %q, %q", in, got[0], got[1], wantD, wantP)
		}
		if (got[0] == nil) != (wantD == nil) || (got[1] == nil) != (wantP == nil) {
			t.Errorf("scanMembers(%s): absent/present differs from encoding/json", in)
		}
		if discValue(got[0]) != discValue(wantD) {
			t.Errorf("discValue differs for %s", in)
		}
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// TestScanMembersFallsBack pins the inputs that must take the exact path:
// an escaped or non-ASCII key might name the discriminator, and only
// encoding/json knows how it folds.
func TestScanMembersFallsBack(t *testing.T) {
	for _, in := range []string{
		`{"\u0074ype":"escaped"}`,
		"{\"\u212a\":1}",
		"{\"t\xffype\":\"x\"}",
		`[]`, `"x"`, `1`, ``, `{`, `{"type":"a"} x`,
	} {
		var out [1]json.RawMessage
		if scanMembers([]byte(in), out[:], "type") {
			t.Errorf("scanMembers(%q) answered %q; want a fall back to encoding/json", in, out[0])
		}
	}
}

// TestUnionDecodeMatchesPeek decodes every tricky input as StateAction and
// checks the result against the old two-pass decode: same variant kind, same
// error or success, and unknown members kept byte for byte.
func TestUnionDecodeMatchesPeek(t *testing.T) {
	for _, in := range scanTrickyInputs {
		b := []byte(in)
		var got StateAction
		gotErr := got.UnmarshalJSON(b)
		wantD, wantP, peekErr := peekWithEncodingJSON(b)
		if peekErr != nil {
			if gotErr == nil && !isJSONNull(b) {
				t.Errorf("StateAction.UnmarshalJSON(%q) succeeded; the old peek failed: %v", in, peekErr)
			} else if gotErr != nil && !isJSONNull(b) && gotErr.Error() != fmt.Sprintf("decode StateAction: %v", peekErr) {
				t.Errorf("StateAction.UnmarshalJSON(%q) error %q; the old decoder said %q", in, gotErr, "decode StateAction: "+peekErr.Error())
			}
			continue
		}
		d := discValue(wantD)
		if gotErr != nil {
			// Only a known discriminator with a bad variant body may fail.
			if !strings.Contains(gotErr.Error(), fmt.Sprintf("decode StateAction %q", d)) {
				t.Errorf("StateAction.UnmarshalJSON(%q): %v", in, gotErr)
			}
			continue
		}
		if got.Kind() != d {
			t.Errorf("StateAction.UnmarshalJSON(%q) kind %q, want %q (approved %s)", in, got.Kind(), d, wantP)
		}
		if u, ok := got.Variant.(UnknownStateAction); ok && (!bytes.Equal(u.Raw, b) || u.Discriminator != d) {
			t.Errorf("StateAction.UnmarshalJSON(%q) unknown = %q/%q, want raw input and %q", in, u.Discriminator, u.Raw, d)
		}
	}
}

// TestUnionDecodeInvalidBytesDirect calls UnmarshalJSON directly (bypassing
// json.Unmarshal's validation) with objects whose outline scans fine but
// whose nested values are broken: unknown discriminators must not be kept
// as Raw, and the error must be the one the old decoder gave.
func TestUnionDecodeInvalidBytesDirect(t *testing.T) {
	for _, in := range []string{
		`{"type":"nope","x":[}`,
		`{"type":"nope","x":{"a":tru}}`,
		`{"type":"chat/delta","x":[1,]}`,
		`{"status":"weird","x":"\q"}`,
	} {
		for name, v := range map[string]json.Unmarshaler{"StateAction": new(StateAction), "ToolCallState": new(ToolCallState)} {
			err := v.UnmarshalJSON([]byte(in))
			if err == nil {
				t.Errorf("%s.UnmarshalJSON(%s) accepted invalid JSON", name, in)
				continue
			}
			var syn *json.SyntaxError
			if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), "decode "+name+": ") {
				t.Errorf("%s.UnmarshalJSON(%s) = %v; want the old `decode %s: <syntax error>`", name, in, err, name)
			}
		}
	}
}

func TestPlainJSONString(t *testing.T) {
	for _, in := range []string{
		`""`, `"abc"`, `"caf` + "\u00e9" + `"`, `"a\"b"`, `"a\\b"`, `"\u0041"`, "\"bad\xff\"", "\"ctl\x01\"",
		`"`, `abc`, `"abc`, `abc"`, `"a"b"`, `null`, `1`,
	} {
		got, ok := wirescan.PlainJSONString([]byte(in))
		var want string
		err := json.Unmarshal([]byte(in), &want)
		if ok && (err != nil || got != want) {
			t.Errorf("wirescan.PlainJSONString(%q) = %q; encoding/json: %q, %v", in, got, want, err)
		}
		if !ok && err == nil && in[0] == '"' && !bytes.ContainsAny([]byte(in), "\\\x01\xff") {
			t.Errorf("wirescan.PlainJSONString(%q) fell back on a plain string", in)
		}
	}
}

func TestStringOrMarkdownFastPathMatches(t *testing.T) {
	for _, in := range []string{
		`"plain"`, ` "plain" `, `{"markdown":"**md**"}`, ` { "Markdown" : "x" } `, `{"MARKDOWN":"x"}`,
		`{"markdown":"a","markdown":"b"}`, `{"markdown":"a\nb"}`, `{"markdown":1}`, `{"markdown":null}`, `{}`,
		`{"markdown":"x","other":1}`, `{"markdown":"x"`, `{"markdown":"x"} y`, `"unterminated`, `{"markdown":"x}`,
		`{"\u006darkdown":"esc"}`, `null`, `1`,
	} {
		var got StringOrMarkdown
		gotErr := got.UnmarshalJSON([]byte(in))
		var want StringOrMarkdown
		var wantErr error
		// The old decoder: encoding/json for both forms.
		if b := bytes.TrimSpace([]byte(in)); len(b) > 0 && b[0] == '{' {
			var m struct {
				Markdown string `json:"markdown"`
			}
			if wantErr = json.Unmarshal(b, &m); wantErr == nil {
				want = StringOrMarkdown{Value: m.Markdown, Markdown: true}
			}
		} else {
			var v string
			if wantErr = json.Unmarshal(b, &v); wantErr == nil {
				want = StringOrMarkdown{Value: v}
			}
		}
		if (gotErr == nil) != (wantErr == nil) || got != want {
			t.Errorf("StringOrMarkdown(%s) = %+v, %v; want %+v, %v", in, got, gotErr, want, wantErr)
		}
	}
}

// TestDecodePlainMatchesEncodingJSON checks the generated fast paths against
// encoding/json: whenever a decodePlain function answers, the input is valid
// JSON and the value equals what json.Unmarshal makes of it; it must answer
// for the plain shapes a host sends every delta.
func TestDecodePlainMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		in        string
		wantPlain bool
	}{
		{`{"type":"chat/delta","turnId":"t","partId":"p","content":"abc"}`, true},
		{` { "type" : "chat/delta" , "content" : "caf` + "\u00e9" + `" } `, true},
		{`{"type":"chat/delta","content":"a","content":"b"}`, true},
		{`{}`, true},
		{`{"type":"chat/delta","content":"line\nbreak"}`, true}, // unescaped by encoding/json, value by value
		{`{"type":"chat/delta","Content":"case"}`, false},
		{`{"type":"chat/delta","\u0063ontent":"escaped key"}`, false},
		{`{"type":"chat/delta","_meta":{"a":1}}`, false},
		{`{"type":"chat/delta","extra":"x"}`, false},
		{`{"type":"chat/delta","content":null}`, false},
		{`{"type":"chat/delta","content":1}`, false},
		{"{\"type\":\"chat/delta\",\"content\":\"bad\xff\"}", true}, // U+FFFD, as encoding/json does
		{`{"type":"chat/delta","content":"bad\q"}`, false},
		{`{"type":"chat/delta","content":"\ud800"}`, true},
		{"{\"type\":\"chat/delta\",\"content\":\"ctl\x01\"}", false},
		{`{"type":"chat/delta","content":"x",}`, false},
		{`{"type":"chat/delta","content":"x"} y`, false},
		{`{"type":"chat/delta","content":"x"`, false},
		{`{"type":"chat/delta" "content":"x"}`, false},
		{`{"type":"chat/delta","content"}`, false},
		{`["type"]`, false},
	}
	for _, tt := range tests {
		b := []byte(tt.in)
		got, ok := decodePlainChatDeltaAction(b)
		if ok != tt.wantPlain {
			t.Errorf("decodePlainChatDeltaAction(%q) ok = %v, want %v", tt.in, ok, tt.wantPlain)
		}
		if !ok {
			continue
		}
		var want ChatDeltaAction
		if err := json.Unmarshal(b, &want); err != nil {
			t.Errorf("decodePlainChatDeltaAction accepted %q, which encoding/json rejects: %v", tt.in, err)
			continue
		}
		if got.Type != want.Type || got.TurnID != want.TurnID || got.PartID != want.PartID || got.Content != want.Content || got.Meta != nil {
			t.Errorf("decodePlainChatDeltaAction(%q) = %+v, encoding/json %+v", tt.in, got, want)
		}
	}

	md := []byte(`{"kind":"markdown","id":"md-1","content":"**hello** world"}`)
	gotMD, ok := decodePlainMarkdownResponsePart(md)
	var wantMD MarkdownResponsePart
	if err := json.Unmarshal(md, &wantMD); err != nil || !ok {
		t.Fatalf("markdown part: plain ok=%v, encoding/json err=%v", ok, err)
	}
	if gotMD.Kind != wantMD.Kind || gotMD.ID != wantMD.ID || !gotMD.Content.Equal(wantMD.Content) {
		t.Errorf("decodePlainMarkdownResponsePart = %+v, encoding/json %+v", gotMD, wantMD)
	}
}

// TestDecodePlainToolInput covers the raw ToolInput member (1.0: a string
// or a ContentRef, no discriminator): the fast path takes either form as
// the exact bytes encoding/json keeps, copied out of the input, and leaves
// null and broken values to encoding/json.
func TestDecodePlainToolInput(t *testing.T) {
	const head = `{"status":"completed","toolCallId":"c","toolName":"n","displayName":"d","invocationMessage":"m","success":true,"pastTenseMessage":"p","confirmed":"not-needed","toolInput":`
	tests := []struct {
		input     string
		wantPlain bool
	}{
		{`"{\"path\":\"a.go\"}"`, true},
		{`{"uri":"ahp-content:/c/input","sizeHint":12}`, true},
		{` { "uri" : "x" } `, true},
		{`null`, false},
		{`{"uri":}`, false},
		{`"unterminated`, false},
	}
	for _, tt := range tests {
		b := []byte(head + tt.input + `}`)
		got, ok := decodePlainToolCallCompletedState(b)
		if ok != tt.wantPlain {
			t.Errorf("toolInput %s: plain ok = %v, want %v", tt.input, ok, tt.wantPlain)
		}
		if !ok {
			continue
		}
		var want ToolCallCompletedState
		if err := json.Unmarshal(b, &want); err != nil {
			t.Errorf("fast path accepted toolInput %s, which encoding/json rejects: %v", tt.input, err)
			continue
		}
		if !bytes.Equal(got.ToolInput, want.ToolInput) {
			t.Errorf("toolInput %s: fast path %s, encoding/json %s", tt.input, got.ToolInput, want.ToolInput)
		}
		for i := range b {
			b[i] = 'x' // the decoded value must not alias the input buffer
		}
		if !bytes.Equal(got.ToolInput, want.ToolInput) {
			t.Errorf("toolInput %s aliases the input buffer: now %s", tt.input, got.ToolInput)
		}
	}
}

// TestDecodePlainNestedUnion covers a fast path that hands a member to a
// nested union decoder: it must give what encoding/json gives, and refuse
// (so encoding/json reports the error) when the nested object is broken.
func TestDecodePlainNestedUnion(t *testing.T) {
	valid := []string{
		`{"kind":"toolCall","toolCall":{"status":"completed","toolCallId":"tc","toolName":"read","displayName":"Read","invocationMessage":"Reading","success":true,"pastTenseMessage":{"markdown":"Read"},"content":[{"type":"text","text":"x"}],"confirmed":"not-needed","contributor":{"kind":"mcp","customizationId":"gh"}}}`,
		`{"kind":"toolCall","toolCall":{"status":"from-the-future","x":[1,{"y":null}]}}`,
		`{"kind":"toolCall","toolCall":{"status":"running","toolCallId":"tc","toolName":"t","displayName":"T","invocationMessage":"go","confirmed":"user-action"},"toolCall":{"status":"x"}}`,
	}
	for _, in := range valid {
		got, ok := decodePlainToolCallResponsePart([]byte(in))
		if !ok {
			t.Errorf("decodePlainToolCallResponsePart(%s) refused", in)
			continue
		}
		var want ToolCallResponsePart
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("fixture %s: %v", in, err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Errorf("decodePlainToolCallResponsePart(%s)\n got  %s\n want %s", in, g, w)
		}
	}
	for _, in := range []string{
		`{"kind":"toolCall","toolCall":{"status":"nope","x":[}}`,
		`{"kind":"toolCall","toolCall":{"status":"completed","success":tru}}`,
		`{"kind":"toolCall","toolCall":nullx}`,
		`{"kind":"toolCall","toolCall":null}`,
		`{"kind":"toolCall","toolCall":[]}`,
		`{"kind":"toolCall","toolCall":{"status":"weird"} }}`,
	} {
		if _, ok := decodePlainToolCallResponsePart([]byte(in)); ok {
			t.Errorf("decodePlainToolCallResponsePart(%s) accepted; encoding/json must decide", in)
		}
	}
}

// FuzzScanDifferential compares the fast paths with encoding/json on
// arbitrary bytes: scanMembers must read the same members as encoding/json
// whenever it answers for valid JSON, and a union decoded through the fast
// paths must equal the variant encoding/json decodes from the same bytes.
// Seeds are the tricky inputs above; run it with -fuzz=FuzzScanDifferential.
func FuzzScanDifferential(f *testing.F) {
	for _, in := range scanTrickyInputs {
		f.Add([]byte(in))
	}
	for _, in := range []string{
		`{"type":"chat/delta","turnId":"t","partId":"p","content":"x"}`,
		`{"kind":"toolCall","toolCall":{"status":"completed","toolCallId":"tc","toolName":"r","displayName":"R","invocationMessage":"m","success":true,"pastTenseMessage":{"markdown":"d"},"confirmed":"not-needed","content":[{"type":"text","text":"x"}]}}`,
		`{"kind":"markdown","id":"m","content":"hi"}`,
		`{"status":"completed","toolCallId":"t\u00e9","toolName":"r","displayName":"R","invocationMessage":{"markdown":"m"},"toolInput":"{\"p\":1}","success":false,"pastTenseMessage":"d","confirmed":"user-action","content":[],"contributor":{"kind":"mcp","customizationId":"c"}}`,
		`{"status":"completed","success":true,"content":[{"type":"text","text":"a"},{"type":"future","x":1}],"content":[{"type":"text","text":"b"}]}`,
		`{"type":"text","text":"x\ty"}`,
	} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		var got [2]json.RawMessage
		ok := scanMembers(b, got[:], "type", "approved")
		wantD, wantP, err := peekWithEncodingJSON(b)
		if err == nil && ok && (!bytes.Equal(got[0], wantD) || !bytes.Equal(got[1], wantP)) {
			t.Fatalf("scanMembers(%q) = %q, %q; encoding/json %q, %q", b, got[0], got[1], wantD, wantP)
		}
		checkUnionAgainstEncodingJSON(t, b, new(StateAction), func(v any) any { return v.(*StateAction).Variant })
		checkUnionAgainstEncodingJSON(t, b, new(ResponsePart), func(v any) any { return v.(*ResponsePart).Variant })
		checkUnionAgainstEncodingJSON(t, b, new(ToolCallState), func(v any) any { return v.(*ToolCallState).Variant })
		checkUnionAgainstEncodingJSON(t, b, new(ToolResultContent), func(v any) any { return v.(*ToolResultContent).Variant })
		checkUnionAgainstEncodingJSON(t, b, new(ToolCallContributor), func(v any) any { return v.(*ToolCallContributor).Variant })
	})
}

// checkUnionAgainstEncodingJSON decodes b as the union u and, when that
// succeeds with a known variant, decodes b again straight into that
// variant's type with encoding/json; both must encode the same. When the
// union decode fails, so must encoding/json's own validation or the variant
// decode.
func checkUnionAgainstEncodingJSON(t *testing.T, b []byte, u any, variant func(any) any) {
	t.Helper()
	err := json.Unmarshal(b, u)
	if err != nil {
		return
	}
	v := variant(u)
	if v == nil {
		return
	}
	rt := reflect.TypeOf(v)
	if strings.HasPrefix(rt.Name(), "Unknown") {
		raw := reflect.ValueOf(v).FieldByName("Raw").Bytes()
		if !json.Valid(raw) {
			t.Fatalf("%T kept invalid Raw %q", v, raw)
		}
		return
	}
	want := reflect.New(rt)
	if err := json.Unmarshal(b, want.Interface()); err != nil {
		t.Fatalf("%T decoded %q via the union, but encoding/json rejects it as the variant: %v", v, b, err)
	}
	g, err1 := json.Marshal(v)
	w, err2 := json.Marshal(want.Elem().Interface())
	if err1 != nil || err2 != nil || !bytes.Equal(g, w) {
		t.Fatalf("%T from %q:\n union   %s (%v)\n variant %s (%v)", v, b, g, err1, w, err2)
	}
}
