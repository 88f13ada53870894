// SPDX-License-Identifier: Apache-2.0

// Package fakenode makes the state of a busy node (pods and containers with
// realistic labels, annotations, mounts and resources) for tests and
// benchmarks of synchronization.
package fakenode

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/api"
)

// Node makes pods pods with perPod containers each.
func Node(pods, perPod int) ([]*api.PodSandbox, []*api.Container) {
	ps := make([]*api.PodSandbox, 0, pods)
	cs := make([]*api.Container, 0, pods*perPod)
	for i := 0; i < pods; i++ {
		pod := &api.PodSandbox{
			Id:        fmt.Sprintf("%064x", i),
			Name:      fmt.Sprintf("workload-%d-7d9f8c6b5-x%04d", i/10, i),
			Uid:       fmt.Sprintf("1b4e28ba-2fa1-11d2-883f-%012d", i),
			Namespace: fmt.Sprintf("team-%d", i%40),
			Labels: map[string]string{
				"app.kubernetes.io/name": fmt.Sprintf("workload-%d", i/10), "app.kubernetes.io/part-of": "shop",
				"pod-template-hash": "7d9f8c6b5", "tier": "backend", "version": "v1.27.3",
			},
			Annotations: map[string]string{
				"kubernetes.io/config.seen":   "2026-11-22T01:02:03.456789012Z",
				"kubernetes.io/config.source": "api",
				"prometheus.io/scrape":        "true", "prometheus.io/port": "9090",
				"kubectl.kubernetes.io/last-applied-configuration": fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"workload-%d","namespace":"team-%d"},"spec":{"containers":[{"image":"registry.example.com/shop/backend:v1.27.3","name":"app","resources":{"limits":{"cpu":"2","memory":"4Gi"}}}]}}`, i, i%40),
			},
			RuntimeHandler: "runc",
			Ips:            []string{fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)},
			State:          api.PodSandboxState_POD_SANDBOX_READY,
			Linux: &api.LinuxPodSandbox{
				CgroupParent: fmt.Sprintf("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%d.slice", i),
				PodResources: resources(i),
			},
		}
		ps = append(ps, pod)
		for j := 0; j < perPod; j++ {
			cs = append(cs, bigContainer(pod, i, j))
		}
	}
	return ps, cs
}

func bigContainer(pod *api.PodSandbox, i, j int) *api.Container {
	return &api.Container{
		Id:           fmt.Sprintf("%056x%08x", i, j),
		PodSandboxId: pod.GetId(),
		Name:         fmt.Sprintf("container-%d", j),
		State:        api.ContainerState_CONTAINER_RUNNING,
		Labels:       map[string]string{"io.kubernetes.container.name": fmt.Sprintf("container-%d", j), "io.kubernetes.pod.name": pod.GetName()},
		Annotations: map[string]string{
			"io.kubernetes.container.hash": fmt.Sprintf("%08x", i*31+j), "io.kubernetes.container.restartCount": "0",
			"io.kubernetes.container.terminationMessagePath":   "/dev/termination-log",
			"io.kubernetes.container.terminationMessagePolicy": "File",
			"io.kubernetes.container.ports":                    `[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090,"protocol":"TCP"}]`,
			"io.kubernetes.container.preStopHandler":           `{"exec":{"command":["/bin/sh","-c","sleep 5 && /usr/local/bin/server --drain"]}}`,
		},
		Args: []string{"/usr/local/bin/server", "--port=8080", "--log-level=info", "--config=/etc/app/config.yaml"},
		Env: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME=" + pod.GetName(),
			"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443", "APP_MODE=production",
			"KUBERNETES_PORT=tcp://10.96.0.1:443", "KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443",
			"KUBERNETES_PORT_443_TCP_PROTO=tcp", "KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1",
			"SHOP_BACKEND_SERVICE_HOST=10.96.12.34", "SHOP_BACKEND_SERVICE_PORT=8080",
			"JAVA_TOOL_OPTIONS=-XX:MaxRAMPercentage=75 -XX:+UseG1GC -Dfile.encoding=UTF-8"},
		Mounts: []*api.Mount{
			{Destination: "/etc/hosts", Type: "bind", Source: "/var/lib/kubelet/pods/" + pod.GetUid() + "/etc-hosts", Options: []string{"rbind", "rprivate", "rw"}},
			{Destination: "/dev/termination-log", Type: "bind", Source: "/var/lib/kubelet/pods/" + pod.GetUid() + "/containers/app/0", Options: []string{"rbind", "rprivate", "rw"}},
			{Destination: "/etc/app", Type: "bind", Source: "/var/lib/kubelet/pods/" + pod.GetUid() + "/volumes/kubernetes.io~configmap/app-config", Options: []string{"rbind", "rprivate", "ro"}},
			{Destination: "/var/run/secrets/kubernetes.io/serviceaccount", Type: "bind", Source: "/var/lib/kubelet/pods/" + pod.GetUid() + "/volumes/kubernetes.io~projected/kube-api-access", Options: []string{"rbind", "rprivate", "ro"}},
		},
		Linux: &api.LinuxContainer{
			Resources:   resources(i + j),
			CgroupsPath: fmt.Sprintf("kubepods-burstable-pod%d.slice:cri-containerd:%d", i, j),
			Namespaces: []*api.LinuxNamespace{
				{Type: "pid"}, {Type: "ipc", Path: "/proc/1/ns/ipc"}, {Type: "uts", Path: "/proc/1/ns/uts"},
				{Type: "mount"}, {Type: "network", Path: "/var/run/netns/cni-" + pod.GetUid()},
			},
			OomScoreAdj: &api.OptionalInt{Value: 936},
		},
		Pid:       uint32(10000 + i*8 + j),
		CreatedAt: 1763773323000000000 + int64(i),
		StartedAt: 1763773324000000000 + int64(i),
		Image:     &api.Image{Name: "registry.example.com/shop/backend:v1.27.3", Digest: "sha256:" + fmt.Sprintf("%064x", j)},
	}
}

func resources(i int) *api.LinuxResources {
	return &api.LinuxResources{
		Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 4 << 30}, Swap: &api.OptionalInt64{Value: 4 << 30}},
		Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 2048}, Quota: &api.OptionalInt64{Value: 200000},
			Period: &api.OptionalUInt64{Value: 100000}, Cpus: fmt.Sprintf("%d-%d", i%32, i%32+1), Mems: "0"},
		Unified: map[string]string{"memory.high": "3865470566", "memory.oom.group": "1"},
	}
}

// Size is the encoded size of the state.
func Size(pods []*api.PodSandbox, ctrs []*api.Container) int {
	n := 0
	for _, p := range pods {
		n += proto.Size(p)
	}
	for _, c := range ctrs {
		n += proto.Size(c)
	}
	return n
}
