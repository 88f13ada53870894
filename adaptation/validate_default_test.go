// SPDX-License-Identifier: Apache-2.0

package adaptation_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation"
	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// createIn runs a pod with the given annotations and creates one container
// ("ctr-<id>-c") in it.
func createIn(t *testing.T, a *adaptation.Adaptation, id string, annotations map[string]string, profile *api.SecurityProfile) (*api.CreateContainerResponse, error) {
	t.Helper()
	ctx := context.Background()
	pod := testPod(id)
	pod.Annotations = annotations
	if err := a.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: pod}); err != nil {
		t.Fatal(err)
	}
	ctr := testContainer(id+"-c", pod)
	if profile != nil {
		ctr.Linux = &api.LinuxContainer{SeccompProfile: profile}
	}
	return a.CreateContainer(ctx, &api.CreateContainerRequest{Pod: pod, Container: ctr})
}

// wantRejected checks that err is the default validator's rejection and says
// each of want.
func wantRejected(t *testing.T, err error, want ...string) {
	t.Helper()
	if !errors.Is(err, adaptation.ErrRejected) || !errors.Is(err, validator.ErrValidation) {
		t.Fatalf("CreateContainer = %v, want the default validator's rejection", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("rejection does not say %q:\n%v", w, err)
		}
	}
}

// restrictedPlugins connects four reference-stub plugins, each making one
// restricted adjustment in CreateContainer.
func restrictedPlugins(e *env) {
	e.refExternal("modern", "10", "hooker", "hook=/usr/local/bin/audit-hook")
	e.refExternal("modern", "20", "seccomper", "seccomp=SCMP_ACT_ALLOW")
	e.refExternal("modern", "30", "nser", "namespace=network=/var/run/netns/other")
	e.refExternal("modern", "40", "sysctler", "sysctl=net.ipv4.ip_forward=1")
	e.waitPlugins("10-hooker", "20-seccomper", "30-nser", "40-sysctler")
}

// TestDefaultValidatorRejectsReferencePlugins: reference-stub plugins add an
// OCI hook, a seccomp policy, a namespace and a sysctl; a default validator
// that restricts all four rejects the container, naming every rule and the
// plugin that broke it. With the rules off the same adjustments pass.
func TestDefaultValidatorRejectsReferencePlugins(t *testing.T) {
	runtimeDefault := &api.SecurityProfile{ProfileType: api.SecurityProfile_RUNTIME_DEFAULT}
	t.Run("restricted", func(t *testing.T) {
		e := newEnv(t, adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{
			Enable:                                true,
			RejectOCIHookAdjustment:               true,
			RejectRuntimeDefaultSeccompAdjustment: true,
			RejectNamespaceAdjustment:             true,
			RejectSysctlAdjustment:                true,
		}))
		e.start()
		restrictedPlugins(e)
		_, err := createIn(t, e.a, "dv1", nil, runtimeDefault)
		t.Logf("the rejection reads:\n%v", err)
		wantRejected(t, err,
			`container default/pod-dv1/ctr-dv1-c: `,
			`reject_oci_hook_adjustment: plugin "10-hooker" injected OCI hooks`,
			`reject_runtime_default_seccomp_adjustment: plugin "20-seccomper" adjusted the seccomp policy of a container with the runtime default profile`,
			`reject_namespace_adjustment: plugin "30-nser" adjusted namespaces (network)`,
			`reject_sysctl_adjustment: plugin "40-sysctler" adjusted sysctls (net.ipv4.ip_forward)`)
		if len(e.logged(map[string]any{"container": "dv1-c"})) == 0 {
			t.Error("the rejection was not logged")
		}
		// Another profile, whose rule is off: only the other three reject.
		_, err = createIn(t, e.a, "dv2", nil, &api.SecurityProfile{ProfileType: api.SecurityProfile_LOCALHOST, LocalhostRef: "p.json"})
		wantRejected(t, err, "reject_oci_hook_adjustment", "reject_namespace_adjustment", "reject_sysctl_adjustment")
		if strings.Contains(err.Error(), "seccomp") {
			t.Errorf("custom seccomp adjustment rejected though allowed: %v", err)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		e := newEnv(t, adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{Enable: true}))
		e.start()
		restrictedPlugins(e)
		rsp, err := createIn(t, e.a, "dv3", nil, runtimeDefault)
		if err != nil {
			t.Fatalf("CreateContainer with every rule off: %v", err)
		}
		adj := rsp.GetAdjust()
		if len(adj.GetHooks().GetCreateRuntime()) != 1 || adj.GetLinux().GetSeccompPolicy() == nil ||
			len(adj.GetLinux().GetNamespaces()) != 1 || adj.GetLinux().GetSysctl()["net.ipv4.ip_forward"] != "1" {
			t.Errorf("the restricted adjustments did not come through: %v", adj)
		}
	})
}

