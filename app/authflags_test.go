package app

import (
	"flag"
	"io"
	"testing"
)

// --oauth-client ISSUER=CLIENT_ID, repeatable, reaches authpkce.Config;
// a value without both halves is a usage error.
func TestOAuthClientFlag(t *testing.T) {
	parse := func(args ...string) (authOptions, error) {
		var a authOptions
		fs := flag.NewFlagSet("ahptui", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		a.register(fs)
		return a, fs.Parse(args)
	}
	a, err := parse("--oauth-client", "https://github.com/login/oauth=Iv1.abc", "--oauth-client", "https://as.example=x=y")
	if err != nil {
		t.Fatal(err)
	}
	if a.clients["https://github.com/login/oauth"] != "Iv1.abc" || a.clients["https://as.example"] != "x=y" || len(a.clients) != 2 {
		t.Errorf("clients = %v", a.clients)
	}
	for _, bad := range []string{"https://github.com/login/oauth", "=id", "https://as.example="} {
		if _, err := parse("--oauth-client", bad); err == nil {
			t.Errorf("--oauth-client %q accepted", bad)
		}
	}
}
