package authpkce

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// storeFileName is the one file the store owns inside its directory.
const storeFileName = "oauth-tokens.json"

// storeVersion lets a later release migrate or discard the file.
const storeVersion = 1

// registration is a dynamically registered client, remembered per
// authorization server so the user is not registered again on every grant.
type registration struct {
	ClientID                string    `json:"client_id"`
	ClientSecret            string    `json:"client_secret,omitempty"`
	TokenEndpointAuthMethod string    `json:"token_endpoint_auth_method,omitempty"`
	ClientSecretExpiresAt   int64     `json:"client_secret_expires_at,omitempty"`
	RegisteredAt            time.Time `json:"registered_at"`
}

func (r registration) usable(now time.Time) bool {
	return r.ClientID != "" && (r.ClientSecretExpiresAt == 0 || now.Before(time.Unix(r.ClientSecretExpiresAt, 0)))
}

// tokenKey identifies a grant: the same resource reached through another
// authorization server or client is a different grant.
type tokenKey struct {
	Issuer   string `json:"issuer"`
	Resource string `json:"resource"`
	ClientID string `json:"client_id"`
}

type storedToken struct {
	tokenKey
	Token
	UpdatedAt time.Time
}

// diskToken is storedToken as written to the file. It exists because
// Token's own JSON form is redacted (so a token logged as JSON stays
// secret), and the file is the one place the secrets must be written.
type diskToken struct {
	tokenKey
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scopes       []string  `json:"scopes,omitempty"`
	UpdatedAt    time.Time `json:"updated_at"`
}

func toDisk(st storedToken) diskToken {
	return diskToken{st.tokenKey, st.AccessToken, st.RefreshToken, st.TokenType, st.Expiry, st.Scopes, st.UpdatedAt}
}

func fromDisk(d diskToken) storedToken {
	return storedToken{
		tokenKey:  d.tokenKey,
		Token:     Token{AccessToken: d.AccessToken, RefreshToken: d.RefreshToken, TokenType: d.TokenType, Expiry: d.Expiry, Scopes: d.Scopes},
		UpdatedAt: d.UpdatedAt,
	}
}

type storeFile struct {
	Version       int                     `json:"version"`
	Registrations map[string]registration `json:"registrations,omitempty"`
	Tokens        []diskToken             `json:"tokens,omitempty"`
}

// storeData is the in-memory form of storeFile.
type storeData struct {
	Registrations map[string]registration
	Tokens        []storedToken
}

// store keeps tokens and registrations in memory and mirrors them to one
// 0600 file in a 0700 directory. An empty dir keeps everything in memory.
type store struct {
	mu   sync.Mutex
	dir  string
	data storeData
}

func openStore(dir string) (*store, error) {
	s := &store{dir: dir, data: storeData{Registrations: map[string]registration{}}}
	if dir == "" {
		return s, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, storeFileName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("%w: reading %s: %w; check its permissions", ErrStore, dir, err)
	}
	var f storeFile
	if err := json.Unmarshal(b, &f); err != nil || f.Version != storeVersion {
		// A corrupt or foreign file costs the user one sign-in, not the
		// program: start empty and overwrite it on the next save.
		return s, nil
	}
	if f.Registrations != nil {
		s.data.Registrations = f.Registrations
	}
	for _, d := range f.Tokens {
		s.data.Tokens = append(s.data.Tokens, fromDisk(d))
	}
	return s, nil
}

func (s *store) registration(issuer string, now time.Time) (registration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.data.Registrations[issuer]
	if !ok || !r.usable(now) {
		return registration{}, false
	}
	return r, true
}

func (s *store) putRegistration(issuer string, r registration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data.Registrations[issuer] = r
	return s.saveLocked()
}

func (s *store) dropRegistration(issuer string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.data.Registrations, issuer)
	return s.saveLocked()
}

func (s *store) token(k tokenKey) (Token, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.data.Tokens {
		if t.tokenKey == k {
			return t.Token, true
		}
	}
	return Token{}, false
}

func (s *store) putToken(k tokenKey, t Token, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data.Tokens = slices.DeleteFunc(s.data.Tokens, func(st storedToken) bool { return st.tokenKey == k })
	s.data.Tokens = append(s.data.Tokens, storedToken{tokenKey: k, Token: t, UpdatedAt: now})
	return s.saveLocked()
}

func (s *store) dropToken(k tokenKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.data.Tokens)
	s.data.Tokens = slices.DeleteFunc(s.data.Tokens, func(st storedToken) bool { return st.tokenKey == k })
	if len(s.data.Tokens) == n {
		return nil
	}
	return s.saveLocked()
}

func (s *store) all() []storedToken {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.data.Tokens)
}

// saveLocked replaces the file atomically (temp file + rename) so a crash
// never leaves a half-written token file. The temp file is created 0600 by
// os.CreateTemp, so the secrets are never readable by others, not even
// briefly.
func (s *store) saveLocked() error {
	if s.dir == "" {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("%w: creating %s: %w; check the permissions of your config directory", ErrStore, s.dir, err)
	}
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return fmt.Errorf("%w: restricting %s to 0700: %w", ErrStore, s.dir, err)
	}
	f := storeFile{Version: storeVersion, Registrations: s.data.Registrations}
	for _, st := range s.data.Tokens {
		f.Tokens = append(f.Tokens, toDisk(st))
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("%w: encoding: %w", ErrStore, err)
	}
	tmp, err := os.CreateTemp(s.dir, ".oauth-tokens-*.tmp")
	if err != nil {
		return fmt.Errorf("%w: %w; check the permissions of %s", ErrStore, err, s.dir)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: writing %s: %w; is the disk full?", ErrStore, tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, storeFileName)); err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	return nil
}
