// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	nri "github.com/nrikit/nrikit/adaptation"
)

// portedGlue is a runtime's NRI glue as containerd and CRI-O write it
// against the reference: one mutex held across every call into NRI and
// taken again in the sync and update callbacks, and only adaptation's names.
type portedGlue struct {
	sync.Mutex
	nri  *nri.Adaptation
	pods map[string]*nri.PodSandbox
}

func (g *portedGlue) syncPlugin(ctx context.Context, cb nri.SyncCB) error {
	g.Lock()
	defer g.Unlock()
	var pods []*nri.PodSandbox
	for _, p := range g.pods {
		pods = append(pods, p)
	}
	_, err := cb(ctx, pods, nil)
	return err
}

func (g *portedGlue) updateFromPlugin(_ context.Context, _ []*nri.ContainerUpdate) ([]*nri.ContainerUpdate, error) {
	g.Lock()
	defer g.Unlock()
	return nil, nil
}

func (g *portedGlue) runPodSandbox(ctx context.Context, pod *nri.PodSandbox) error {
	g.Lock()
	defer g.Unlock()
	g.pods[pod.GetId()] = pod
	return g.nri.RunPodSandbox(ctx, &nri.RunPodSandboxRequest{Pod: pod})
}

// A glue written against the reference's pkg/adaptation compiles against
// nrikit's once the import moves: the request, data-model and constant
// names are the reference's.
func Example_portedGlue() {
	dir, err := os.MkdirTemp("", "nrk")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	g := &portedGlue{pods: map[string]*nri.PodSandbox{}}
	g.nri, err = nri.New("myruntime", "v1.0.0", g.syncPlugin, g.updateFromPlugin,
		nri.WithPluginPath(filepath.Join(dir, "plugins")),
		nri.WithDisabledExternalConnections(),
		nri.WithRequestTimeout(nri.DefaultPluginRequestTimeout),
	)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := g.nri.Start(ctx); err != nil {
		panic(err)
	}
	defer g.nri.Stop(ctx)

	pod := &nri.PodSandbox{Id: "pod0", Name: "demo", Namespace: "default"}
	fmt.Println(g.runPodSandbox(ctx, pod), nri.ContainerState_CONTAINER_RUNNING)
	// Output: <nil> CONTAINER_RUNNING
}
