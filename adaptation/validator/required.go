// SPDX-License-Identifier: Apache-2.0

package validator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/nrikit/nrikit/api"
)

// checkRequiredPlugins rejects a container unless every required plugin —
// configured, or named by the pod's RequiredPlugins annotation — is among the
// plugins that handled its creation (req.Plugins), or the pod's tolerate
// annotation says "true". A tolerate or RequiredPlugins annotation that does
// not parse rejects it too: the pod asked for something unclear.
func checkRequiredPlugins(cfg *DefaultValidatorConfig, req *api.ValidateContainerAdjustmentRequest) string {
	m, err := missingRequired(cfg, req)
	if err != nil {
		return err.Error()
	}
	reason := ""
	if len(m.configured) > 0 {
		reason = fmt.Sprintf("required_plugins: %s", notConsulted(m.configured))
	}
	if len(m.annotated) > 0 {
		reason = joinReasons(reason, fmt.Sprintf("annotation %s: %s", m.found, notConsulted(m.annotated)))
	}
	return reason
}

// missing are the required plugins that did not handle a creation: the
// configured ones, then those the annotation found under key found adds.
type missing struct {
	configured, annotated []string
	found                 string
}

// missingRequired finds the required plugins that did not handle the
// creation; none when the pod tolerates it. A tolerate or RequiredPlugins
// annotation that does not parse is an error.
func missingRequired(cfg *DefaultValidatorConfig, req *api.ValidateContainerAdjustmentRequest) (missing, error) {
	var m missing
	pod, ctr := req.GetPod(), req.GetContainer().GetName()
	if key := cfg.TolerateMissingAnnotation; key != "" {
		if value, found, ok := effectiveAnnotation(pod, key, ctr); ok {
			tolerate, err := parseTolerate(value, found)
			if err != nil || tolerate {
				return m, err
			}
		}
	}
	for _, name := range cfg.RequiredPlugins {
		if !consulted(req, name) && !slices.Contains(m.configured, name) {
			m.configured = append(m.configured, name)
		}
	}
	annotated, found, err := annotatedPlugins(pod, ctr)
	if err != nil {
		return missing{}, err
	}
	m.found = found
	for _, name := range annotated {
		if !consulted(req, name) && !slices.Contains(cfg.RequiredPlugins, name) && !slices.Contains(m.annotated, name) {
			m.annotated = append(m.annotated, name)
		}
	}
	return m, nil
}

// MissingPlugins lists the required plugins, configured and annotated, that
// did not handle the creation req describes: those its required-plugins
// rule rejects it for, so that the runtime can say why each is missing.
// It is empty when the pod tolerates missing plugins, or an annotation
// does not parse.
func (v *DefaultValidator) MissingPlugins(req *api.ValidateContainerAdjustmentRequest) []string {
	m, err := missingRequired(&v.cfg, req)
	if err != nil {
		return nil
	}
	return append(m.configured, m.annotated...)
}

// annotatedPlugins reads the RequiredPlugins annotation that applies to the
// container: a YAML list of plugin names.
func annotatedPlugins(pod *api.PodSandbox, ctr string) (names []string, found string, err error) {
	value, found, ok := effectiveAnnotation(pod, RequiredPlugins, ctr)
	if !ok {
		return nil, "", nil
	}
	names, err = parsePluginList(value, found)
	return names, found, err
}

// parseTolerate reads a tolerate annotation's value, found under key found.
func parseTolerate(value, found string) (bool, error) {
	tolerate, err := strconv.ParseBool(value)
	if err != nil {
		return false, fmt.Errorf("tolerate_missing_plugins_annotation: annotation %s=%q is not a boolean: %v", found, value, err)
	}
	return tolerate, nil
}

// parsePluginList reads a RequiredPlugins annotation's value, found under
// key found: a YAML list of plugin names.
func parsePluginList(value, found string) (names []string, err error) {
	if err := yaml.Unmarshal([]byte(value), &names); err != nil {
		// The YAML error may span lines; a rejection is read on one.
		oneLine := strings.Join(strings.Fields(err.Error()), " ")
		return nil, fmt.Errorf("annotation %s=%q is not a YAML list of plugin names: %s", found, value, oneLine)
	}
	if slices.Contains(names, "") {
		return nil, fmt.Errorf("annotation %s=%q names an empty plugin", found, value)
	}
	return names, nil
}

// consulted reports whether the named plugin handled the creation; name is
// either a plugin's name or its "idx-name".
func consulted(req *api.ValidateContainerAdjustmentRequest, name string) bool {
	for _, p := range req.GetPlugins() {
		if name == p.GetName() || name == p.GetIndex()+"-"+p.GetName() {
			return true
		}
	}
	return false
}

func notConsulted(names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("required plugin %q did not handle the container's creation", names[0])
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return fmt.Sprintf("required plugins %s did not handle the container's creation", strings.Join(quoted, ", "))
}

func joinReasons(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
