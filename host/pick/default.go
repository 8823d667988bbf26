package pick

import (
	"fmt"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/saved"
)

// HostEnv names the host when the command line names none, as GH_HOST
// does for gh: a URL or a saved host's name.
const HostEnv = "AHPTUI_HOST"

// UseDefault fills in the host when s names none (no --host, saved name
// or --demo), for the UI and the commands alike: AHPTUI_HOST, else the
// saved hosts' default (hosts.yml's `default:`), else nothing, and VS
// Code's registry is read as before. A hosts.yml that cannot be read is
// an error here, not a silent fall back to another host: it may name the
// default.
func (s *Spec) UseDefault(getenv func(string) string) error {
	if !s.Discover() {
		return nil
	}
	if v := getenv(HostEnv); v != "" {
		if !saved.ValidName(v) {
			if err := CheckURL(v); err != nil {
				return fmt.Errorf("%s=%q: %w", HostEnv, dial.Redact(v), err)
			}
		}
		s.Host, s.FromEnv = v, true
		return nil
	}
	dir, err := ConfigDir(s.ConfigDir)
	if err != nil {
		return err
	}
	def, err := saved.Default(dir)
	if err != nil {
		return fmt.Errorf("saved hosts (they may name the default host): %w", err)
	}
	s.Saved = def
	return nil
}
