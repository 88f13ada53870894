// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// The plugin_readiness table: pods wait up to 10 s for the required plugin
// "10-policy", except in kube-system, where it runs itself.
func ExampleConfig_pluginReadiness() {
	fromFile := []byte(`{
		"disable_connections": true,
		"plugin_path": "", "disable_plugin_path": true,
		"default_validator": {"enable": true, "required_plugins": ["10-policy"]},
		"plugin_readiness": {"wait": "10s", "on_timeout": "fail", "exempt_namespaces": ["kube-system"]}
	}`)
	var cfg adaptation.Config
	if err := json.Unmarshal(fromFile, &cfg); err != nil {
		panic(err)
	}
	a, err := adaptation.New("my-runtime", "v1.0.0", nil, nil, append(cfg.Options(), quietLogger())...)
	fmt.Println(a != nil, err)

	cfg.PluginReadiness.OnTimeout = "wait"
	_, err = adaptation.New("my-runtime", "v1.0.0", nil, nil, cfg.Options()...)
	fmt.Println(err)
	// Output:
	// true <nil>
	// nrikit: plugin_readiness.on_timeout: "wait" is neither "fail" nor "proceed"
}

// readyRuntime is a runtime's RunPodSandbox with the readiness gate: it
// waits before it takes its NRI lock, which its SyncFn takes too.
type readyRuntime struct {
	nri *adaptation.Adaptation
	mu  sync.Mutex // the runtime's NRI lock
}

func (r *readyRuntime) runPodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	if err := r.nri.AwaitPlugins(ctx, pod); err != nil {
		return err // ErrPluginsNotReady: the pod's required plugins are missing
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nri.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod})
}

// A runtime calls AwaitPlugins first in its RunPodSandbox, and shows
// Readiness as a CRI status condition.
func ExampleAdaptation_AwaitPlugins() {
	cfg := adaptation.Config{
		DisableConnections: true, DisablePluginPath: true,
		DefaultValidator: &validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{"10-policy"}},
		PluginReadiness: &adaptation.ReadinessConfig{
			Wait:             adaptation.Duration(200 * time.Millisecond),
			ExemptNamespaces: []string{"kube-system"},
		},
	}
	a, err := adaptation.New("my-runtime", "v1.0.0", nil, nil, append(cfg.Options(), quietLogger())...)
	if err != nil {
		panic(err)
	}
	if err := a.Start(context.Background()); err != nil {
		panic(err)
	}
	defer a.Stop(context.Background())
	r := &readyRuntime{nri: a}

	pod := &api.PodSandbox{Id: "p1", Name: "web", Namespace: "default"}
	err = r.runPodSandbox(context.Background(), pod)
	fmt.Println(err != nil)

	pod = &api.PodSandbox{Id: "p2", Name: "policy", Namespace: "kube-system"}
	fmt.Println(r.runPodSandbox(context.Background(), pod))

	c := a.Readiness().Condition()
	fmt.Println(c.Type, c.Status, c.Reason)
	fmt.Println(c.Message)
	// Output:
	// true
	// <nil>
	// NRIPluginsReady false NRIRequiredPluginsNotActive
	// "10-policy" never connected
}
