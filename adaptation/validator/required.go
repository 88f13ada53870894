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
	var seen names
	notHandled := func(name string) bool { return !consulted(req, name) }
	m.configured = seen.addNew(nil, cfg.RequiredPlugins, notHandled)
	annotated, found, err := annotatedPlugins(pod, ctr)
	if err != nil {
		return missing{}, err
	}
	m.found = found
	m.annotated = seen.addNew(nil, annotated, notHandled)
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

// MaxRequiredPlugins bounds the plugins a RequiredPlugins annotation may
// list: a pod author could otherwise list tens of thousands, which every
// pod start and container creation would go through, under the runtime's
// lock. A longer list is refused, as one that does not parse is.
const MaxRequiredPlugins = 128

// parsePluginList reads a RequiredPlugins annotation's value, found under
// key found: a YAML list of at most MaxRequiredPlugins plugin names. Its
// errors quote at most the value's first 64 bytes.
func parsePluginList(value, found string) (names []string, err error) {
	if err := yaml.Unmarshal([]byte(value), &names); err != nil {
		// The YAML error may span lines; a rejection is read on one.
		oneLine := strings.Join(strings.Fields(err.Error()), " ")
		return nil, fmt.Errorf("annotation %s=%s is not a YAML list of plugin names: %s", found, quotedStart(value), cutText(oneLine))
	}
	if len(names) > MaxRequiredPlugins {
		return nil, fmt.Errorf("annotation %s lists %d plugins, more than %d", found, len(names), MaxRequiredPlugins)
	}
	if slices.Contains(names, "") {
		return nil, fmt.Errorf("annotation %s=%s names an empty plugin", found, quotedStart(value))
	}
	return names, nil
}

// quotedStart quotes the first 64 bytes of an annotation's value, and says
// how long it is if that is not all of it.
func quotedStart(value string) string {
	const shown = 64
	if len(value) <= shown {
		return strconv.Quote(value)
	}
	return fmt.Sprintf("%q... (%d bytes)", strings.ToValidUTF8(value[:shown], ""), len(value))
}

// cutText cuts a parser's message to 256 bytes.
func cutText(s string) string {
	if len(s) <= 256 {
		return s
	}
	return strings.ToValidUTF8(s[:256], "") + " [cut]"
}

// names is a set of plugin names, made on first use.
type names map[string]struct{}

// addNew appends to out each name of list that is not in the set yet and
// that keep says to keep, and adds every name of list to the set: in time
// linear in the list, whatever its repeats.
func (n *names) addNew(out, list []string, keep func(string) bool) []string {
	for _, name := range list {
		if _, dup := (*n)[name]; dup {
			continue
		}
		if *n == nil {
			*n = names{}
		}
		(*n)[name] = struct{}{}
		if keep(name) {
			out = append(out, name)
		}
	}
	return out
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

// notConsulted names the plugins missing from a creation: the first
// maxNamed, then how many more.
func notConsulted(names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("required plugin %q did not handle the container's creation", names[0])
	}
	shown := names[:min(len(names), maxNamed)]
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = strconv.Quote(n)
	}
	list := strings.Join(quoted, ", ")
	if more := len(names) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Sprintf("required plugins %s did not handle the container's creation", list)
}

// maxNamed bounds the plugins an error names.
const maxNamed = 8

func joinReasons(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
