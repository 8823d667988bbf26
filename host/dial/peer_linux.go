package dial

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func unixPeerIsOurs(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return &PeerError{Reason: fmt.Sprintf("cannot read the socket's peer: %v", err)}
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		cerr = err
	}
	if cerr != nil {
		return &PeerError{Reason: fmt.Sprintf("cannot read the socket's peer: %v", cerr)}
	}
	if int(cred.Uid) != ourUID() {
		return &PeerError{Reason: fmt.Sprintf("the process on the socket %s is not yours (uid %d, pid %d)", c.RemoteAddr(), cred.Uid, cred.Pid)}
	}
	return nil
}

// tcpPeerIsOurs finds, in /proc/net/tcp and tcp6, the sockets listening
// on the dialled port at the dialled address (or every address), and the
// accepting end of this very connection; every one found must be ours,
// and at least one must be found.
func tcpPeerIsOurs(c *net.TCPConn) error {
	remote, ok1 := c.RemoteAddr().(*net.TCPAddr)
	local, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return &PeerError{Reason: "cannot tell who listens: no TCP address"}
	}
	socks, err := procTCP()
	if err != nil {
		return &PeerError{Reason: fmt.Sprintf("cannot tell who listens on port %d: %v", remote.Port, err)}
	}
	found := 0
	for _, s := range socks {
		if s.local.Port != remote.Port {
			continue
		}
		listening := s.state == tcpListen && (sameIP(s.local.IP, remote.IP) || s.local.IP.IsUnspecified())
		accepted := acceptedStates[s.state] && sameIP(s.local.IP, remote.IP) && s.remote.Port == local.Port && sameIP(s.remote.IP, local.IP)
		if !listening && !accepted {
			continue
		}
		found++
		if s.uid != ourUID() {
			return &PeerError{Reason: fmt.Sprintf("the process listening on %s is not yours (uid %d)", remote, s.uid)}
		}
	}
	if found == 0 {
		return &PeerError{Reason: fmt.Sprintf("cannot tell who listens on %s: no such socket in /proc/net/tcp", remote)}
	}
	return nil
}

func sameIP(a, b net.IP) bool { return a.Equal(b) }

const tcpListen = 0x0A

// acceptedStates are the states the host's end of a connection just
// opened can be in (ESTABLISHED, SYN_RECV, CLOSE_WAIT); a TIME_WAIT
// entry names no owner (the kernel shows uid 0).
var acceptedStates = map[int]bool{0x01: true, 0x03: true, 0x08: true}

type procSock struct {
	local, remote net.TCPAddr
	state         int
	uid           int
}

// procTCP reads every TCP socket of /proc/net/tcp and /proc/net/tcp6.
func procTCP() ([]procSock, error) {
	var out []procSock
	read := 0
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue // no IPv6, say
		}
		read++
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			if s, ok := parseProcSock(sc.Text()); ok {
				out = append(out, s)
			}
		}
		f.Close()
	}
	if read == 0 {
		return nil, fmt.Errorf("/proc/net/tcp cannot be read")
	}
	return out, nil
}

// parseProcSock reads one line: "sl local rem st tx:rx tr:when retrnsmt
// uid ...", addresses as hex words in the kernel's byte order.
func parseProcSock(line string) (procSock, bool) {
	f := strings.Fields(line)
	if len(f) < 8 {
		return procSock{}, false
	}
	local, ok1 := parseProcAddr(f[1])
	remote, ok2 := parseProcAddr(f[2])
	st, err1 := strconv.ParseInt(f[3], 16, 32)
	uid, err2 := strconv.Atoi(f[7])
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return procSock{}, false
	}
	return procSock{local: local, remote: remote, state: int(st), uid: uid}, true
}

func parseProcAddr(s string) (net.TCPAddr, bool) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok || (len(ipHex) != 8 && len(ipHex) != 32) {
		return net.TCPAddr{}, false
	}
	raw, err := hex.DecodeString(ipHex)
	port, perr := strconv.ParseUint(portHex, 16, 16)
	if err != nil || perr != nil {
		return net.TCPAddr{}, false
	}
	// Each 32-bit word was printed as a number in host order.
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return net.TCPAddr{IP: ip, Port: int(port)}, true
}
