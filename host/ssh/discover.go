package ssh

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/registry"
)

// listScript runs on the box under sh (sent on ssh's stdin): VS Code's
// CLI's `code agent endpoints` when it is on the PATH and works, else
// every registry directory and entry file with `ls -lnd` (type, mode,
// links, owner), each entry file's contents between markers holding
// NONCE (which the files cannot guess), and the owner of each pid the
// entries name. POSIX sh, ls, head, tr, grep, cut, sort, awk and ps or
// /proc: what any box has.
const listScript = `N='NONCE'
echo "ahptui-listing 1"
echo "uid $(id -u)"
node() {
  if [ -e "$1" ] || [ -L "$1" ]; then printf 'node %s\n' "$1"; l=$(ls -lnd "$1" 2>/dev/null | head -n 1); printf '%s\n' "$l"; fi
}
all=""
if command -v code >/dev/null 2>&1; then
  if out=$(code agent endpoints 2>/dev/null) && [ -n "$out" ]; then
    printf 'endpoints %s\n' "$N"; printf '%s\n' "$out"; printf 'end %s\n' "$N"
    all="$out"
  else
    echo "codefailed"
  fi
fi
if [ -z "$all" ]; then
  bases="${XDG_CONFIG_HOME:-$HOME/.config}"
  [ "$(uname 2>/dev/null)" = Darwin ] && bases="$HOME/Library/Application Support
$bases"
  old="$IFS"; IFS='
'
  for base in $bases; do
    IFS="$old"
    for p in "Code" "Code - Insiders" "Code - OSS" "code-oss"; do
      ah="$base/$p/agent-host"
      [ -e "$ah" ] || [ -L "$ah" ] || continue
      node "$ah"; node "$ah/local-endpoint"; node "$ah/local-endpoint/entries"
      for f in "$ah/local-endpoint/entries"/*.json; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        node "$f"
        if [ -f "$f" ] && [ ! -L "$f" ] && [ -r "$f" ]; then
          c=$(head -c 65537 "$f")
          printf 'begin %s\n' "$N"; printf '%s\n' "$c"; printf 'end %s\n' "$N"
          all="$all $c"
        fi
      done
    done
  done
  IFS="$old"
fi
for pid in $(printf '%s' "$all" | tr -d ' \t\r\n' | grep -o '"pid":[0-9]*' | cut -d: -f2 | sort -u | head -n 256); do
  if [ -d "/proc/$pid" ]; then u=$(ls -lnd "/proc/$pid" 2>/dev/null | awk '{print $3}')
  else u=$(ps -o uid= -p "$pid" 2>/dev/null | tr -d ' '); fi
  [ -n "$u" ] && printf 'proc %s %s\n' "$pid" "$u"
done
echo "done $N"
`

// Discover reads the box's agent hosts (a resolved: Resolve first). A
// failure is a *dial.DialError: the ssh kinds (host key,
// authentication, refused, dropped), or ErrRemoteRegistry when the box
// answered but no listing came back.
func (r Runner) Discover(ctx context.Context, a Addr) (registry.RemoteResult, error) {
	if _, err := r.Path(); err != nil {
		return registry.RemoteResult{}, dial.NewDialError(dial.ErrDial, a.Box(), err.Error())
	}
	nonce := make([]byte, 16)
	rand.Read(nonce)
	n := hex.EncodeToString(nonce)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	if r.Interactive {
		// A person may be typing a password or checking a fingerprint.
		cancel()
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Minute)
	}
	defer cancel()
	cmd := r.command(ctx, a, r.Interactive, []string{"-T"}, "sh", "-s")
	cmd.Stdin = strings.NewReader(strings.Replace(listScript, "NONCE", n, 1))
	var out bytes.Buffer
	cmd.Stdout = &out
	errs := &tee{}
	if r.Interactive {
		errs.w = r.Stderr
	}
	cmd.Stderr = errs
	err := cmd.Run()
	if ctx.Err() != nil {
		return registry.RemoteResult{}, dial.NewDialError(dial.ErrTimedOut, a.Box(), "the box did not answer the listing within "+time.Duration(30*time.Second).String())
	}
	l, perr := parseListing(out.Bytes(), n)
	if perr != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 255 || out.Len() == 0 {
			// 255 is ssh's own failure: what it said names it.
			return registry.RemoteResult{}, classify(a.Box(), errs.String(), err)
		}
		return registry.RemoteResult{}, dial.NewDialError(dial.ErrRemoteRegistry, a.Box(),
			"the box's listing was cut short or malformed ("+perr.Error()+"); "+lastLines(errs.String(), err))
	}
	return registry.ReadRemote(l), nil
}