// TestDefaultValidatorRequiredPlugins: required plugins, configured and
// annotated, are checked against the plugins that handled the creation; the
// tolerate annotation lets a pod go without them.
func TestDefaultValidatorRequiredPlugins(t *testing.T) {
	const tolerate = "nrikit.test/tolerate-missing-plugins"
	const required = validator.RequiredPlugins
	e := newEnv(t, adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{
		Enable:                    true,
		RequiredPlugins:           []string{"ref", "15-quiet"},
		TolerateMissingAnnotation: tolerate,
	}))
	e.start()
	e.refExternal("modern", "10", "ref")
	// A plugin that does not take CreateContainer still counts as consulted.
	e.refExternal("modern", "15", "quiet", "events=RunPodSandbox")
	e.waitPlugins("10-ref", "15-quiet")

	for i, tc := range []struct {
		name        string
		annotations map[string]string
		want        []string // none: created
	}{
		{name: "present"},
		{name: "annotated present", annotations: map[string]string{required: "[10-ref, quiet]"}},
		{name: "annotated missing", annotations: map[string]string{required + "/pod": "[ref, absent]"},
			want: []string{`annotation required-plugins.noderesource.dev/pod: required plugin "absent" did not handle the container's creation`}},
		{name: "container scope first", annotations: map[string]string{required + "/container.ctr-p4-c": "- gone\n", required + "/pod": "[ref]"},
			want: []string{`annotation required-plugins.noderesource.dev/container.ctr-p4-c: required plugin "gone"`}},
		{name: "tolerated", annotations: map[string]string{required: "[absent]", tolerate + "/pod": "true"}},
		{name: "toleration refused in container scope", annotations: map[string]string{required: "[absent]", tolerate + "/container.ctr-p6-c": "false", tolerate: "true"},
			want: []string{`required plugin "absent"`}},
		{name: "unparsable toleration", annotations: map[string]string{tolerate: "sometimes"},
			want: []string{`tolerate_missing_plugins_annotation: annotation nrikit.test/tolerate-missing-plugins="sometimes" is not a boolean`}},
		{name: "unparsable list", annotations: map[string]string{required: "ref, quiet"},
			want: []string{`annotation required-plugins.noderesource.dev="ref, quiet" is not a YAML list of plugin names`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := createIn(t, e.a, fmt.Sprintf("p%d", i+1), tc.annotations, nil)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("CreateContainer: %v", err)
				}
				return
			}
			wantRejected(t, err, tc.want...)
		})
	}
}

