// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// statusRuntime is a runtime serving its status socket, as an operator
// finds one: the sample 20-annotator pre-installed with the operator's
// request timeout, an external 30-crasher dropped when it crashed in a
// CreateContainer, the container ctr-1 created (its record kept), and the
// readiness gate on with "gate" required but absent.
func statusRuntime(t *testing.T) (socket string) {
	t.Helper()
	dir := shortTempDir(t)
	plugins := filepath.Join(dir, "plugins")
	if err := os.Mkdir(plugins, 0o700); err != nil {
		t.Fatal(err)
	}
	annotator := samplePlugins()[1]
	conf, err := testplugin.WriteConfig(dir, annotator)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testplugin.WriteLauncher(plugins, annotator.Index, annotator.Name, conf); err != nil {
		t.Fatal(err)
	}
	changes := make(chan adaptation.PluginChange, 16)
	socket = filepath.Join(dir, "status.sock")
	cfg := adaptation.Config{
		PluginSettings:   map[string]adaptation.PluginSettings{"annotator": {RequestTimeout: adaptation.Duration(5 * time.Second)}},
		DefaultValidator: &validator.DefaultValidatorConfig{RequiredPlugins: []string{"gate"}},
		PluginReadiness:  &adaptation.ReadinessConfig{Wait: adaptation.Duration(10 * time.Second)},
	}
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	a, err := adaptation.New("containerd", "v2.2.0", nil, nil, append(cfg.Options(), adaptation.WithLogger(logrus.NewEntry(quiet)),
		adaptation.WithStatusSocket(socket), adaptation.WithPluginPath(plugins), adaptation.WithPluginConfigPath(dir),
		adaptation.WithSocketPath(filepath.Join(dir, "nri.sock")),
		adaptation.WithPluginChanges(func(c adaptation.PluginChange) { changes <- c }))...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(ctx) })

	crasher := testplugin.Config{Index: "30", Name: "crasher", SocketPath: filepath.Join(dir, "nri.sock"),
		Behaviours: map[string]testplugin.Behaviour{"CreateContainer": {Exit: 3}}}
	crasherConf, err := testplugin.WriteConfig(dir, crasher)
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := testplugin.StartExternal(ctx, crasher, crasherConf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Wait() })
	awaitChange(t, changes, "30-crasher", adaptation.PluginJoined)
	pod := &api.PodSandbox{Id: "pod-1", Name: "demo", Namespace: "default", Uid: "uid-pod-1"}
	if err := a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err == nil {
		t.Fatal("RunPodSandbox passed the readiness gate without its required plugin")
	}
	ctr := &api.Container{Id: "ctr-1", PodSandboxId: "pod-1", Name: "app", State: api.ContainerState_CONTAINER_CREATED}
	if _, err := a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr}); err != nil {
		t.Fatal(err)
	}
	awaitChange(t, changes, "30-crasher", adaptation.PluginLeft)
	return socket
}

// awaitChange waits for plugin's change of kind.
func awaitChange(t *testing.T, changes <-chan adaptation.PluginChange, plugin string, kind adaptation.ChangeKind) {
	t.Helper()
	deadline := time.After(testLimit)
	for {
		select {
		case c := <-changes:
			if c.Plugin == plugin && c.Change == kind {
				return
			}
		case <-deadline:
			t.Fatalf("%s did not become %s", plugin, kind)
		}
	}
}