// parseListing reads listScript's output.
func parseListing(b []byte, nonce string) (registry.Listing, error) {
	l := registry.Listing{Procs: map[int]int{}, UID: -1}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	begin, end := "begin "+nonce, "end "+nonce
	seenHeader, done := false, false
	var last *registry.Node
	body := func() ([]byte, error) {
		var buf bytes.Buffer
		for sc.Scan() {
			if sc.Text() == end {
				return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
			}
			buf.Write(sc.Bytes())
			buf.WriteByte('\n')
			if buf.Len() > 1<<20 {
				return nil, errors.New("a file longer than 1 MiB")
			}
		}
		return nil, errors.New("a file's contents were cut short")
	}
	for sc.Scan() {
		line := sc.Text()
		k, v, _ := strings.Cut(line, " ")
		switch {
		case line == "ahptui-listing 1":
			seenHeader = true
		case k == "uid":
			uid, err := strconv.Atoi(v)
			if err != nil {
				return l, fmt.Errorf("uid %q", v)
			}
			l.UID = uid
		case line == "codefailed":
		case k == "endpoints" && v == nonce:
			l.EndpointsRan = true
			buf, err := body()
			if err != nil {
				return l, err
			}
			l.Endpoints = buf
		case k == "node":
			if !sc.Scan() {
				return l, errors.New("a listing line was cut short")
			}
			nd := parseLs(v, sc.Text())
			l.Nodes = append(l.Nodes, nd)
			last = &l.Nodes[len(l.Nodes)-1]
		case line == begin:
			data, err := body()
			if err != nil {
				return l, err
			}
			if last != nil {
				last.Data = data
			}
		case k == "proc":
			ps, us, _ := strings.Cut(v, " ")
			pid, err1 := strconv.Atoi(ps)
			uid, err2 := strconv.Atoi(strings.TrimSpace(us))
			if err1 == nil && err2 == nil {
				l.Procs[pid] = uid
			}
		case line == "done "+nonce:
			done = true
		}
	}
	switch {
	case !seenHeader:
		return l, errors.New("no listing")
	case l.UID < 0:
		return l, errors.New("no uid")
	case !done:
		return l, errors.New("no end")
	}
	return l, nil
}

// parseLs reads one `ls -lnd` line (mode, links, uid, …) for path; a
// line it cannot read is a node that exists and is nothing it accepts.
func parseLs(path, line string) registry.Node {
	n := registry.Node{Path: path, Exists: true, UID: -1}
	f := strings.Fields(line)
	if len(f) < 3 || len(f[0]) < 10 {
		return n
	}
	switch f[0][0] {
	case 'd':
		n.Dir = true
	case '-':
		n.Regular = true
	case 'l':
		n.Symlink = true
	}
	var perm fs.FileMode
	for i, c := range f[0][1:10] {
		bit := fs.FileMode(1) << (8 - i)
		switch c {
		case 'r', 'w', 'x', 's', 't':
			perm |= bit
		case '-', 'S', 'T':
		default:
			return registry.Node{Path: path, Exists: true, UID: -1}
		}
	}
	n.Perm = perm
	if v, err := strconv.Atoi(f[1]); err == nil {
		n.Nlink = v
	}
	if v, err := strconv.Atoi(f[2]); err == nil {
		n.UID = v
	}
	return n
}
