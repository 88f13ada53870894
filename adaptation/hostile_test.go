// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/fakenode"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// liar is an in-process plugin whose answers break the protocol's rules.
type liar struct {
	api.PluginService
	mask       int32
	badSync    bool
	annotation string
}

func (l *liar) Configure(context.Context, *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	return &api.ConfigureResponse{Events: l.mask}, nil
}

func (l *liar) Synchronize(_ context.Context, req *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	if l.badSync && req.GetMore() {
		return &api.SynchronizeResponse{More: false, Update: []*api.ContainerUpdate{{ContainerId: "x"}}}, nil
	}
	return &api.SynchronizeResponse{More: req.GetMore()}, nil
}

func (l *liar) CreateContainer(context.Context, *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	return &api.CreateContainerResponse{Adjust: &api.ContainerAdjustment{
		Annotations: map[string]string{"shared": l.annotation},
	}}, nil
}

func TestHostilePlugins(t *testing.T) {
	t.Run("invalid event mask", func(t *testing.T) {
		e := newEnv(t, adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "10", Name: "liar", Handler: &liar{mask: 0x10000}}))
		e.preinstall("20", "honest", testplugin.Config{})
		e.start()
		e.waitPlugins("20-honest")
		entry := e.waitLogged(logrus.Fields{"plugin": "10-liar", "phase": "configure"})[0]
		if !strings.Contains(entry.Data["error"].(string), "0x10000") {
			t.Errorf("configure failure %v does not show the bad mask", entry.Data)
		}
	})
	t.Run("ignores split synchronization", func(t *testing.T) {
		pods, ctrs := fakenode.Node(300, 5) // several MB: more than one message
		e := newEnv(t, adaptation.WithBuiltinPlugins(adaptation.BuiltinPlugin{Index: "10", Name: "liar", Handler: &liar{badSync: true}}))
		e.store.set(pods, ctrs)
		e.start()
		entry := e.waitLogged(logrus.Fields{"plugin": "10-liar", "phase": "synchronize"})[0]
		if !strings.Contains(entry.Data["error"].(string), "does not handle split sync requests") {
			t.Errorf("sync failure %v", entry.Data)
		}
	})
	t.Run("conflicting adjustments", func(t *testing.T) {
		create := int32(api.MaskOf(api.Event_CREATE_CONTAINER))
		e := newEnv(t, adaptation.WithBuiltinPlugins(
			adaptation.BuiltinPlugin{Index: "10", Name: "first", Handler: &liar{mask: create, annotation: "a"}},
			adaptation.BuiltinPlugin{Index: "20", Name: "second", Handler: &liar{mask: create, annotation: "b"}},
		))
		e.start()
		pod := testPod("pc")
		_, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("c", pod)})
		if !errors.Is(err, adaptation.ErrConflict) || !strings.Contains(err.Error(), `"10-first" and "20-second"`) {
			t.Fatalf("CreateContainer = %v, want a conflict naming both plugins", err)
		}
		entry := e.waitLogged(logrus.Fields{"plugin": "20-second", "event": "CreateContainer"})[0]
		if !strings.Contains(entry.Message, "conflicts with an earlier plugin's") {
			t.Errorf("log line %q does not call it a conflict", entry.Message)
		}
	})
}

// TestGarbageOnTheSocket: connections that send garbage are dropped with a
// clear log line, and the runtime keeps serving well-behaved plugins.
func TestGarbageOnTheSocket(t *testing.T) {
	e := newEnv(t)
	e.start()
	oversized := make([]byte, 8)
	binary.BigEndian.PutUint32(oversized[0:], 2)
	binary.BigEndian.PutUint32(oversized[4:], 1<<31)
	garbageTTRPC := []byte{0, 0, 0, 2, 0, 0, 0, 12, 0, 0, 0, 2, 0, 0, 0, 1, 1, 0, 0xff, 0xff}
	for _, payload := range [][]byte{oversized, garbageTTRPC, []byte("GET / HTTP/1.1\r\n\r\n")} {
		conn := dialSocket(t, e.socket)
		if _, err := conn.Write(payload); err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
	}
	e.external("10", "fine", testplugin.Config{})
	e.waitPlugins("10-fine")
	// The runtime ended these connections itself: the log says why, not
	// that the peer hung up.
	e.waitLoggedWhere("about a frame over the limit", func(en *logrus.Entry) bool {
		err, _ := en.Data["error"].(string)
		return strings.Contains(err, "connection closed before registration: nrikit: mux frame of")
	}, logrus.Fields{"phase": "register"})
	must(t, e.a.RunPodSandbox(context.Background(), &api.RunPodSandboxRequest{Pod: testPod("pg")}))
	if testplugin.Count(e.records(), "fine", "RunPodSandbox") != 1 {
		t.Fatal("the well-behaved plugin missed the event")
	}
}

// TestEmptyRequests: a runtime's empty or nil requests give answers or
// errors, never a panic, and the plugins keep working.
func TestEmptyRequests(t *testing.T) {
	e := newEnv(t)
	e.preinstall("10", "any", testplugin.Config{})
	e.start()
	ctx := context.Background()
	calls := map[string]func() error{
		"RunPodSandbox":        func() error { return e.a.RunPodSandbox(ctx, nil) },
		"UpdatePodSandbox":     func() error { _, err := e.a.UpdatePodSandbox(ctx, nil); return err },
		"PostUpdatePodSandbox": func() error { return e.a.PostUpdatePodSandbox(ctx, nil) },
		"StopPodSandbox":       func() error { return e.a.StopPodSandbox(ctx, nil) },
		"RemovePodSandbox":     func() error { return e.a.RemovePodSandbox(ctx, nil) },
		"CreateContainer":      func() error { _, err := e.a.CreateContainer(ctx, nil); return err },
		"PostCreateContainer":  func() error { return e.a.PostCreateContainer(ctx, nil) },
		"StartContainer":       func() error { return e.a.StartContainer(ctx, nil) },
		"PostStartContainer":   func() error { return e.a.PostStartContainer(ctx, nil) },
		"UpdateContainer":      func() error { _, err := e.a.UpdateContainer(ctx, nil); return err },
		"PostUpdateContainer":  func() error { return e.a.PostUpdateContainer(ctx, nil) },
		"StopContainer":        func() error { _, err := e.a.StopContainer(ctx, nil); return err },
		"RemoveContainer":      func() error { return e.a.RemoveContainer(ctx, nil) },
		"CreateContainer{}": func() error {
			_, err := e.a.CreateContainer(ctx, &api.CreateContainerRequest{})
			return err
		},
	}
	for name, call := range calls {
		_ = call() // an error is fine; a panic fails the test
		t.Logf("%s survived", name)
	}
	runLifecycle(t, e.a, "after")
	got := e.events("any")
	if len(got) < len(fullLifecycleEvents) || !equal(got[len(got)-len(fullLifecycleEvents):], fullLifecycleEvents) {
		t.Fatalf("after the empty requests the plugin got %v", got)
	}
}
