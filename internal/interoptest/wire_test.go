// SPDX-License-Identifier: Apache-2.0

package interoptest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/interoptest"
)

// The interop proof with a real peer: a plugin built on the reference stub
// v0.12.5 (testdata/interop/modern) against a runtime side made only of our
// mux and our generated ttrpc services. No adaptation code is involved, so a
// failure here is in the wire layer: mux framing, ttrpc service and method
// names, message field numbers.

const (
	runtimeName    = "nrikit-interoptest"
	runtimeVersion = "v0.0.0-test"
	stubVersion    = "v0.12.5" // of testdata/interop/modern

	syncPods       = 5000
	syncContainers = 20000
	// syncMessageBudget is the most encoded SynchronizeRequest bytes per
	// message: the adaptation's bound, 999 KiB, well under the 4 MiB ttrpc
	// limit with its header and envelope.
	syncMessageBudget = 999 << 10
	// syncTimeout bounds all messages together, with -race on a loaded machine.
	syncTimeout = 2 * time.Minute
)

// TestModernPluginOnOurWire registers a plugin subscribed to three events,
// configures it, synchronizes 5,000 pods and 20,000 containers in split
// messages, runs one CreateContainer, and closes.
func TestModernPluginOnOurWire(t *testing.T) {
	t.Parallel()
	start := time.Now()
	p := startPeer(t, "-events", "runpodsandbox,createcontainer,stopcontainer")
	t.Logf("go build of the modern plugin took %v in this process; connected %v after asking for it",
		interoptest.BuildDuration("modern").Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	checkRegistration(t, p)
	want := api.MaskOf(api.Event_RUN_POD_SANDBOX, api.Event_CREATE_CONTAINER, api.Event_STOP_CONTAINER)
	checkConfigure(t, p, want)

	start = time.Now()
	pods, ctrs := clusterState(syncPods, syncContainers/syncPods)
	chunks := splitSync(t, pods, ctrs)
	if len(chunks) < 2 {
		t.Fatalf("state fits in %d message; the test wants a split sync", len(chunks))
	}
	t.Logf("generated and split the state in %v", time.Since(start).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
	defer cancel()
	start = time.Now()
	for i, req := range chunks {
		resp, err := p.plugin.Synchronize(ctx, req)
		if err != nil {
			t.Fatalf("Synchronize message %d of %d (%d bytes, %d pods, %d containers): %v\n%s",
				i+1, len(chunks), proto.Size(req), len(req.GetPods()), len(req.GetContainers()), err, p.output)
		}
		if resp.GetMore() != req.GetMore() || len(resp.GetUpdate()) != 0 {
			t.Fatalf("Synchronize message %d of %d (more=%v): reply more=%v with %d updates, want more=%v and none",
				i+1, len(chunks), req.GetMore(), resp.GetMore(), len(resp.GetUpdate()), req.GetMore())
		}
		if len(resp.ProtoReflect().GetUnknown()) != 0 {
			t.Errorf("SynchronizeResponse %d has fields our api does not know", i+1)
		}
	}
	t.Logf("synchronized %d pods and %d containers in %d messages in %v", len(pods), len(ctrs), len(chunks),
		time.Since(start).Round(time.Millisecond))

	start = time.Now()
	rec := p.event("Synchronize")
	if rec.RPC != "Synchronize" || rec.Pods == nil || *rec.Pods != syncPods || rec.Containers == nil || *rec.Containers != syncContainers {
		t.Errorf("Synchronize record: rpc %q pods %v containers %v, want Synchronize, %d, %d",
			rec.RPC, deref(rec.Pods), deref(rec.Containers), syncPods, syncContainers)
	}
	if want := ids(pods); !slices.Equal(rec.PodIDs, want) {
		t.Errorf("Synchronize record: pod IDs differ from the %d sent (got %d)", len(want), len(rec.PodIDs))
	}
	if want := ids(ctrs); !slices.Equal(rec.ContainerIDs, want) {
		t.Errorf("Synchronize record: container IDs differ from the %d sent (got %d)", len(want), len(rec.ContainerIDs))
	}

	t.Logf("checked the Synchronize log record in %v", time.Since(start).Round(time.Millisecond))

	pod, ctr := pods[1234], ctrs[4321]
	resp, err := p.plugin.CreateContainer(p.ctx(), &api.CreateContainerRequest{Pod: pod, Container: ctr})
	if err != nil {
		t.Fatalf("CreateContainer: %v\n%s", err, p.output)
	}
	if got := resp.GetAdjust().GetAnnotations(); len(got) != 1 || got["interop.nrikit.io/interop"] != stubVersion {
		t.Errorf("CreateContainer adjustment annotations = %v, want interop.nrikit.io/interop=%s", got, stubVersion)
	}
	env := resp.GetAdjust().GetEnv()
	if len(env) != 1 || env[0].GetKey() != "NRIKIT_INTEROP_INTEROP" || env[0].GetValue() != "1" {
		t.Errorf("CreateContainer adjustment env = %v, want NRIKIT_INTEROP_INTEROP=1", env)
	}
	if len(resp.GetUpdate()) != 0 || len(resp.GetEvict()) != 0 {
		t.Errorf("CreateContainer: %d updates, %d evictions, want none", len(resp.GetUpdate()), len(resp.GetEvict()))
	}
	if rec := p.event("CreateContainer"); rec.RPC != "CreateContainer" || rec.Pod != pod.GetId() || rec.Container != ctr.GetId() {
		t.Errorf("CreateContainer record: rpc %q pod %q container %q, want CreateContainer, %q, %q",
			rec.RPC, rec.Pod, rec.Container, pod.GetId(), ctr.GetId())
	}

	start = time.Now()
	p.close(true)
	t.Logf("closed; the plugin exited in %v", time.Since(start).Round(time.Millisecond))
}

// TestModernPluginAllEvents checks the default subscription (all events,
// 0x3FFF) and that the v0.12.5 failure policy decodes.
func TestModernPluginAllEvents(t *testing.T) {
	t.Parallel()
	p := startPeer(t, "-failure_policy", "fail_request,keep_connected")
	checkRegistration(t, p)
	resp := checkConfigure(t, p, 0x3FFF)
	if api.EventMask(resp.GetEvents()) != api.AllEvents {
		t.Errorf("mask 0x%x is not api.AllEvents 0x%x", resp.GetEvents(), api.AllEvents)
	}
	if fp := resp.GetFailurePolicy(); !fp.GetFailRequest() || !fp.GetKeepConnected() {
		t.Errorf("ConfigureResponse.failure_policy = %v, want fail_request and keep_connected", fp)
	}
	if rec := p.event("Configure"); rec.FailurePolicy != "fail_request,keep_connected" {
		t.Errorf("Configure record: failure_policy %q", rec.FailurePolicy)
	}

	// An empty sync still takes one round trip.
	resp2, err := p.plugin.Synchronize(p.ctx(), &api.SynchronizeRequest{})
	if err != nil || resp2.GetMore() || len(resp2.GetUpdate()) != 0 {
		t.Fatalf("empty Synchronize: %v, %v", resp2, err)
	}
	if rec := p.event("Synchronize"); deref(rec.Pods) != 0 || deref(rec.Containers) != 0 {
		t.Errorf("Synchronize record: pods %v containers %v, want 0, 0", deref(rec.Pods), deref(rec.Containers))
	}
	p.close(true)
}

// checkRegistration waits for RegisterPlugin and checks that the plugin's
// identity and NRI version arrived intact, with nothing our type does not
// know.
func checkRegistration(t *testing.T, p *peer) {
	t.Helper()
	req := p.registered()
	want := &api.RegisterPluginRequest{PluginName: "interop", PluginIdx: "42", NRIVersion: stubVersion}
	if !proto.Equal(req, want) {
		t.Fatalf("RegisterPlugin = %v, want %v", req, want)
	}
	if len(req.ProtoReflect().GetUnknown()) != 0 {
		t.Errorf("RegisterPluginRequest has fields our api does not know: %x", req.ProtoReflect().GetUnknown())
	}
}

// checkConfigure sends Configure and checks the mask in the reply and the
// plugin's log.
func checkConfigure(t *testing.T, p *peer, want api.EventMask) *api.ConfigureResponse {
	t.Helper()
	resp, err := p.plugin.Configure(p.ctx(), &api.ConfigureRequest{
		RuntimeName:         runtimeName,
		RuntimeVersion:      runtimeVersion,
		RegistrationTimeout: 5000,
		RequestTimeout:      2000,
		NRIVersion:          stubVersion,
	})
	if err != nil {
		t.Fatalf("Configure: %v\n%s", err, p.output)
	}
	if got := api.EventMask(resp.GetEvents()); got != want {
		t.Errorf("Configure mask = 0x%x (%v), want 0x%x (%v)", uint32(got), got, uint32(want), want)
	}
	if len(resp.ProtoReflect().GetUnknown()) != 0 {
		t.Errorf("ConfigureResponse has fields our api does not know: %x", resp.ProtoReflect().GetUnknown())
	}
	rec := p.event("Configure")
	if rec.RPC != "Configure" || rec.Runtime != runtimeName+"/"+runtimeVersion || rec.Mask != int32(want) {
		t.Errorf("Configure record: rpc %q runtime %q mask 0x%x, want Configure, %s/%s, 0x%x",
			rec.RPC, rec.Runtime, rec.Mask, runtimeName, runtimeVersion, uint32(want))
	}
	return resp
}

// splitSync cuts the state into SynchronizeRequests of at most
// syncMessageBudget encoded bytes (so each is well under the 4 MiB ttrpc
// limit), in order, pods first, more=true on all but the last.
func splitSync(t *testing.T, pods []*api.PodSandbox, ctrs []*api.Container) []*api.SynchronizeRequest {
	t.Helper()
	const moreSize = 2 // tag and value of more=true
	var (
		chunks []*api.SynchronizeRequest
		cur    = &api.SynchronizeRequest{}
		size   = moreSize
	)
	// room makes room for an element of n encoded bytes in the current chunk.
	room := func(n int) {
		n += 1 + protowire.SizeVarint(uint64(n)) // tag and length
		if size+n > syncMessageBudget && size > moreSize {
			chunks = append(chunks, cur)
			cur, size = &api.SynchronizeRequest{}, moreSize
		}
		size += n
	}
	for _, pod := range pods {
		room(proto.Size(pod))
		cur.Pods = append(cur.Pods, pod)
	}
	for _, ctr := range ctrs {
		room(proto.Size(ctr))
		cur.Containers = append(cur.Containers, ctr)
	}
	chunks = append(chunks, cur)
	for i, c := range chunks {
		c.More = i < len(chunks)-1
		if n := proto.Size(c); n > syncMessageBudget {
			t.Fatalf("sync message %d is %d bytes, over the budget of %d", i+1, n, syncMessageBudget)
		}
	}
	return chunks
}

// clusterState returns pods and containers shaped like a busy node's:
// sha256 IDs, Kubernetes names, labels and annotations, cgroup paths,
// mounts, resources.
func clusterState(nPods, ctrsPerPod int) ([]*api.PodSandbox, []*api.Container) {
	namespaces := []string{"default", "kube-system", "monitoring", "payments", "search-frontend"}
	apps := []string{"nginx", "redis", "api-gateway", "checkout", "prometheus-node-exporter", "fluent-bit"}
	images := []string{"docker.io/library/nginx:1.27", "docker.io/library/redis:7.2", "registry.example.com/team/app:v2.14.3"}
	pods := make([]*api.PodSandbox, 0, nPods)
	ctrs := make([]*api.Container, 0, nPods*ctrsPerPod)
	created := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	for i := range nPods {
		id := hexID("pod", i)
		uid := fmt.Sprintf("%s-%s-%s-%s-%s", id[0:8], id[8:12], id[12:16], id[16:20], id[20:32])
		ns, app := namespaces[i%len(namespaces)], apps[i%len(apps)]
		hash := id[32:42]
		name := fmt.Sprintf("%s-%s-%s", app, hash, id[42:47])
		slice := fmt.Sprintf("kubepods-burstable-pod%s.slice", uid)
		pod := &api.PodSandbox{
			Id:        id,
			Name:      name,
			Uid:       uid,
			Namespace: ns,
			Labels: map[string]string{
				"app.kubernetes.io/name":       app,
				"app.kubernetes.io/instance":   app + "-" + ns,
				"pod-template-hash":            hash,
				"io.kubernetes.pod.name":       name,
				"io.kubernetes.pod.namespace":  ns,
				"io.kubernetes.pod.uid":        uid,
				"app.kubernetes.io/managed-by": "Helm",
			},
			Annotations: map[string]string{
				"kubernetes.io/config.seen":                      created.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano),
				"kubernetes.io/config.source":                    "api",
				"prometheus.io/scrape":                           "true",
				"prometheus.io/port":                             "9102",
				"cluster-autoscaler.kubernetes.io/safe-to-evict": "true",
			},
			RuntimeHandler: "runc",
			Linux: &api.LinuxPodSandbox{
				CgroupParent: slice,
				CgroupsPath:  slice + ":cri-containerd:" + id,
				Namespaces: []*api.LinuxNamespace{
					{Type: "network", Path: "/var/run/netns/cni-" + uid},
					{Type: "ipc"}, {Type: "uts"}, {Type: "mount"},
				},
			},
			Pid:   uint32(100000 + i),
			Ips:   []string{fmt.Sprintf("10.244.%d.%d", i/250, i%250+2), fmt.Sprintf("fd00:10:244::%x", i+2)},
			State: api.PodSandboxState_POD_SANDBOX_READY, // our addition: the stub must skip it
		}
		pods = append(pods, pod)
		for j := range ctrsPerPod {
			cid := hexID("ctr", i*ctrsPerPod+j)
			cname := fmt.Sprintf("%s-%d", app, j)
			if j == 0 {
				cname = app
			}
			ctrs = append(ctrs, &api.Container{
				Id:           cid,
				PodSandboxId: id,
				Name:         cname,
				State:        api.ContainerState_CONTAINER_RUNNING,
				Labels: map[string]string{
					"io.kubernetes.container.name": cname,
					"io.kubernetes.pod.name":       name,
					"io.kubernetes.pod.namespace":  ns,
					"io.kubernetes.pod.uid":        uid,
				},
				Annotations: map[string]string{
					"io.kubernetes.container.hash":                     cid[:8],
					"io.kubernetes.container.restartCount":             "0",
					"io.kubernetes.container.terminationMessagePath":   "/dev/termination-log",
					"io.kubernetes.container.terminationMessagePolicy": "File",
					"io.kubernetes.pod.terminationGracePeriod":         "30",
				},
				Args: []string{"/usr/local/bin/" + app, "--config=/etc/" + app + "/config.yaml", "--log-level=info"},
				Env: []string{
					"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
					"HOSTNAME=" + name,
					"KUBERNETES_SERVICE_HOST=10.96.0.1",
					"KUBERNETES_SERVICE_PORT=443",
				},
				Mounts: []*api.Mount{
					{
						Destination: "/var/run/secrets/kubernetes.io/serviceaccount",
						Type:        "bind",
						Source:      "/var/lib/kubelet/pods/" + uid + "/volumes/kubernetes.io~projected/kube-api-access-" + id[:5],
						Options:     []string{"rbind", "rprivate", "ro"},
					},
					{
						Destination: "/etc/hosts",
						Type:        "bind",
						Source:      "/var/lib/kubelet/pods/" + uid + "/etc-hosts",
						Options:     []string{"rbind", "rprivate", "rw"},
					},
				},
				Linux: &api.LinuxContainer{
					Resources: &api.LinuxResources{
						Cpu: &api.LinuxCPU{
							Shares: &api.OptionalUInt64{Value: 102},
							Quota:  &api.OptionalInt64{Value: 50000},
							Period: &api.OptionalUInt64{Value: 100000},
						},
						Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 256 << 20}},
					},
					CgroupsPath: slice + ":cri-containerd:" + cid,
				},
				Pid:       uint32(200000 + i*ctrsPerPod + j),
				CreatedAt: created.Add(time.Duration(i) * time.Second).UnixNano(),
				StartedAt: created.Add(time.Duration(i)*time.Second + time.Second).UnixNano(),
				Image:     &api.Image{Name: images[(i+j)%len(images)]},
			})
		}
	}
	return pods, ctrs
}

func hexID(kind string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s-%d", kind, i))
	return hex.EncodeToString(sum[:])
}

func ids[T interface{ GetId() string }](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetId()
	}
	return out
}

func deref(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}
