package authpkce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// storeFileName is the token file inside the store's directory;
// storeLockName is the file whose lock serialises writers across ahptui
// processes (it holds nothing).
const (
	storeFileName = "oauth-tokens.json"
	storeLockName = "oauth-tokens.lock"
)

// storeVersion 2 binds each grant to the AHP host it was obtained on and
// keeps the user's per-host answers. A version 1 file still loads: its
// grants have no host, and Lookup never pushes such a grant silently.
const storeVersion = 2

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

// tokenKey identifies a grant: the same resource obtained on another AHP
// host, or through another authorization server or client, is a different
// grant. Host is empty for grants saved before hosts were recorded.
type tokenKey struct {
	Host     string `json:"host,omitempty"`
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

// hostAnswer is the user's answer to "use your sign-in to Resource (issued
// by Issuer) on host Host?", kept so they are asked once per host.
type hostAnswer struct {
	Host     string    `json:"host"`
	Resource string    `json:"resource"`
	Issuer   string    `json:"issuer"`
	Allow    bool      `json:"allow"`
	At       time.Time `json:"at"`
}

func (h hostAnswer) same(o hostAnswer) bool {
	return h.Host == o.Host && h.Resource == o.Resource && h.Issuer == o.Issuer
}

type storeFile struct {
	Version       int                     `json:"version"`
	Registrations map[string]registration `json:"registrations,omitempty"`
	Tokens        []diskToken             `json:"tokens,omitempty"`
	Answers       []hostAnswer            `json:"answers,omitempty"`
}

// storeData is the in-memory form of storeFile.
type storeData struct {
	Registrations map[string]registration
	Tokens        []storedToken
	Answers       []hostAnswer
}

func decodeStore(b []byte) storeData {
	d := storeData{Registrations: map[string]registration{}}
	var f storeFile
	if len(b) == 0 || json.Unmarshal(b, &f) != nil || (f.Version != 1 && f.Version != storeVersion) {
		// A corrupt or foreign file costs the user one sign-in, not the
		// program: start empty and overwrite it on the next save.
		return d
	}
	if f.Registrations != nil {
		d.Registrations = f.Registrations
	}
	for _, t := range f.Tokens {
		d.Tokens = append(d.Tokens, fromDisk(t))
	}
	d.Answers = f.Answers
	return d
}

func encodeStore(d storeData) ([]byte, error) {
	f := storeFile{Version: storeVersion, Registrations: d.Registrations, Answers: d.Answers}
	for _, st := range d.Tokens {
		f.Tokens = append(f.Tokens, toDisk(st))
	}
	return json.MarshalIndent(f, "", "  ")
}

// backend holds the encoded store somewhere: the 0600 file or the OS
// keyring. read returns nil bytes when nothing was saved yet.
type backend interface {
	read() ([]byte, error)
	write(b []byte) error
}

// store keeps tokens, registrations and answers. Every change is a
// read-modify-write under an exclusive lock on a lock file, so two ahptui
// processes saving at once both keep their grant; reads need no lock
// because every write replaces the whole content atomically. A nil backend
// keeps everything in memory.
type store struct {
	mu      sync.Mutex // orders this process's goroutines; the lock file orders processes
	dir     string
	backend backend
	data    storeData // the last state read or written
}

func openStore(dir string) (*store, error) {
	if dir == "" {
		return newStore("", nil)
	}
	return newStore(dir, fileBackend{dir: dir})
}

// kind names the backend in use, for the log and a sign-ins view.
func (s *store) kind() string {
	switch s.backend.(type) {
	case nil:
		return "memory"
	case keyringBackend:
		return TokenStoreKeyring
	}
	return TokenStoreFile
}

func newStore(dir string, b backend) (*store, error) {
	s := &store{dir: dir, backend: b, data: storeData{Registrations: map[string]registration{}}}
	if b == nil {
		return s, nil
	}
	if _, err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// load re-reads the backend so a grant another process saved is seen.
// Callers hold s.mu.
func (s *store) load() (storeData, error) {
	if s.backend == nil {
		return s.data, nil
	}
	b, err := s.backend.read()
	if err != nil {
		return storeData{}, err
	}
	s.data = decodeStore(b)
	return s.data, nil
}

// view returns the current data: re-read, or the last known state when the
// backend cannot be read (a read error must not lose the tokens in hand).
func (s *store) view() storeData {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, err := s.load(); err == nil {
		return d
	}
	return s.data
}

// update applies change to the freshly re-read data under the cross-process
// lock and writes the result back. change reports whether it changed
// anything; nothing is written when it did not.
func (s *store) update(change func(d *storeData) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.backend == nil {
		change(&s.data)
		return nil
	}
	if err := ensureDir(s.dir); err != nil {
		return err
	}
	unlock, err := lockFile(filepath.Join(s.dir, storeLockName))
	if err != nil {
		return fmt.Errorf("%w: locking %s: %w", ErrStore, s.dir, err)
	}
	defer unlock()
	d, err := s.load()
	if err != nil {
		return err
	}
	d = cloneData(d)
	if !change(&d) {
		return nil
	}
	b, err := encodeStore(d)
	if err != nil {
		return fmt.Errorf("%w: encoding: %w", ErrStore, err)
	}
	if err := s.backend.write(b); err != nil {
		return err
	}
	s.data = d
	return nil
}

func cloneData(d storeData) storeData {
	out := storeData{Registrations: make(map[string]registration, len(d.Registrations))}
	for k, v := range d.Registrations {
		out.Registrations[k] = v
	}
	out.Tokens = slices.Clone(d.Tokens)
	out.Answers = slices.Clone(d.Answers)
	return out
}

func (s *store) registration(issuer string, now time.Time) (registration, bool) {
	r, ok := s.view().Registrations[issuer]
	if !ok || !r.usable(now) {
		return registration{}, false
	}
	return r, true
}

func (s *store) putRegistration(issuer string, r registration) error {
	return s.update(func(d *storeData) bool {
		d.Registrations[issuer] = r
		return true
	})
}

func (s *store) dropRegistration(issuer string) error {
	return s.update(func(d *storeData) bool {
		_, ok := d.Registrations[issuer]
		delete(d.Registrations, issuer)
		return ok
	})
}

func (s *store) token(k tokenKey) (Token, bool) {
	for _, t := range s.view().Tokens {
		if t.tokenKey == k {
			return t.Token, true
		}
	}
	return Token{}, false
}

func (s *store) putToken(k tokenKey, t Token, now time.Time) error {
	return s.update(func(d *storeData) bool {
		d.Tokens = slices.DeleteFunc(d.Tokens, func(st storedToken) bool { return st.tokenKey == k })
		d.Tokens = append(d.Tokens, storedToken{tokenKey: k, Token: t, UpdatedAt: now})
		return true
	})
}

func (s *store) dropToken(k tokenKey) error {
	return s.update(func(d *storeData) bool {
		n := len(d.Tokens)
		d.Tokens = slices.DeleteFunc(d.Tokens, func(st storedToken) bool { return st.tokenKey == k })
		return len(d.Tokens) != n
	})
}

func (s *store) all() []storedToken {
	return slices.Clone(s.view().Tokens)
}

func (s *store) answers() []hostAnswer {
	return slices.Clone(s.view().Answers)
}

func (s *store) putAnswer(a hostAnswer) error {
	return s.update(func(d *storeData) bool {
		d.Answers = slices.DeleteFunc(d.Answers, a.same)
		d.Answers = append(d.Answers, a)
		return true
	})
}

func ensureDir(dir string) error {
	_, err := PrivateDir(dir)
	return err
}

// fileBackend is the 0600 token file in a 0700 directory. notes collects
// what was repaired on the way (a file or directory open to others).
type fileBackend struct {
	dir   string
	notes *[]string
}

func (f fileBackend) read() ([]byte, error) {
	b, note, err := readPrivate(filepath.Join(f.dir, storeFileName))
	if note != "" && f.notes != nil {
		*f.notes = append(*f.notes, note)
	}
	return b, err
}

// write replaces the file atomically (temp file, fsync, rename) so a crash
// or a concurrent reader never sees a half-written token file. The temp
// file is created 0600 by os.CreateTemp, so the secrets are never readable
// by others, not even briefly.
func (f fileBackend) write(b []byte) error {
	tmp, err := os.CreateTemp(f.dir, ".oauth-tokens-*.tmp")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: writing %s: %w", ErrStore, tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(f.dir, storeFileName)); err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	return nil
}
