package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// wireEqual compares decoded values field by field; Text by its content
// (its chunking is an implementation detail).
func wireEqual(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	if a.Type() == textType {
		return a.Interface().(Text).String() == b.Interface().(Text).String()
	}
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				if !reflect.DeepEqual(a.Interface(), b.Interface()) {
					return false
				}
				continue
			}
			if !wireEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !wireEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return wireEqual(a.Elem(), b.Elem())
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !wireEqual(a.MapIndex(k), b.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return fmt.Sprint(a.Interface()) == fmt.Sprint(b.Interface()) // -0 and 0 differ
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// checkWireLikeJSON decodes raw into a new T with UnmarshalWire and with
// encoding/json, and fails unless both give the same value or the same
// error.
func checkWireLikeJSON[T any](t *testing.T, raw []byte) {
	t.Helper()
	var got, want T
	gerr := UnmarshalWire(raw, &got)
	werr := json.Unmarshal(raw, &want)
	switch {
	case (gerr == nil) != (werr == nil):
		t.Fatalf("%.200s\n%T: UnmarshalWire error %v, encoding/json error %v", raw, want, gerr, werr)
	case gerr != nil && gerr.Error() != werr.Error():
		t.Fatalf("%.200s\n%T: UnmarshalWire error\n  %v\nencoding/json error\n  %v", raw, want, gerr, werr)
	case gerr == nil && !wireEqual(reflect.ValueOf(got), reflect.ValueOf(want)):
		t.Fatalf("%.200s\n%T decodes differently:\n  wire %+v\n  json %+v", raw, want, got, want)
	}
}

// The one-pass decoder takes the large frames and must decode them as
// encoding/json does; it takes them in one pass (a fallback to
// encoding/json would pass this test too, so that is checked apart).
func TestUnmarshalWireMatchesEncodingJSON(t *testing.T) {
	chat := chatSnapshotJSON(t, 20)
	checkWireLikeJSON[Snapshot](t, chat)
	checkWireLikeJSON[SubscribeResult](t, []byte(`{"snapshot":`+string(chat)+`}`))
	checkWireLikeJSON[ListSessionsResult](t, sessionsPageJSON(t, 50))
	checkWireLikeJSON[Snapshot](t, rootSnapshotJSON(t, 20_000))
	if _, ok := decodeSnapshotWire(chat); !ok {
		t.Error("a chat snapshot left the one-pass decoder")
	}
	if _, ok := decodeSnapshotWire(rootSnapshotJSON(t, 20_000)); !ok {
		t.Error("a root snapshot left the one-pass decoder")
	}
	var page ListSessionsResult
	d := wireDecoder{b: sessionsPageJSON(t, 50)}
	if !d.value(reflect.ValueOf(&page).Elem(), planOf(reflect.TypeFor[ListSessionsResult]())) {
		t.Error("a listSessions page left the one-pass decoder")
	}
}

// Every shape the decoder declines or takes at a boundary: the result (or
// the error) is encoding/json's.
func TestUnmarshalWireEdgeCases(t *testing.T) {
	const md = `{"kind":"markdown","id":"m","content":%s}`
	turn := func(parts ...string) string {
		return `{"id":"t","message":{"text":"q","origin":{"kind":"user"}},"responseParts":[` + strings.Join(parts, ",") + `],"state":"complete"}`
	}
	chat := func(turns ...string) string {
		return `{"resource":"ahp-chat:/x","title":"T","status":1,"modifiedAt":"m","turns":[` + strings.Join(turns, ",") + `]}`
	}
	states := []string{
		chat(),
		chat(turn()),
		chat(turn(fmt.Sprintf(md, `"plain"`))),
		chat(turn(fmt.Sprintf(md, `"esc \" \\ \/ \b \f \n \r \t \u00e9 \u20ac"`))),
		chat(turn(fmt.Sprintf(md, `"surrogates \ud83d\ude00 \ud800 x"`))),
		chat(turn(fmt.Sprintf(md, "\"bad utf-8 \xff\xfe\""))),
		chat(turn(fmt.Sprintf(md, "\"utf-8 é €\""))),
		chat(turn(fmt.Sprintf(md, `null`))),
		chat(turn(fmt.Sprintf(md, `5`))),
		chat(turn(fmt.Sprintf(md, "\"control \x01\""))),
		chat(turn(fmt.Sprintf(md, `"bad escape \x"`))),
		chat(turn(fmt.Sprintf(md, `"bad \u12g4"`))),
		chat(turn(`{"id":"m","content":"x","kind":"markdown"}`)),      // discriminator last
		chat(turn(`{"kind":"markdown","Kind":"reasoning","id":"m"}`)), // folded duplicate
		chat(turn(`{"kind":"markdown","kind":"reasoning","id":"m","content":"c"}`)),
		chat(turn(`{"kind":"nosuch","id":"m","extra":[1,{"a":null}]}`)),
		chat(turn(`{"kind":5,"id":"m"}`)),
		chat(turn(`{"kind":"markdown","id":"m","content":"c","unknown":{"deep":[true,false,null,-1.5e3]}}`)),
		chat(turn(`{"kind":"markdown","ID":"m","content":"c"}`)),
		chat(turn(`{"kind":"markdown","id":"m","content":"c",}`)),
		chat(turn(`null`)),
		`{"resource":"ahp-chat:/x","title":"T","status":-1,"turns":[]}`,
		`{"resource":"ahp-chat:/x","title":"T","status":1.5,"turns":[]}`,
		`{"resource":"ahp-chat:/x","title":"T","status":1e2,"turns":[]}`,
		`{"resource":"ahp-chat:/x","title":"T","status":99999999999999999999999,"turns":[]}`,
		`{"resource":"ahp-chat:/x","title":"T","status":01,"turns":[]}`,
		`{"resource":"ahp-chat:/x","title":null,"turns":null,"status":null}`,
		`{"resource":"ahp-chat:/x","title":"a","title":"b","turns":[]}`,
		`{"resource":"ahp-chat:/x","turns":[],"_meta":{"k":{"a":1},"k2":null}}`,
		`{"resource":"ahp-chat:/x","turns":[` + strings.Repeat("[", 20) + `]}`,
		`{"resource":"ahp-chat:/x"`,
		`{"resource":"ahp-chat:/x"} trailing`,
		`  {"resource" : "ahp-chat:/x" , "turns" : [ ] }  `,
		`[]`, `null`, `"x"`, ``, `{`, `{"\u0072esource":"ahp-chat:/x"}`,
	}
	for _, st := range states {
		t.Run("", func(t *testing.T) {
			checkWireLikeJSON[ChatState](t, []byte(st))
			for _, res := range []string{"ahp-chat:/x", "ahp-unknown:/x", ""} {
				snap := fmt.Sprintf(`{"resource":%q,"state":%s,"fromSeq":3}`, res, st)
				checkWireLikeJSON[Snapshot](t, []byte(snap))
				// The state before the resource: decoded after the object.
				snap = fmt.Sprintf(`{"fromSeq":3,"state":%s,"resource":%q}`, st, res)
				checkWireLikeJSON[Snapshot](t, []byte(snap))
			}
		})
	}
	for _, snap := range []string{
		`{"resource":"ahp-chat:/x","state":null}`,
		`{"resource":"ahp-chat:/x"}`,
		`{"resource":"ahp-chat:/x","Resource":"ahp-root://","state":{}}`,
		`{"resource":"ahp-chat:/x","state":{},"state":{}}`,
		`{"resource":"ahp-chat:/x","state":{},"fromSeq":1.5}`,
		`{}`,
	} {
		checkWireLikeJSON[Snapshot](t, []byte(snap))
	}
	for _, page := range []string{
		`{"items":[{"provider":"p","title":"t","status":3,"resource":"r","createdAt":"c","modifiedAt":"m","changes":{"additions":-0,"files":7}}]}`,
		`{"items":[{"status":18446744073709551615}]}`,
		`{"items":[{"status":18446744073709551616}]}`,
		`{"items":[{"changes":{"additions":9223372036854775808}}]}`,
		`{"items":[{"workingDirectories":["a",null,"b"]}]}`,
		`{"items":{}}`,
		`{"nextCursor":null,"items":[]}`,
	} {
		checkWireLikeJSON[ListSessionsResult](t, []byte(page))
	}
}

// Malformed snapshots get the errors they got before the one-pass
// decoder, word for word.
func TestSnapshotErrorsUnchanged(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"resource":"ahp-chat:/x","state":{"turns":[}}`, "invalid character '}' looking for beginning of value"},
		{`{"resource":"ahp-chat:/x","state":{"title":5}}`, "decode snapshot state of \"ahp-chat:/x\": json: cannot unmarshal number into Go struct field ChatState.title of type string"},
		{`{"resource":"ahp-chat:/x","state":{"turns":[{"responseParts":[{"kind":"markdown","content":7}]}]}}`,
			"decode snapshot state of \"ahp-chat:/x\": decode ResponsePart \"markdown\": json: cannot unmarshal number into Go struct field MarkdownResponsePart.content of type string"},
		{`{"resource":"ahp-chat:/x","state":{}`, "unexpected end of JSON input"},
	} {
		var s Snapshot
		err := json.Unmarshal([]byte(tt.in), &s)
		if err == nil || err.Error() != tt.want {
			t.Errorf("json.Unmarshal(%s):\n got %v\nwant %s", tt.in, err, tt.want)
		}
		s = Snapshot{}
		err = UnmarshalWire([]byte(tt.in), &s)
		if err == nil || err.Error() != tt.want {
			t.Errorf("UnmarshalWire(%s):\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

// FuzzUnmarshalWire holds the one-pass decoder to encoding/json's result
// and error for any bytes, as a Snapshot (with the state after and before
// the resource) and as a listSessions page.
func FuzzUnmarshalWire(f *testing.F) {
	f.Add(string(chatSnapshotJSON(f, 2)))
	f.Add(string(sessionsPageJSON(f, 2)))
	f.Add(string(rootSnapshotJSON(f, 2_000)))
	f.Add(`{"resource":"ahp-chat:/x","state":{"turns":[{"responseParts":[{"kind":"markdown","content":"\ud83d\ude00"}]}]}}`)
	f.Add(`{"state":{"agents":[]},"resource":"ahp-root://"}`)
	f.Fuzz(func(t *testing.T, s string) {
		checkWireLikeJSON[Snapshot](t, []byte(s))
		checkWireLikeJSON[ListSessionsResult](t, []byte(s))
	})
}
