// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// BenchmarkCreateContainerFanOutRealistic is BenchmarkCreateContainerFanOut
// with a pod and container of a busy Kubernetes node (fakenode: labels,
// annotations, env, mounts, resources), whose encoding is what the
// generated encoder saves.
func BenchmarkCreateContainerFanOutRealistic(b *testing.B) {
	e := newEnv(b, adaptation.WithLogger(productionLogger()))
	for _, name := range []string{"10-a", "20-b", "30-c"} {
		e.preinstall(name[:2], name[3:], testplugin.Config{
			Annotations: map[string]string{"bench.nrikit.io/" + name: "1"},
			Env:         map[string]string{"BENCH_" + name[3:]: "1"},
		})
	}
	e.start()
	ctx := context.Background()
	pods, ctrs := fakenode.Node(1, 1)
	pod, template := pods[0], ctrs[0]
	if err := e.a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ctr := proto.Clone(template).(*api.Container)
		ctr.Id, ctr.State = fmt.Sprintf("c%d", i), api.ContainerState_CONTAINER_CREATED
		b.StartTimer()
		if _, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
			b.Fatal(err)
		}
	}
}
