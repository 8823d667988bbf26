package app

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
)

// noDemoChildEnv marks the child process TestNoDemoStartsNothing runs
// itself in.
const noDemoChildEnv = "AHPTUI_NODEMO_CHILD"

// TestNoDemoStartsNothing: the binary links the demo host and its
// authorization server, but unless
// --demo runs them they must cost nothing at run time. In a fresh process
// of this test binary — which links all of main's dependencies, so all
// their init code and package variables have run — and again after
// `--version` has run through main's flag handling, the test checks:
//
//   - no goroutine runs code from outside the standard library (and this
//     test);
//   - no socket is open (no listener, no connection);
//   - http.DefaultTransport is still the standard library's *http.Transport
//     and http.DefaultClient is untouched: no dependency wrapped them (no
//     tracer can see requests: TestBinaryLinksNoTelemetryOrORM keeps
//     OpenTelemetry out of the binary).
//
// The check runs in a child process so no other test of this package can
// have started anything before it.
func TestNoDemoStartsNothing(t *testing.T) {
	if os.Getenv(noDemoChildEnv) == "1" {
		for _, p := range startedSoFar() {
			t.Errorf("at startup: %s", p)
		}
		var out bytes.Buffer
		if code := run([]string{"--version"}, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "ahptui ") {
			t.Fatalf("--version: exit %d, output %q", code, out.String())
		}
		for _, p := range startedSoFar() {
			t.Errorf("after --version: %s", p)
		}
		// The check must be able to fail: running the demo host is
		// what --demo does, and it shows.
		host, err := demohost.Start(t.Context(), demohost.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer host.Close()
		if len(startedSoFar()) == 0 {
			t.Error("a running demo host went unnoticed: the check proves nothing")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDemoStartsNothing$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), noDemoChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestNoDemoStartsNothing")) {
		t.Fatalf("child process: %v\n%s", err, out)
	}
}

// startedSoFar lists what the process runs beyond what the standard
// library and the test framework start.
func startedSoFar() []string {
	var problems []string
	var dump bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&dump, 2); err != nil {
		return []string{err.Error()}
	}
	for _, g := range strings.Split(dump.String(), "\n\n") {
		if f := foreignFrame(g); f != "" {
			problems = append(problems, fmt.Sprintf("a goroutine runs %s:\n%s", f, g))
		}
	}
	if runtime.GOOS == "linux" {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return append(problems, err.Error())
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
			if err == nil && strings.HasPrefix(target, "socket:") {
				problems = append(problems, fmt.Sprintf("fd %s is a socket (%s)", fd.Name(), target))
			}
		}
	}
	if _, ok := http.DefaultTransport.(*http.Transport); !ok {
		problems = append(problems, fmt.Sprintf("http.DefaultTransport is a %T, not the standard *http.Transport", http.DefaultTransport))
	}
	if c := http.DefaultClient; c.Transport != nil || c.CheckRedirect != nil || c.Jar != nil || c.Timeout != 0 {
		problems = append(problems, fmt.Sprintf("http.DefaultClient was changed: %+v", *c))
	}
	return problems
}

// TestBinaryLinksNoTelemetryOrORM: the demo's authorization server is our
// own since issue 33 (it was ory/fosite, which brought ory/x, gRPC,
// protobuf, the OTLP, jaeger and zipkin exporters and an ORM: about 48 of
// the binary's 88 modules, and their package initialisation ran at every
// start). None of that tree may come back into the binary unnoticed.
func TestBinaryLinksNoTelemetryOrORM(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ahptui/ahptui").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := []string{"github.com/ory/", "go.opentelemetry.io/", "google.golang.org/grpc", "google.golang.org/protobuf",
		"github.com/gobuffalo/", "github.com/asaskevich/govalidator", "github.com/spf13/viper"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			if strings.HasPrefix(pkg, b) {
				t.Errorf("the ahptui binary links %s", pkg)
				break
			}
		}
	}
}

// foreignFrame returns the first function in a goroutine's stack that is
// neither the standard library's nor this package's tests, or "".
func foreignFrame(stack string) string {
	for _, line := range strings.Split(stack, "\n") {
		if line == "" || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "goroutine ") {
			continue
		}
		fn := line
		if i := strings.LastIndexByte(fn, '('); i > 0 {
			fn = fn[:i]
		}
		fn = strings.TrimPrefix(fn, "created by ")
		// A module path starts with a domain ("github.com/…"); standard
		// packages have no dot in their first element ("net/http.…", or
		// no slash at all: "testing.tRunner").
		first, _, slash := strings.Cut(fn, "/")
		if !slash || !strings.Contains(first, ".") {
			continue
		}
		if strings.HasPrefix(fn, "github.com/ahptui/ahptui/app.") {
			continue // this test's own goroutine
		}
		return fn
	}
	return ""
}
