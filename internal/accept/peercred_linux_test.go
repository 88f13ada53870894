// SPDX-License-Identifier: Apache-2.0

package accept

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestPeerOf: the kernel tells who connected: this process's pid, uid, gid
// and executable; a connection that is not a unix socket tells nothing.
func TestPeerOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want := Peer{PID: os.Getpid(), UID: os.Geteuid(), GID: os.Getegid(), Exe: exe}
	if got := PeerOf(server); got != want {
		t.Errorf("PeerOf = %+v, want %+v", got, want)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := PeerOf(a); got != Unknown {
		t.Errorf("PeerOf of a pipe = %+v, want Unknown", got)
	}
}
