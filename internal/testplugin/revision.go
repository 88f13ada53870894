// SPDX-License-Identifier: Apache-2.0

package testplugin

import (
	"fmt"

	"github.com/containerd/ttrpc"

	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/api/v1beta1"
)

// Protocol revisions a test plugin can speak (Config.Revision).
const (
	RevisionV1alpha1 = "v1alpha1"
	RevisionV1beta1  = "v1beta1"
)

// PluginServiceNameV1beta1 is the ttrpc name of the v1beta1 Plugin service.
const PluginServiceNameV1beta1 = "nri.pkg.api.v1beta1.Plugin"

// v1beta1 reports whether the plugin speaks the proposed v1beta1 revision,
// as a plugin built on its stub does: it serves the v1beta1 Plugin service
// without StateChange, registers on the v1beta1 Runtime service without an
// NRI version, and declares no failure policy.
func (c Config) v1beta1() bool { return c.Revision == RevisionV1beta1 }

func (c Config) validateRevision() error {
	switch c.Revision {
	case "", RevisionV1alpha1:
		return nil
	case RevisionV1beta1:
		if c.Legacy || c.FailurePolicy != nil {
			return fmt.Errorf("%w: revision %s has neither StateChange (legacy) nor a failure policy", ErrConfig, c.Revision)
		}
		return nil
	}
	return fmt.Errorf("%w: revision %q is neither %s nor %s", ErrConfig, c.Revision, RevisionV1alpha1, RevisionV1beta1)
}

func (c Config) pluginServiceName() string {
	if c.v1beta1() {
		return PluginServiceNameV1beta1
	}
	return PluginServiceName
}

func (c Config) runtimeClient(client *ttrpc.Client) api.RuntimeService {
	if c.v1beta1() {
		return v1beta1.NewRuntimeClient(client)
	}
	return api.NewRuntimeClient(client)
}

// nriVersion is announced in RegisterPluginRequest; v1beta1 has no field for it.
func (c Config) nriVersion() string {
	if c.v1beta1() {
		return ""
	}
	return NRIVersion
}