// TestDefaultValidatorRequiredPluginNotConsulted: a required plugin that
// is connected but timed out in this creation, and one never connected, fail
// the creation unless the pod tolerates it.
func TestDefaultValidatorRequiredPluginNotConsulted(t *testing.T) {
	const tolerate = "nrikit.test/tolerate"
	e := newEnv(t, adaptation.WithRequestTimeout(testRequestTimeout), adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{
		Enable:                    true,
		RequiredPlugins:           []string{"slow", "never"},
		TolerateMissingAnnotation: tolerate,
	}))
	e.start()
	e.refExternal("modern", "10", "slow", "hang=CreateContainer", "failure_policy=keep_connected")
	e.waitPlugins("10-slow")

	_, err := createIn(t, e.a, "t1", nil, nil)
	wantRejected(t, err, `required_plugins: required plugins "slow", "never" did not handle the container's creation`)
	if _, err := createIn(t, e.a, "t2", map[string]string{tolerate + "/pod": "true"}, nil); err != nil {
		t.Fatalf("tolerated CreateContainer: %v", err)
	}
	if got := pluginIDs(e.a); !equal(got, []string{"10-slow"}) {
		t.Errorf("plugins %v: the slow plugin was to be kept connected", got)
	}
}

// TestDefaultValidatorRequiredPluginDropped: a required plugin dropped for
// timing out during the creation is not counted as consulted.
func TestDefaultValidatorRequiredPluginDropped(t *testing.T) {
	e := newEnv(t, adaptation.WithRequestTimeout(testRequestTimeout), adaptation.WithDefaultValidator(&validator.DefaultValidatorConfig{
		Enable: true, RequiredPlugins: []string{"10-dropped"},
	}))
	e.start()
	e.refExternal("modern", "10", "dropped", "hang=CreateContainer")
	e.waitPlugins("10-dropped")
	_, err := createIn(t, e.a, "d1", nil, nil)
	wantRejected(t, err, `required plugin "10-dropped" did not handle`)
}

// TestDefaultValidatorFromConfig: the default_validator table of Config, as
// JSON with the reference's keys, turns the validator on.
func TestDefaultValidatorFromConfig(t *testing.T) {
	var cfg adaptation.Config
	const text = `{"default_validator": {"enable": true, "reject_oci_hook_adjustment": true, "reject_sysctl_adjustment": true,
		"reject_runtime_default_seccomp_adjustment": true, "reject_unconfined_seccomp_adjustment": true,
		"reject_custom_seccomp_adjustment": true, "reject_namespace_adjustment": true,
		"required_plugins": ["10-hooker"], "tolerate_missing_plugins_annotation": "x"}}`
	if err := json.Unmarshal([]byte(text), &cfg); err != nil {
		t.Fatal(err)
	}
	want := validator.DefaultValidatorConfig{Enable: true, RejectOCIHookAdjustment: true, RejectSysctlAdjustment: true,
		RejectRuntimeDefaultSeccompAdjustment: true, RejectUnconfinedSeccompAdjustment: true,
		RejectCustomSeccompAdjustment: true, RejectNamespaceAdjustment: true,
		RequiredPlugins: []string{"10-hooker"}, TolerateMissingAnnotation: "x"}
	if got := cfg.DefaultValidator; got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("default_validator read as %+v", got)
	}
	e := newEnv(t, cfg.Options()...)
	e.start()
	e.refExternal("modern", "10", "hooker", "hook=/bin/true")
	e.waitPlugins("10-hooker")
	_, err := createIn(t, e.a, "c1", nil, nil)
	wantRejected(t, err, `reject_oci_hook_adjustment: plugin "10-hooker" injected OCI hooks`)

	bad := adaptation.Config{DefaultValidator: &validator.DefaultValidatorConfig{Enable: true, RequiredPlugins: []string{""}}}
	if _, err := adaptation.New("rt", "v1", nil, nil, bad.Options()...); err == nil {
		t.Error("an empty required plugin name was accepted")
	}
	off := adaptation.Config{DefaultValidator: &validator.DefaultValidatorConfig{RejectOCIHookAdjustment: true}}
	e = newEnv(t, off.Options()...)
	e.start()
	e.refExternal("modern", "10", "hooker", "hook=/bin/true")
	e.waitPlugins("10-hooker")
	if _, err := createIn(t, e.a, "c2", nil, nil); err != nil {
		t.Errorf("a default validator without enable rejected: %v", err)
	}
}
