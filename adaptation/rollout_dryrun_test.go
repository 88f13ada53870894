// SPDX-License-Identifier: Apache-2.0

// Validation run dry, with real plugin processes: a validator's rejections and the default
// validator's become warnings, counts and record entries; the creations go through.

package adaptation_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/testplugin"
)

// createMany runs a pod and creates n containers in it, and returns the
// errors of the creations.
func createMany(t *testing.T, a *adaptation.Adaptation, podID string, n int) []error {
	t.Helper()
	ctx := context.Background()
	pod := testPod(podID)
	if err := a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, n)
	for i := range errs {
		_, errs[i] = a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: testContainer(fmt.Sprintf("%s-c%d", podID, i), pod)})
	}
	return errs
}

func pluginStatusOf(a *adaptation.Adaptation, id string) adaptation.PluginStatus {
	for _, p := range a.Status().Plugins {
		if p.Plugin == id {
			return p
		}
	}
	return adaptation.PluginStatus{}
}

// A validator that rejects everything, run dry, lets every creation
// through, with one warning a minute, a count equal to the creations, and
// its verdict in each container's record; enforced, it fails them.
func TestDryRunValidatorLetsCreationsThrough(t *testing.T) {
	const creations = 30
	policy := testplugin.Config{Events: "createcontainer,validatecontaineradjustment", Reject: "no privileged pods",
		Annotations: map[string]string{"policy": "seen"}}
	t.Run("dry-run", func(t *testing.T) {
		e := newEnv(t, adaptation.WithContainerRecords(100),
			adaptation.WithPluginSettings("50-policy", adaptation.PluginSettings{Validation: adaptation.ValidationDryRun}))
		e.preinstall("50", "policy", policy)
		e.start()
		e.waitPlugins("50-policy")
		for i, err := range createMany(t, e.a, "web", creations) {
			if err != nil {
				t.Errorf("creation %d failed: %v", i, err)
			}
		}
		e.waitUntil("every verdict", func() bool { return pluginStatusOf(e.a, "50-policy").DryRun.Validations == creations })
		st := pluginStatusOf(e.a, "50-policy")
		if st.DryRun.WouldReject != creations || st.Validation != adaptation.ValidationDryRun {
			t.Errorf("Status: validation %q, dry run %+v; want %d rejections counted", st.Validation, st.DryRun, creations)
		}
		warnings := e.waitLoggedWhere("a would-reject warning", func(en *logrus.Entry) bool {
			return strings.HasPrefix(en.Message, "nrikit: validator 50-policy would reject container default/pod-web/ctr-web-c")
		}, nil)
		if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "no privileged pods") {
			t.Errorf("%d warnings within the minute, want 1 with the reason", len(warnings))
		}
		// Its CreateContainer, which adjusts, stays synchronous: applied.
		pod := testPod("web")
		rsp, err := e.a.CreateContainer(context.Background(), &api.CreateContainerRequest{Pod: pod, Container: testContainer("web-last", pod)})
		if err != nil || rsp.GetAdjust().GetAnnotations()["policy"] != "seen" {
			t.Errorf("its CreateContainer's adjustment: %v, %v; want it applied", rsp.GetAdjust().GetAnnotations(), err)
		}
		rec, ok := e.a.ContainerRecord("web-c7")
		if !ok || len(rec.Validation.DryRun) != 1 {
			t.Fatalf("record %+v: want the dry run's verdict", rec)
		}
		if v := rec.Validation.DryRun[0]; v.Validator != "50-policy" || !v.Rejected || v.Reason != "no privileged pods" {
			t.Errorf("verdict %+v", v)
		}
	})
	t.Run("enforced", func(t *testing.T) {
		e := newEnv(t)
		e.preinstall("50", "policy", policy)
		e.start()
		e.waitPlugins("50-policy")
		for i, err := range createMany(t, e.a, "web", 3) {
			if err == nil || !strings.Contains(err.Error(), "no privileged pods") {
				t.Errorf("creation %d: %v, want the rejection", i, err)
			}
		}
	})
}

// The default validator run dry: a rule that would reject makes a warning
// and a count; the creation proceeds, and its record says why it would
// have been rejected.
func TestDefaultValidatorDryRun(t *testing.T) {
	e := newEnv(t, adaptation.WithContainerRecords(10), adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{
		Enable: true, RequiredPlugins: []string{"absent"}, DryRun: true,
	}))
	e.preinstall("10", "sync", testplugin.Config{})
	e.start()
	e.waitPlugins("10-sync")
	for i, err := range createMany(t, e.a, "p", 5) {
		if err != nil {
			t.Errorf("creation %d: %v", i, err)
		}
	}
	st := e.a.Status()
	if st.DefaultValidatorWouldReject != 5 || !st.Settings.DefaultValidatorDryRun {
		t.Errorf("Status counts %d would-reject (dry run %v), want 5", st.DefaultValidatorWouldReject, st.Settings.DefaultValidatorDryRun)
	}
	warnings := e.waitLoggedMessage("nrikit: the default validator would reject the container (default_validator.dry_run); it is created")
	if len(warnings) != 1 {
		t.Errorf("%d warnings within the minute, want 1", len(warnings))
	}
	rec, _ := e.a.ContainerRecord("p-c0")
	if rec.Validation.DefaultValidator || len(rec.Validation.DryRun) != 1 || rec.Validation.DryRun[0].Validator != "default_validator" ||
		!strings.Contains(rec.Validation.DryRun[0].Reason, "absent") {
		t.Errorf("record's validation %+v: want the default validator's dry-run rejection", rec.Validation)
	}
}
