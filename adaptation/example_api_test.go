// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
)

// quietLogger keeps the examples' output to what they print.
func quietLogger() adaptation.Option {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return adaptation.WithLogger(logrus.NewEntry(l))
}

// noSync is a runtime with no pods or containers yet.
func noSync(ctx context.Context, cb adaptation.SyncCB) error {
	_, err := cb(ctx, nil, nil)
	return err
}

// New takes the runtime's name and version, its two callbacks and options;
// Start then listens on the socket for external plugins.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "nrikit-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	a, err := adaptation.New("myruntime", "v1.2.3", noSync, nil,
		adaptation.WithSocketPath(filepath.Join(dir, "nri.sock")),
		adaptation.WithPluginPath(""), // no pre-installed plugins
		adaptation.WithRequestTimeout(2*time.Second),
		quietLogger(),
	)
	if err != nil {
		panic(err)
	}
	if err := a.Start(context.Background()); err != nil {
		panic(err)
	}
	_, err = os.Stat(filepath.Join(dir, "nri.sock"))
	fmt.Println("socket ready:", err == nil)
	fmt.Println("plugins:", len(a.Plugins()))
	fmt.Println(a.Stop(context.Background()))

	_, err = adaptation.New("myruntime", "v1.2.3", noSync, nil, adaptation.WithSocketPath(""))
	fmt.Println(err != nil) // use WithDisabledExternalConnections instead
	// Output:
	// socket ready: true
	// plugins: 0
	// <nil>
	// true
}

// shutdownRecorder is an in-process plugin that tells why it was shut down.
type shutdownRecorder struct {
	api.PluginBase
	reason chan string
}

func (p *shutdownRecorder) Shutdown(_ context.Context, req *api.ShutdownRequest) (*api.Empty, error) {
	p.reason <- req.GetReason()
	return &api.Empty{}, nil
}

// Stop may be called holding the runtime's own lock, with a deadline: it
// returns by then, with ErrStopAbandoned if a plugin was still joining
// inside SyncFn (which waits for that lock).
func ExampleAdaptation_Stop() {
	var mu sync.Mutex // the runtime's lock, also taken by its SyncFn
	syncFn := func(ctx context.Context, cb adaptation.SyncCB) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := cb(ctx, nil, nil)
		return err
	}
	plugin := &shutdownRecorder{reason: make(chan string, 1)}
	a, err := adaptation.New("myruntime", "v1.2.3", syncFn, nil,
		adaptation.WithDisabledExternalConnections(),
		adaptation.WithPluginPath(""),
		adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "10", Name: "recorder", Handler: plugin}),
		quietLogger(),
	)
	if err != nil {
		panic(err)
	}
	if err := a.Start(context.Background()); err != nil {
		panic(err)
	}

	mu.Lock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err = a.Stop(ctx)
	cancel()
	mu.Unlock()
	switch {
	case errors.Is(err, adaptation.ErrStopAbandoned):
		fmt.Println("a plugin was still joining; it is dropped once SyncFn returns")
	case err != nil:
		fmt.Println("stop:", err)
	default:
		fmt.Println("stopped")
	}
	fmt.Println("plugin told:", <-plugin.reason)
	// Output:
	// stopped
	// plugin told: runtime shutting down
}

// annotator is an in-process plugin: it embeds api.PluginBase and
// implements only the event it takes, using the config it was given.
type annotator struct {
	api.PluginBase
	value string
}

func (p *annotator) Configure(ctx context.Context, req *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	p.value = req.GetConfig()
	return p.PluginBase.Configure(ctx, req)
}

func (p *annotator) CreateContainer(context.Context, *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	adj := &api.ContainerAdjustment{}
	adj.AddAnnotation("example.com/team", p.value)
	return &api.CreateContainerResponse{Adjust: adj}, nil
}

// A BuiltinPlugin runs in the runtime's process, ordered with the other
// plugins by index and name, under the same timeouts and policies.
func ExampleBuiltinPlugin() {
	a, err := adaptation.New("myruntime", "v1.2.3", noSync, nil,
		adaptation.WithDisabledExternalConnections(),
		adaptation.WithPluginPath(""),
		adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{
			Index:   "10",
			Name:    "annotator",
			Config:  "storage",
			Handler: &annotator{PluginBase: api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}},
		}),
		quietLogger(),
	)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		panic(err)
	}
	defer a.Stop(ctx)

	for _, p := range a.Plugins() {
		fmt.Println(p.Plugin, p.Kind, p.Events)
	}
	pod := &api.PodSandbox{Id: "pod0", Name: "web", Namespace: "default"}
	ctr := &api.Container{Id: "ctr0", PodSandboxId: "pod0", Name: "app"}
	_ = a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
	rsp, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
	fmt.Println(rsp.GetAdjust().GetAnnotations()["example.com/team"], err)
	// Output:
	// 10-annotator builtin [CreateContainer]
	// storage <nil>
}

// A runtime reads Config from its own config file (its keys are the
// reference's: toml and json tags alike); zero fields keep their defaults,
// and Options turns it into options.
func ExampleConfig() {
	fromFile := []byte(`{
		"plugin_path": "",
		"disable_plugin_path": true,
		"disable_connections": true,
		"plugin_request_timeout": "3s",
		"default_failure_policy": {"keep_connected": true},
		"default_validator": {"enable": true, "required_plugins": ["10-policy"]}
	}`)
	var cfg adaptation.Config
	if err := json.Unmarshal(fromFile, &cfg); err != nil {
		panic(err)
	}
	fmt.Println(time.Duration(cfg.RequestTimeout), cfg.FailurePolicy.KeepConnected, cfg.DefaultValidator.RequiredPlugins)

	a, err := adaptation.New("myruntime", "v1.2.3", noSync, nil, append(cfg.Options(), quietLogger())...)
	fmt.Println(a != nil, err)

	// DefaultConfig writes every default out, for a runtime that prints its
	// default configuration.
	def := adaptation.DefaultConfig()
	fmt.Println(def.PluginPath, def.SocketPath, time.Duration(def.RequestTimeout))
	// Output:
	// 3s true [10-policy]
	// true <nil>
	// /opt/nri/plugins /var/run/nri/nri.sock 2s
}

// failing is an in-process plugin that refuses every container.
type failing struct{ api.PluginBase }

func (failing) CreateContainer(context.Context, *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	return nil, errors.New("no capacity left")
}

// A plugin's failure that fails an event comes as a *PluginError naming the
// plugin and the event; errors.As gets it out of the chain.
func ExamplePluginError() {
	a, err := adaptation.New("myruntime", "v1.2.3", noSync, nil,
		adaptation.WithDisabledExternalConnections(),
		adaptation.WithPluginPath(""),
		adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "20", Name: "quota",
			Handler: failing{api.PluginBase{Events: api.MaskOf(api.Event_CREATE_CONTAINER)}}}),
		quietLogger(),
	)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		panic(err)
	}
	defer a.Stop(ctx)

	pod := &api.PodSandbox{Id: "pod0", Name: "web", Namespace: "default"}
	ctr := &api.Container{Id: "ctr0", PodSandboxId: "pod0", Name: "app"}
	_ = a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
	_, err = a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})

	var pe *adaptation.PluginError
	if errors.As(err, &pe) {
		fmt.Println(pe.Plugin, pe.Op)
	}
	fmt.Println(err)
	// Output:
	// 20-quota CreateContainer
	// nrikit: plugin 20-quota: CreateContainer: no capacity left
}
