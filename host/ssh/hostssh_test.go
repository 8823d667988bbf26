package ssh

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/registry"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Addr
		err  string
	}{
		{"ssh://box", Addr{Host: "box"}, ""},
		{"ssh://alice@box.example:2222", Addr{User: "alice", Host: "box.example", Port: 2222}, ""},
		{"SSH://alice@box/", Addr{User: "alice", Host: "box"}, ""},
		{"ssh://alice@box:22/standalone/abc", Addr{User: "alice", Host: "box", Port: 22, Type: "standalone", Instance: "abc"}, ""},
		{"ssh://alice:secret@box", Addr{}, "password"},
		{"ssh://-oProxyCommand=x", Addr{}, "names no box"},
		{"ssh://-l@box", Addr{}, "user name"},
		{"ssh://box:0", Addr{}, "not 1-65535"},
		{"ssh://box?tkn=x", Addr{}, "query"},
		{"ssh://box/only-one", Addr{}, "/TYPE/INSTANCE"},
		{"ssh://bo;x", Addr{}, "names no box"},
		{"ssh://box%25h", Addr{}, "names no box"},
		{"ws://box", Addr{}, "not an ssh URL"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %+v, %v; want an error saying %q", tc.in, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("Parse(%q): the error shows the password: %v", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	a := Addr{User: "alice", Host: "Box", Port: 22}
	if got := a.Identity("standalone", "i 1"); got != "ssh://alice@box:22/standalone/i%201" {
		t.Errorf("Identity = %q", got)
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		`ssh -F /tmp/x`:                {"ssh", "-F", "/tmp/x"},
		`ssh -F '/tmp/a b' -o "X=1 2"`: {"ssh", "-F", "/tmp/a b", "-o", "X=1 2"},
		`/usr/bin/ssh\ 2 -v`:           {"/usr/bin/ssh 2", "-v"},
		`ssh -o "a\"b"`:                {"ssh", "-o", `a"b`},
		`  ssh  `:                      {"ssh"},
	} {
		got, err := splitWords(in)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`ssh 'open`, `ssh "open`} {
		if _, err := splitWords(bad); err == nil {
			t.Errorf("splitWords(%q): no error", bad)
		}
	}
}

// TestClassify: each of ssh's failures is named by its own kind.
func TestClassify(t *testing.T) {
	for stderr, kind := range map[string]error{
		"Host key verification failed.\r\n":                                                                                        dial.ErrHostKey,
		"@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n":                                                      dial.ErrHostKey,
		"No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.": dial.ErrHostKey,
		"root@127.0.0.1: Permission denied (publickey).":                                                                           dial.ErrSSHAuth,
		"ssh: connect to host 127.0.0.1 port 1: Connection refused":                                                                dial.ErrRefused,
		"ssh: Could not resolve hostname nowhere: Name or service not known":                                                       dial.ErrNotResolved,
		"channel 0: open failed: connect failed: Connection refused":                                                               dial.ErrRefused,
		"channel 0: open failed: administratively prohibited: open failed":                                                         dial.ErrRefused,
		"ssh: connect to host 10.0.0.1 port 22: Connection timed out":                                                              dial.ErrTimedOut,
		"Connection closed by 127.0.0.1 port 2222":                                                                                 dial.ErrDropped,
		"something else": dial.ErrDial,
	} {
		de := classify("ssh://u@b:22", stderr, errors.New("exit status 255"))
		if !errors.Is(de, kind) {
			t.Errorf("classify(%q) = %v, want kind %v", stderr, de.Kind, kind)
		}
		if strings.ContainsAny(de.Cause, "\r\n") {
			t.Errorf("classify(%q): the cause spans lines: %q", stderr, de.Cause)
		}
	}
}

const nonce = "0123456789abcdef"

// listing is a listScript output for one registry with entry e (its
// file named by name, with mode, links and owner as given).
func listing(e registry.Entry, name, mode string, links, owner int, procs string) []byte {
	dir := "/home/a/.config/Code/agent-host"
	raw := fmt.Sprintf(`{"schemaVersion":%d,"type":%q,"pid":%d,"instanceId":%q,"protocolVersion":"1.0.0","connectionToken":"TOKEN-123","endpoint":{"type":"tcp","host":"127.0.0.1","port":%d}}`,
		e.SchemaVersion, e.Type, e.PID, e.InstanceID, e.Endpoint.Port)
	return []byte("ahptui-listing 1\nuid 1000\n" +
		"node " + dir + "\ndrwxr-xr-x 3 1000 1000 4096 Dec  5 09:00 " + dir + "\n" +
		"node " + dir + "/local-endpoint\ndrwx------ 3 1000 1000 4096 Dec  5 09:00 x\n" +
		"node " + dir + "/local-endpoint/entries\ndrwx------ 2 1000 1000 4096 Dec  5 09:00 x\n" +
		"node " + dir + "/local-endpoint/entries/" + name + "\n" + mode + " " + fmt.Sprint(links) + " " + fmt.Sprint(owner) + " 1000 300 Dec  5 09:00 x\n" +
		"begin " + nonce + "\n" + raw + "\nend " + nonce + "\n" + procs + "done " + nonce + "\n")
}

// TestRemoteListing: the remote registry is judged by the local one's
// rules: a live pid of the remote user, an owner-only 0600 file of its
// own with one link and its identity's name; another schema ignored.
func TestRemoteListing(t *testing.T) {
	e := registry.Entry{SchemaVersion: 2, Type: "standalone", PID: 4242, InstanceID: "i1", Endpoint: registry.Endpoint{Port: 9000}}
	good := e.Identity() + ".json"
	alive := "proc 4242 1000\n"
	for _, tc := range []struct {
		name  string
		out   []byte
		found bool
		why   string
	}{
		{"good", listing(e, good, "-rw-------", 1, 1000, alive), true, ""},
		{"pid not running", listing(e, good, "-rw-------", 1, 1000, ""), false, "not running"},
		{"pid another user's", listing(e, good, "-rw-------", 1, 1000, "proc 4242 0\n"), false, "not running"},
		{"file open to others", listing(e, good, "-rw-r--r--", 1, 1000, alive), false, "open to other users"},
		{"file not the user's", listing(e, good, "-rw-------", 1, 0, alive), false, "belongs to uid 0"},
		{"file hard-linked", listing(e, good, "-rw-------", 2, 1000, alive), false, "hard links"},
		{"a symlink", listing(e, good, "lrwxrwxrwx", 1, 1000, alive), false, "not a regular file"},
		{"misnamed", listing(e, "0000.json", "-rw-------", 1, 1000, alive), false, "not named after"},
		{"another schema", listing(registry.Entry{SchemaVersion: 3, Type: "standalone", PID: 4242, InstanceID: "i1", Endpoint: registry.Endpoint{Port: 9000}}, good, "-rw-------", 1, 1000, alive), false, ""},
	} {
		l, err := parseListing(tc.out, nonce)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := registry.ReadRemote(l)
		if got := len(r.Entries) == 1; got != tc.found {
			t.Errorf("%s: found %v (%v), want %v", tc.name, got, r.Skipped, tc.found)
		}
		if tc.why != "" && !strings.Contains(strings.Join(r.Skipped, "\n"), tc.why) {
			t.Errorf("%s: skipped %q, want a reason saying %q", tc.name, r.Skipped, tc.why)
		}
		if strings.Contains(strings.Join(r.Skipped, "\n"), "TOKEN-123") {
			t.Errorf("%s: a skip reason shows the token", tc.name)
		}
	}
	// A registry directory open to others is a refusal (unreadable),
	// not "no host".
	open := []byte(strings.Replace(string(listing(e, good, "-rw-------", 1, 1000, alive)), "drwx------ 3", "drwxrwxrwx 3", 1))
	l, err := parseListing(open, nonce)
	if err != nil {
		t.Fatal(err)
	}
	r := registry.ReadRemote(l)
	if de := NoHost(Addr{User: "a", Host: "b", Port: 22}, r); len(r.Entries) != 0 || !errors.Is(de, dial.ErrRemoteRegistry) {
		t.Errorf("an open registry dir: %d entries, %v", len(r.Entries), de)
	}
	// Cut short (the connection dropped mid-listing), or forged markers
	// without the nonce: an error, never a partial list.
	full := listing(e, good, "-rw-------", 1, 1000, alive)
	if _, err := parseListing(full[:len(full)-30], nonce); err == nil {
		t.Error("a listing cut short parsed")
	}
	if _, err := parseListing(full, "ffffffffffffffff"); err == nil {
		t.Error("a listing with another nonce parsed")
	}
}

// TestEndpointsFromCLI: `code agent endpoints`' JSON (whole, or its last
// line) is read with the same entry rules and pid check.
func TestEndpointsFromCLI(t *testing.T) {
	ep := `{"userDataPath":"/home/a/.vscode-server/data","endpoints":[{"schemaVersion":2,"type":"standalone","pid":7,"instanceId":"i","protocolVersion":"1.0.0","connectionToken":"T-1","endpoint":{"type":"tcp","host":"127.0.0.1","port":9}},{"schemaVersion":2,"type":"standalone","pid":8,"instanceId":"j","protocolVersion":"1.0.0","connectionToken":"T-2","endpoint":{"type":"tcp","host":"10.1.1.1","port":9}}]}`
	out := "ahptui-listing 1\nuid 1000\nendpoints " + nonce + "\nlog line\n" + ep + "\nend " + nonce + "\nproc 7 1000\nproc 8 1000\ndone " + nonce + "\n"
	l, err := parseListing([]byte(out), nonce)
	if err != nil {
		t.Fatal(err)
	}
	r := registry.ReadRemote(l)
	if !r.FromCLI || r.UserDataPath != "/home/a/.vscode-server/data" || len(r.Entries) != 1 || r.Entries[0].InstanceID != "i" {
		t.Fatalf("ReadRemote = %+v", r)
	}
	hs := Hosts(Addr{User: "a", Host: "b", Port: 22}, r)
	if len(hs) != 1 || !hs[0].Relay {
		t.Fatalf("Hosts = %+v, want one reached by relay", hs)
	}
}
