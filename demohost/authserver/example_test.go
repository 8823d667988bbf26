package authserver_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"golang.org/x/oauth2"

	"github.com/ahptui/ahptui/demohost/authserver"
)

// A test plays the browser with ApproveHeadless and checks the token the
// way the host does, with Introspect.
func Example() {
	ctx := context.Background()
	as, err := authserver.Start(ctx, authserver.Config{AccessTokenLifespan: time.Minute})
	if err != nil {
		log.Fatal(err)
	}
	defer as.Close()

	conf := &oauth2.Config{
		ClientID:    as.PublicClientID(),
		Endpoint:    oauth2.Endpoint{AuthURL: as.AuthorizationEndpoint(), TokenURL: as.TokenEndpoint()},
		RedirectURL: "http://127.0.0.1:49152/callback", // any port: RFC 8252 loopback
		Scopes:      []string{"mcp:read"},
	}
	verifier := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL("example-state",
		oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", "http://127.0.0.1:8080/ahp"))

	redirect, err := authserver.ApproveHeadless(ctx, nil, authURL)
	if err != nil {
		log.Fatal(err)
	}
	if err := authserver.RedirectError(redirect); err != nil {
		log.Fatal(err)
	}
	tok, err := conf.Exchange(ctx, redirect.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		log.Fatal(err)
	}
	info, err := as.Introspect(ctx, tok.AccessToken)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Active, info.Scopes, info.Audience, info.Subject)
	// Output: true [mcp:read] [http://127.0.0.1:8080/ahp] demo-user
}
