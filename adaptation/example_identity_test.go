// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	nri "github.com/nrikit/nrikit/adaptation"
)

// containerIDPattern is the last element of a container's cgroup path,
// under the systemd driver or cgroupfs, as containerd (cri-containerd-),
// CRI-O (crio-) and Docker (docker-) name it.
var containerIDPattern = regexp.MustCompile(`^(?:cri-containerd-|crio-|docker-)?([0-9a-f]{64})(?:\.scope)?$`)

// containerOfCgroup is the ID of the container whose cgroup a process is
// in, from its /proc/<pid>/cgroup; "" for a process in no container.
func containerOfCgroup(cgroup []byte) string {
	for _, line := range bytes.Split(cgroup, []byte("\n")) {
		// "0::/kubepods.slice/.../cri-containerd-<id>.scope" (cgroup v2), or
		// "N:controllers:/kubepods/burstable/pod<uid>/<id>" (v1).
		fields := strings.SplitN(string(line), ":", 3)
		if len(fields) != 3 {
			continue
		}
		if m := containerIDPattern.FindStringSubmatch(path.Base(fields[2])); m != nil {
			return m[1]
		}
	}
	return ""
}

// runtimeStore is what a runtime keeps of its containers: here, a
// container's pod as namespace and name. containerd looks the container up
// in its container store and its sandbox in the sandbox store; CRI-O in
// its ContainerServer (docs/porting.md shows both).
type runtimeStore map[string]nri.PeerIdentity

// podOfPID is a runtime's WithPeerIdentity: the process's cgroup names its
// container, the runtime's store its pod.
func (s runtimeStore) podOfPID(_ context.Context, pid int) (nri.PeerIdentity, error) {
	cgroup, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return nri.PeerIdentity{}, err
	}
	id := containerOfCgroup(cgroup)
	if id == "" {
		return nri.PeerIdentity{}, nil // not in a container: in no pod
	}
	pod, ok := s[id]
	if !ok {
		return nri.PeerIdentity{}, errors.New("container " + id + " is not the runtime's")
	}
	return pod, nil
}

// A runtime tells nrikit the pod of a process that connects, for names
// bound to pods.
func ExampleWithPeerIdentity() {
	store := runtimeStore{}
	a, err := nri.New("containerd", "v2", nil, nil,
		nri.WithDisabledExternalConnections(),
		nri.WithPeerIdentity(store.podOfPID),
		nri.WithPluginSettings("10-dranet", nri.PluginSettings{
			Peer: &nri.PeerRules{Pods: []string{"kube-system/dranet-*"}},
		}))
	fmt.Println(a != nil, err)
	// Output: true <nil>
}

// TestContainerOfCgroup: the cgroup paths of containerd's, CRI-O's and
// Docker's containers, under systemd and cgroupfs, v1 and v2, name the
// container; a process outside one is in none.
func TestContainerOfCgroup(t *testing.T) {
	id := strings.Repeat("0123456789abcdef", 4)
	for _, tc := range []struct{ cgroup, want string }{
		{"0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1a2b.slice/cri-containerd-" + id + ".scope\n", id},
		{"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b.slice/crio-" + id + ".scope\n", id},
		{"12:pids:/kubepods/burstable/pod1a2b/" + id + "\n1:name=systemd:/kubepods/burstable/pod1a2b/" + id + "\n", id},
		{"0::/kubepods/besteffort/pod1a2b/crio-" + id + "\n", id},
		{"0::/system.slice/docker-" + id + ".scope\n", id},
		{"0::/system.slice/containerd.service\n", ""},
		{"0::/user.slice/user-1000.slice/session-2.scope\n", ""},
		{"0::/kubepods.slice/crio-conmon-" + id + ".scope\n", ""},
	} {
		if got := containerOfCgroup([]byte(tc.cgroup)); got != tc.want {
			t.Errorf("containerOfCgroup(%q) = %q, want %q", tc.cgroup, got, tc.want)
		}
	}
}
