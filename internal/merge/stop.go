// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"slices"

	"github.com/nrikit/nrikit/api"
)

// Stop merges StopContainer replies: updates of any container, the stopped
// one included, with the same ownership rules as elsewhere.
type Stop struct {
	st updateState
}

// NewStop starts merging for req. The request itself is not needed: no
// container gets special treatment.
func NewStop(_ *api.StopContainerRequest) *Stop {
	return &Stop{st: newUpdateState()}
}

// Apply merges the reply of plugin ("idx-name"); a nil rsp contributes
// nothing. It is all-or-nothing, so a teardown caller may log an error and
// go on with the next plugin.
func (s *Stop) Apply(plugin string, rsp *api.StopContainerResponse) error {
	if err := checkPlugin(plugin); err != nil {
		return err
	}
	if isEmpty(rsp) {
		return nil // nothing to merge, and nothing to snapshot for an undo
	}
	saved := s.st.clone()
	if err := s.st.apply(plugin, rsp.Update, nil); err != nil {
		s.st = saved
		return err
	}
	return nil
}

// Response lists the merged updates in order of first sight.
func (s *Stop) Response() *api.StopContainerResponse {
	return &api.StopContainerResponse{Update: s.st.updates.list()}
}

// Discarded lists the updates dropped because they conflicted while allowing
// failure (ignore_failure); the caller may log them.
func (s *Stop) Discarded() []error { return slices.Clone(s.st.dropped) }
