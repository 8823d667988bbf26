package ssh

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ahptui/ahptui/host/dial"
)

// CommandEnv names the ssh command and its options, as GIT_SSH_COMMAND
// does for git: words split as a shell would (quotes and backslashes),
// run without a shell. Tests use it for their own -F config.
const CommandEnv = "AHPTUI_SSH_COMMAND"

// Runner runs ssh for one box.
type Runner struct {
	// Command is the ssh command and its own options (CommandEnv, else
	// ["ssh"]).
	Command []string
	// Interactive: ssh may ask on the terminal (a host key, a password)
	// — the UI's first look at the box, before its screen opens. Every
	// other run is BatchMode, on no terminal.
	Interactive bool
	// Stderr receives ssh's own messages when Interactive (its questions
	// go to the terminal itself).
	Stderr io.Writer
}

// NewRunner is the runner getenv's CommandEnv names.
func NewRunner(getenv func(string) string) (Runner, error) {
	cmd := []string{"ssh"}
	if v := strings.TrimSpace(getenv(CommandEnv)); v != "" {
		words, err := splitWords(v)
		if err != nil {
			return Runner{}, fmt.Errorf("%s: %w", CommandEnv, err)
		}
		if len(words) == 0 {
			return Runner{}, fmt.Errorf("%s names no command", CommandEnv)
		}
		cmd = words
	}
	return Runner{Command: cmd}, nil
}

// Path is where the ssh binary is, or ErrNoSSH.
func (r Runner) Path() (string, error) {
	p, err := exec.LookPath(r.Command[0])
	if err != nil {
		return "", fmt.Errorf("%w (%s): install OpenSSH's client, or set %s", ErrNoSSH, r.Command[0], CommandEnv)
	}
	return p, nil
}

// args is the argv after the binary: the command's own options, the
// ones every run takes, extra, then the box and the remote command.
func (r Runner) args(a Addr, batch bool, extra []string, remote ...string) []string {
	args := append([]string(nil), r.Command[1:]...)
	if batch {
		args = append(args, "-o", "BatchMode=yes")
	}
	// A box that went away is noticed within half a minute, and a box
	// that never answers within ConnectTimeout: a dead ssh is a dropped
	// connection, never a hang.
	args = append(args, "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3")
	if a.Port != 0 {
		args = append(args, "-p", strconv.Itoa(a.Port))
	}
	if a.User != "" {
		args = append(args, "-l", a.User)
	}
	args = append(args, extra...)
	args = append(args, "--", a.Host)
	return append(args, remote...)
}

// command is an ssh process for a: no terminal unless interactive (a new
// session, so ssh cannot open /dev/tty behind the UI's back).
func (r Runner) command(ctx context.Context, a Addr, interactive bool, extra []string, remote ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, r.Command[0], r.args(a, !interactive, extra, remote...)...)
	if !interactive {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// Resolve fills in a's user and port as ssh's configuration resolves
// them (`ssh -G`, which reads the config and connects nowhere), so the
// identity names who logs in where, however the user spelled the box.
func (r Runner) Resolve(ctx context.Context, a Addr) (Addr, error) {
	if _, err := r.Path(); err != nil {
		return a, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := append([]string(nil), r.Command[1:]...)
	args = append(args, "-G")
	if a.Port != 0 {
		args = append(args, "-p", strconv.Itoa(a.Port))
	}
	if a.User != "" {
		args = append(args, "-l", a.User)
	}
	args = append(args, "--", a.Host)
	cmd := exec.CommandContext(ctx, r.Command[0], args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return a, dial.NewDialError(dial.ErrDial, a.Box(), "ssh -G "+a.Host+": "+lastLines(stderr.String(), err))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "user":
			if a.User == "" && safeWord(v) {
				a.User = v
			}
		case "port":
			if n, err := strconv.Atoi(v); err == nil && a.Port == 0 && n > 0 && n < 65536 {
				a.Port = n
			}
		}
	}
	if a.Port == 0 {
		a.Port = 22
	}
	return a, nil
}

// classify names why ssh failed from its stderr (which never held a
// token: ssh was given none) and its exit status.
func classify(id string, stderr string, err error) *dial.DialError {
	s := stderr
	kind := dial.ErrDial
	switch {
	case strings.Contains(s, "Host key verification failed"),
		strings.Contains(s, "REMOTE HOST IDENTIFICATION HAS CHANGED"),
		strings.Contains(s, "host key is known for"),
		strings.Contains(s, "Host key for") && strings.Contains(s, "has changed"):
		kind = dial.ErrHostKey
	case strings.Contains(s, "Permission denied ("), strings.Contains(s, "Too many authentication failures"),
		strings.Contains(s, "no more authentication methods"):
		kind = dial.ErrSSHAuth
	case strings.Contains(s, "Could not resolve hostname"):
		kind = dial.ErrNotResolved
	case strings.Contains(s, "open failed") && strings.Contains(s, "administratively prohibited"):
		kind = dial.ErrRefused
		s = "the box's sshd does not allow forwarding (AllowTcpForwarding / AllowStreamLocalForwarding): " + s
	case strings.Contains(s, "open failed"):
		kind = dial.ErrRefused
		s = "the agent host's endpoint on the box refused the forwarded connection: " + s
	case strings.Contains(s, "Connection refused"):
		kind = dial.ErrRefused
	case strings.Contains(s, "timed out"):
		kind = dial.ErrTimedOut
	case strings.Contains(s, "Connection closed"), strings.Contains(s, "Connection reset"),
		strings.Contains(s, "Broken pipe"), strings.Contains(s, "Timeout, server"):
		kind = dial.ErrDropped
	}
	return dial.NewDialError(kind, id, lastLines(s, err))
}

// lastLines is the end of ssh's stderr (its last two non-empty lines),
// else the process error, cleaned for one line of a message.
func lastLines(stderr string, err error) string {
	var keep []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "@@@") && !strings.HasPrefix(l, "Warning: Permanently added") {
			keep = append(keep, l)
		}
	}
	if len(keep) > 2 {
		keep = keep[len(keep)-2:]
	}
	s := strings.Join(keep, "; ")
	if s == "" && err != nil {
		s = err.Error()
	}
	if s == "" {
		s = "ssh ended"
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// splitWords splits s as a POSIX shell splits words: blanks separate,
// single quotes keep everything, double quotes keep all but \" and \\,
// a backslash outside quotes escapes the next character.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\' || s[i+1] == '$' || s[i+1] == '`') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			in = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			in = true
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// tee is w and a buffer of what went through it.
type tee struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// String is what went through so far.
func (t *tee) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

func (t *tee) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.buf.Len() < 64<<10 {
		t.buf.Write(p)
	}
	if t.w != nil {
		t.w.Write(p)
	}
	return len(p), nil
}
